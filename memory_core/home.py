"""Where the agent's home is (spec §1), resolved on every access, never cached."""

from __future__ import annotations

import os
from pathlib import Path


def default_home() -> Path:
    """``HERMES_HOME`` if non-blank, else the platform default the agent uses."""
    raw = os.environ.get("HERMES_HOME", "").strip()
    if raw:
        return Path(raw).expanduser()
    if os.name == "nt":
        local = os.environ.get("LOCALAPPDATA", "").strip()
        base = Path(local) if local else Path.home() / "AppData" / "Local"
        return base / "hermes"
    return Path.home() / ".hermes"


def resolve_home(home: str | os.PathLike[str] | None) -> Path:
    return default_home() if home is None else Path(home)


def memories_dir(home: str | os.PathLike[str] | None) -> Path:
    return resolve_home(home) / "memories"

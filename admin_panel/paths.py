"""Where the agent's home and the panel's own state live.

Both are resolved from the environment when settings load; tests and the ``--demo`` mode point
them elsewhere through Django settings (``HERMES_HOME``, ``PANEL_DATA_DIR``).
"""

from __future__ import annotations

import os
from pathlib import Path

from memory_core.home import default_home


def resolve_hermes_home(environ: os._Environ[str] | dict[str, str] | None = None) -> Path:
    """The agent's home by the one rule every layer uses (``memory_core.home.default_home``:
    ``HERMES_HOME``, else the platform's default), made absolute."""
    return default_home(environ).absolute()


def resolve_panel_data_dir(hermes_home: Path, environ: os._Environ[str] | dict[str, str] | None = None) -> Path:
    """``PANEL_DATA_DIR`` if set, else ``<HERMES_HOME>/panel``."""
    env = os.environ if environ is None else environ
    raw = (env.get("PANEL_DATA_DIR") or "").strip()
    return Path(raw).expanduser().absolute() if raw else hermes_home / "panel"

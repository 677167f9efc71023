"""Where a HERMES_HOME sits among profiles, and how its paths are shown to the user."""

from __future__ import annotations

import os
import re
from pathlib import Path

PROFILE_NAME_RE = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")


def native_root() -> Path:
    """The default agent home of this user (``~/.hermes``)."""
    return Path.home() / ".hermes"


def root_home(home: Path) -> Path:
    """The default profile's home for ``home`` (the agent's rule in 0.19.0).

    A home inside ``~/.hermes`` belongs to that root; ``<x>/profiles/<name>`` belongs to ``<x>``;
    any other home is its own root.
    """
    home = Path(home).absolute()
    native = native_root()
    try:
        Path(os.path.realpath(home)).relative_to(os.path.realpath(native))
        return native
    except ValueError:
        pass
    if home.parent.name == "profiles":
        return home.parent.parent
    return home


def profile_name(home: Path) -> str:
    """``"default"`` for the root itself, the profile's name for ``<root>/profiles/<name>``,
    else ``"custom"``."""
    resolved = Path(os.path.realpath(home))
    root = Path(os.path.realpath(root_home(home)))
    if resolved == root:
        return "default"
    try:
        parts = resolved.relative_to(root / "profiles").parts
    except ValueError:
        return "custom"
    if len(parts) == 1 and PROFILE_NAME_RE.fullmatch(parts[0]):
        return parts[0]
    return "custom"


def profile_home(*, home: Path, profile: str) -> Path:
    """The home of profile ``profile`` next to ``home`` (``""``/``"current"``: ``home`` itself,
    ``"default"``: the root). Raises ``ValueError`` for a name that is not a profile name."""
    if profile in ("", "current"):
        return Path(home)
    root = root_home(home)
    if profile == "default":
        return root
    if not PROFILE_NAME_RE.fullmatch(profile):
        raise ValueError(f"Invalid profile name '{profile}'. Must match [a-z0-9][a-z0-9_-]{{0,63}}")
    return root / "profiles" / profile


def display_path(path: Path, *, home: Path) -> str:
    """``path`` relative to ``home`` when inside it, else ``~/…`` when inside the user's home
    directory, else absolute. Used in every message and payload."""
    path = Path(path)

    def pairs(base: Path):
        # Lexical first; symlinks are resolved only when that fails (every page asks, mostly for
        # paths inside the home).
        yield path, base
        real_base = Path(os.path.realpath(base))
        yield path, real_base
        real_path = Path(os.path.realpath(path))
        yield real_path, base
        yield real_path, real_base

    for base, prefix in ((Path(home), ""), (Path.home(), "~/")):
        for candidate, b in pairs(base):
            try:
                rel = candidate.relative_to(b)
            except ValueError:
                continue
            text = rel.as_posix()
            if text == ".":
                return prefix.rstrip("/") or "."
            return prefix + text
    return path.as_posix()


def expand_location(entry: str, *, home: Path) -> Path:
    """A ``storage_fallbacks`` file entry: ``~/…`` is the user's home, anything else is relative
    to HERMES_HOME."""
    if entry.startswith("~/"):
        return Path.home() / entry[2:]
    return Path(home) / entry


def confining_home(path: Path, *, home: Path) -> Path | None:
    """The agent home (or the user's home directory) that ``path`` lies in lexically: links in
    ``path`` must not lead out of it (docs/safe_paths.md). None for a path outside all of them."""
    absolute = Path(os.path.abspath(path))
    for base in (Path(home), root_home(Path(home)), Path.home()):
        try:
            absolute.relative_to(os.path.abspath(base))
        except ValueError:
            continue
        return Path(os.path.abspath(base))
    return None


def read_confined(path: Path, *, home: Path | None) -> bytes:
    """The file's bytes, never through a link leading out of its home (``LinkOutsideHome``)."""
    from memory_core import safe_paths

    base = confining_home(path, home=home) if home is not None else None
    if base is None:
        return Path(path).read_bytes()
    return safe_paths.read_bytes(path, base)

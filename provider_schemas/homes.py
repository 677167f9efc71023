"""Where a HERMES_HOME sits among profiles, and how its paths are shown to the user."""

from __future__ import annotations

import os
from pathlib import Path

# The home and profile rules live in memory_core.home, one module for every layer; provider_schemas
# has always exposed them from here.
from memory_core.home import (
    PROFILE_NAME_RE,
    profile_home,
    profile_name,
    root_home,
)

__all__ = [
    "PROFILE_NAME_RE",
    "confining_home",
    "display_path",
    "expand_location",
    "profile_home",
    "profile_name",
    "read_confined",
    "root_home",
]



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
    # Lazily: the root home costs a realpath, and almost every path asked about is in the home.
    for base in (lambda: Path(home), lambda: root_home(Path(home)), Path.home):
        candidate = os.path.abspath(base())
        try:
            absolute.relative_to(candidate)
        except ValueError:
            continue
        return Path(candidate)
    return None


def read_confined(path: Path, *, home: Path | None) -> bytes:
    """The file's bytes, never through a link leading out of its home (``LinkOutsideHome``)."""
    from memory_core import safe_paths

    base = confining_home(path, home=home) if home is not None else None
    if base is None:
        return Path(path).read_bytes()
    return safe_paths.read_bytes(path, base)

"""Which agent release runs in a home, as far as the files tell (docs/memory_core.md "Newer agents").

The agent upgrades ``state.db`` in place when it starts, so a file past 0.19.0's schema version
means a newer agent runs here; its other files (pending records, ``config.yaml``) are then read and
replayed with its rules. No ``state.db``, or one the panel cannot open, means 0.19.0's rules.
"""

from __future__ import annotations

import os
import threading

from memory_core.home import resolve_home

_lock = threading.Lock()
_known: dict[str, tuple[tuple, bool]] = {}


def _stamp(path: str) -> tuple:
    stamp = []
    for candidate in (path, path + "-wal"):
        try:
            st = os.stat(candidate)
            stamp.append((st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size))
        except OSError:
            stamp.append(None)
    return tuple(stamp)


def newer_agent_home(home: str | os.PathLike[str] | None) -> bool:
    """Whether ``home``'s ``state.db`` was written by an agent newer than 0.19.0."""
    from memory_core.history import HistoryUnavailable, open_history, state_db_path
    from memory_core.history.db import NEW_SCHEMA

    root = resolve_home(home)
    path = os.path.realpath(state_db_path(root))
    stamp = _stamp(path)
    with _lock:
        hit = _known.get(path)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    try:
        with open_history(root) as history:
            newer = history.caps.newer
    except HistoryUnavailable as exc:
        newer = exc.state == NEW_SCHEMA
    with _lock:
        _known[path] = (stamp, newer)
    return newer

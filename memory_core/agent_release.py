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
    from memory_core.history.schema import SCHEMA_VERSION
    from memory_core.safe_paths import leaving_link

    root = resolve_home(home)
    path = os.path.realpath(state_db_path(root))
    stamp = _stamp(path)
    with _lock:
        hit = _known.get(path)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    settled = stamp[0] is not None and stamp[1] is None and leaving_link(state_db_path(root), root) is None
    version = _settled_version(path) if settled else None
    if version is not None:
        newer = version > SCHEMA_VERSION
    else:
        try:
            with open_history(root) as history:
                newer = history.caps.newer
        except HistoryUnavailable as exc:
            newer = exc.state == NEW_SCHEMA
    with _lock:
        _known[path] = (stamp, newer)
    return newer


def _settled_version(path: str) -> int | None:
    """The schema version of a ``state.db`` with no ``-wal`` beside it (no writer since the last
    checkpoint: the main file holds everything), read as an immutable file so that this check,
    which runs on every config read, leaves no ``-wal``/``-shm`` of its own in the agent's home.
    None when it cannot tell; the caller then opens the history as every reader does."""
    import sqlite3
    from urllib.parse import quote

    if not os.path.isfile(path):
        return None
    try:
        conn = sqlite3.connect(f"file:{quote(path)}?mode=ro&immutable=1", uri=True, isolation_level=None)
    except sqlite3.Error:
        return None
    try:
        row = conn.execute("SELECT version FROM schema_version LIMIT 1").fetchone()
    except sqlite3.Error:
        return None
    finally:
        conn.close()
    return row[0] if row is not None and isinstance(row[0], int) else None

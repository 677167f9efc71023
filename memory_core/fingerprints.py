"""Fingerprints of files from ``stat`` alone: what tells a page "the files you show have changed".

Only what a writer changes goes in: the inode (a save by rename makes a new one), the size and the
modification time in nanoseconds. Never the ctime or the atime: a reader changes those too (the
panel's own read-only SQLite connection updates ``state.db-wal``'s ctime, and every read may update
an atime), and a fingerprint that moves on the panel's own reads makes every open page refresh
itself in a loop. SQLite's ``-shm`` file is never watched for the same reason: readers write to it.
See docs/memory_core.md ("Fingerprints").
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterable
from pathlib import Path

StatToken = tuple[int, int, int] | None


def stat_token(path: str | os.PathLike[str]) -> StatToken:
    """``(inode, size, mtime_ns)`` of ``path`` (following links), or None when it cannot be read."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return (info.st_ino, info.st_size, info.st_mtime_ns)


def _folder_tokens(path: Path) -> tuple[tuple[str, StatToken], ...]:
    """The files directly in a folder: a file edited in place leaves its folder's own stat alone."""
    try:
        entries = sorted(os.scandir(path), key=lambda entry: entry.name)
    except OSError:
        return ()
    tokens = []
    for entry in entries:
        try:
            if entry.is_file():
                tokens.append((entry.name, stat_token(entry.path)))
        except OSError:
            continue
    return tuple(tokens)


def fingerprint_of(paths: Iterable[str | os.PathLike[str]], *, with_folder_contents: bool = False) -> str:
    """A 16-hex-digit hash of the stat tokens of ``paths`` (in order); ``stat`` calls only, never a
    read, so it is cheap enough for an event loop. With ``with_folder_contents`` a folder among
    ``paths`` also counts the files directly inside it."""
    parts: list[object] = []
    for raw in paths:
        path = Path(raw)
        token = stat_token(path)
        if with_folder_contents and token is not None and path.is_dir():
            parts.append((str(path), token, _folder_tokens(path)))
        else:
            parts.append((str(path), token))
    return hashlib.blake2b(repr(parts).encode("utf-8", "backslashreplace"), digest_size=8).hexdigest()


def database_fingerprint(path: str | os.PathLike[str]) -> str:
    """A SQLite database in WAL mode: the database file and its write-ahead log, never the -shm
    file. A log that is missing and one that is empty count the same: a reader creates an empty log
    when it opens a database whose last writer removed it, and nothing a writer committed differs
    (when a checkpoint empties the log, the database file itself changes)."""
    database = Path(path)
    log = database.with_name(database.name + "-wal")
    log_token = stat_token(log)
    if log_token is not None and log_token[1] == 0:
        log_token = None
    parts = ((str(database), stat_token(database)), (str(log), log_token))
    return hashlib.blake2b(repr(parts).encode("utf-8", "backslashreplace"), digest_size=8).hexdigest()


LINK = "link"  # what ``path_state`` answers for a path that goes through a link


def path_state(path: str | os.PathLike[str], *, base: str | os.PathLike[str]) -> tuple[object, ...] | str:
    """Everything a confined read of ``path`` (a file lexically inside ``base``) depends on, from
    ``lstat`` alone: the base folder (followed: it may itself be a link) and then each step from
    it to the file, never following a link. ``LINK`` when a step is a link (where it leads could
    change without any of these stats changing: such a path is never answered from a cache). A
    missing step ends the state: creating it changes its folder's stat and this state.
    Includes the ctime beside the mtime, unlike ``stat_token``: an answer cache keyed on it must
    see even an edit in place that restored the mtime."""
    try:
        info = os.stat(base)
    except (OSError, ValueError):
        return ("absent-base", os.fspath(base))
    # Folders count by identity alone (an entry added beside the file changes their times, not
    # this path); the file itself by its inode, size, mtime and ctime.
    parts: list[object] = [(os.fspath(base), info.st_dev, info.st_ino)]
    root, absolute = os.path.abspath(base), os.path.abspath(path)
    prefix = root if root.endswith(os.sep) else root + os.sep  # the file system's root ends in one
    if not absolute.startswith(prefix):
        return LINK if absolute != root else tuple(parts)  # not below the base: never cached
    current = root
    steps = absolute[len(prefix):].split(os.sep)
    for index, step in enumerate(steps):
        current = os.path.join(current, step)
        try:
            info = os.lstat(current)
        except (OSError, ValueError):
            parts.append((step, None))
            break
        if stat.S_ISLNK(info.st_mode):
            return LINK
        if index < len(steps) - 1:
            parts.append((step, info.st_ino, info.st_mode))
        else:
            parts.append((step, info.st_ino, info.st_mode, info.st_size, info.st_mtime_ns, info.st_ctime_ns))
    return tuple(parts)


def newest_change_ns(state: tuple[object, ...]) -> int:
    """The file's mtime or ctime in a ``path_state``, whichever is later (0 for a missing file)."""
    last = state[-1] if state else None
    if isinstance(last, tuple) and len(last) == 6:
        return max(last[4], last[5])
    return 0

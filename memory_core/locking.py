"""The per-file writer lock shared with hermes-agent 0.19.0 (docs/agent_formats.md §Locking, D16).

An exclusive BSD ``flock`` on ``memories/<FILE>.lock``, held for the whole read-modify-write.
The lock file is opened without following symlinks, created 0600, and never written, truncated
or deleted: other writers may be waiting on that very inode.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memory_core import safe_paths

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]
    import msvcrt

_OPEN_FLAGS = os.O_RDWR | os.O_CREAT | os.O_APPEND


class LockOpenError(OSError):
    """The lock file could not be opened; ``reason`` is safe to show."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def lock_path_for(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


@contextmanager
def exclusive_lock(
    lock_path: Path, *, home: Path | None = None, blocking: bool = True, dir_fd: int | None = None
) -> Iterator[bool]:
    """Block until this process holds the writer lock of ``lock_path`` (``<home>/memories/<FILE>.lock``;
    opened without following any link, docs/safe_paths.md). With ``blocking=False`` it yields
    False at once when another process holds it. ``dir_fd``: the lock's folder, already opened
    by ``safe_paths.plain_folder`` (the lock is then opened by its name in it)."""
    try:
        if dir_fd is not None:
            fd = os.open(os.path.basename(lock_path), _OPEN_FLAGS | safe_paths.NOFOLLOW | safe_paths.CLOEXEC, 0o600,
                         dir_fd=dir_fd)
        else:
            home = Path(lock_path).absolute().parent.parent if home is None else Path(home)
            fd = safe_paths.open_in_home(lock_path, home, _OPEN_FLAGS, 0o600, follow_last=False)
    except OSError as exc:
        raise LockOpenError(exc.strerror or str(exc)) from exc
    try:
        try:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX if blocking else fcntl.LOCK_EX | fcntl.LOCK_NB)
            else:
                os.lseek(fd, 0, os.SEEK_SET)
                msvcrt.locking(fd, msvcrt.LK_LOCK if blocking else msvcrt.LK_NBLCK, 1)
        except (BlockingIOError, PermissionError):
            if blocking:
                raise
            yield False
            return
        try:
            yield True
        finally:
            try:
                if fcntl is not None:
                    fcntl.flock(fd, fcntl.LOCK_UN)
                else:
                    os.lseek(fd, 0, os.SEEK_SET)
                    msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
            except OSError:
                pass
    finally:
        os.close(fd)

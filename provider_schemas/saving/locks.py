"""Serialisation of the panel's writes per HERMES_HOME, across threads and processes.

Protocol: ``home_lock(home)`` is re-entrant within a thread. The outermost acquisition takes a
per-home ``threading.RLock`` (the web server runs several threads), then opens
``HERMES_HOME/panel/save.lock`` (``panel/`` created 0700, the file 0600) and takes an exclusive
``fcntl.flock`` on that descriptor, so a second panel process (another ``serve``, a ``manage.py``
command) waits; the outermost release unlocks and closes it. The lock guards the whole
read-modify-write of a save. ``config.yaml`` and ``.env`` themselves are never locked: the agent
does not lock them and must never be blocked by the panel.

Right after taking the lock, a save journal left by a killed panel process is completed
(``provider_schemas.saving.recovery``), so every holder sees finished saves only.

When the lock file cannot be created (read-only or missing home) the lock is the in-process one
only; a warning is logged once per home, and any write into such a home fails on its own.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import threading
from pathlib import Path
from types import TracebackType

from memory_core.safe_paths import check_inside
from provider_schemas.saving import journal, recovery

logger = logging.getLogger(__name__)

LOCK_NAME = "save.lock"
_OPEN_FLAGS = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)

_registry_lock = threading.Lock()
_home_locks: dict[str, HomeLock] = {}
_held = threading.local()  # per thread: stack of held homes (None: held without the lock file)


def lock_path(home: Path) -> Path:
    return journal.panel_dir(home) / LOCK_NAME


def _open_lock_file(path: Path) -> int:
    # A panel/ folder leading out of the home is not used (nor is a journal put there): the lock is
    # then this process's only, as for a read-only home (docs/safe_paths.md).
    check_inside(path.parent, path.parent.parent)
    try:
        return os.open(path, _OPEN_FLAGS, 0o600)
    except FileNotFoundError:
        with contextlib.suppress(FileExistsError):
            path.parent.mkdir(mode=0o700)
        return os.open(path, _OPEN_FLAGS, 0o600)


class HomeLock:
    """One home's lock: a thread RLock plus an flock held while the outermost ``with`` runs."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self._thread_lock = threading.RLock()
        self._depth = 0  # only touched by the thread holding _thread_lock
        self._fd: int | None = None
        self._warned = False
        self.recovery: journal.Recovery | None = None

    def acquire(self) -> None:
        self._thread_lock.acquire()
        if self._depth == 0:
            try:
                self._fd = self._lock_file()
                self.recovery = recovery.complete_pending(self.home) if self._fd is not None else None
            except BaseException:
                self._unlock_file()
                self._thread_lock.release()
                raise
        self._depth += 1
        stack = getattr(_held, "homes", None)
        if stack is None:
            stack = _held.homes = []
        # A journal needs the panel folder, which a lock without its file could not create.
        stack.append(self.home if self._fd is not None else None)

    def release(self) -> None:
        _held.homes.pop()
        self._depth -= 1
        if self._depth == 0:
            self._unlock_file()
        self._thread_lock.release()

    def _lock_file(self) -> int | None:
        path = lock_path(self.home)
        try:
            fd = _open_lock_file(path)
        except OSError as exc:
            if not self._warned:
                self._warned = True
                logger.warning(
                    "Cannot open the save lock %s (%s): saves are serialised inside this process only",
                    path,
                    exc.strerror or type(exc).__name__,
                )
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except BaseException:
            os.close(fd)
            raise
        return fd

    def _unlock_file(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            # Closing the only descriptor of this open file description releases the flock too;
            # unlocking first makes the release independent of descriptors leaked to children.
            with contextlib.suppress(OSError):
                fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def __enter__(self) -> HomeLock:
        self.acquire()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()


def home_lock(home: Path) -> HomeLock:
    """The lock of ``home`` (one object per real path); use as ``with home_lock(home): ...``."""
    key = os.path.realpath(home)
    with _registry_lock:
        lock = _home_locks.get(key)
        if lock is None:
            lock = HomeLock(Path(key))
            _home_locks[key] = lock
        return lock


def held_home() -> Path | None:
    """The home whose lock the calling thread acquired most recently, if that lock includes the
    cross-process file lock (None: holds none, or only the in-process part)."""
    stack = getattr(_held, "homes", None)
    return stack[-1] if stack else None


def recover(*, home: Path) -> journal.Recovery | None:
    """Complete a save a killed panel process left unfinished (called at ``serve`` start-up).

    Taking the lock does it; returns what was found (None: nothing to do)."""
    with home_lock(home) as lock:
        return lock.recovery

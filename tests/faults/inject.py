"""Inject an OS error into the N-th matching file operation of this process (ENOSPC, EACCES...).

Matching is by the path the operation touches, found through /proc/self/fd for descriptors, so
the panel's database and Python's own files are never hit."""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


def _fd_path(fd: int) -> str:
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return ""


@dataclass
class Fault:
    """Raise ``OSError(code)`` at the ``nth`` call (1-based) of ``operation`` under ``root``."""

    operation: str  # "write", "fsync" or "replace"
    root: Path
    nth: int
    code: int = errno.ENOSPC
    calls: list[str] = field(default_factory=list)
    fired: bool = False

    def install(self, monkeypatch: Any) -> Fault:
        original = getattr(os, self.operation)
        root = str(os.path.realpath(self.root))

        def path_of(args: tuple[Any, ...]) -> str:
            target = args[1] if self.operation == "replace" else args[0]
            return _fd_path(target) if isinstance(target, int) else os.path.realpath(target)

        def faulty(*args: Any, **kwargs: Any) -> Any:
            path = path_of(args)
            if path.startswith(root + os.sep):
                self.calls.append(path)
                if len(self.calls) == self.nth and not self.fired:
                    self.fired = True
                    raise OSError(self.code, os.strerror(self.code), path)
            return original(*args, **kwargs)

        monkeypatch.setattr(os, self.operation, faulty)
        return self


def leftovers(home: Path) -> list[str]:
    """Temporary files a failed write left behind."""
    return sorted(str(p.relative_to(home)) for p in home.rglob("*") if p.name.endswith(".tmp"))

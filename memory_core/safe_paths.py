"""Opening files of an agent home without following links out of it (docs/safe_paths.md).

The rule: a path the panel uses inside the home is resolved (every link in it followed, as the
agent would) and used only if where it leads is still inside the home. The resolved path is then
opened component by component from the home's own directory with ``O_NOFOLLOW``, so a link put in
place between the check and the open makes the open fail instead of leaving the home.

No Django, no import from the rest of memory_core: provider_schemas uses it too.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
NOFOLLOW, CLOEXEC = _NOFOLLOW, _CLOEXEC  # for the callers that open names in a plain_folder
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_WALKS = os.open in os.supports_dir_fd and bool(_NOFOLLOW) and bool(_DIRECTORY)

_LINK_TAIL = "is a link to a file outside the agent's home; the panel does not read or write through links"
LINK_PROBLEM = f"it {_LINK_TAIL}"


class LinkOutsideHome(OSError):
    """``name`` (relative to the home) leads out of the home through a link; nothing was opened."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.reason = f"{name} {_LINK_TAIL}"
        super().__init__(errno.ELOOP, self.reason)

    def __str__(self) -> str:
        return self.reason


def _real(path: str | os.PathLike[str]) -> str:
    return os.path.realpath(os.path.abspath(path))


def _inside(real: str, root: str) -> bool:
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


def display_name(path: str | os.PathLike[str], home: str | os.PathLike[str]) -> str:
    """``path`` as messages show it: relative to the home, else its last component (never absolute)."""
    absolute, base = os.path.abspath(path), os.path.abspath(home)
    if _inside(absolute, base):
        rel = os.path.relpath(absolute, base)
        return "." if rel == "." else Path(rel).as_posix()
    return os.path.basename(absolute) or "."


def leaving_link(path: str | os.PathLike[str], home: str | os.PathLike[str]) -> str | None:
    """The first component of ``path`` (relative to the home, e.g. ``memories`` or
    ``memories/MEMORY.md``) whose link leads out of the home, else None. A missing path is judged
    by its existing part; a dangling link counts by where it points."""
    root = _real(home)
    base = os.path.abspath(home)
    absolute = os.path.abspath(path)
    if not _inside(absolute, base):
        return None if _inside(_real(absolute), root) else display_name(absolute, home)
    current = base
    for part in Path(os.path.relpath(absolute, base)).parts:
        if part == ".":
            continue
        current = os.path.join(current, part)
        if os.path.islink(current) and not _inside(_real(current), root):
            return display_name(current, home)
    return None


def check_inside(path: str | os.PathLike[str], home: str | os.PathLike[str]) -> None:
    """Raise ``LinkOutsideHome`` when ``path`` leaves the home through a link."""
    name = leaving_link(path, home)
    if name is not None:
        raise LinkOutsideHome(name)


def _resolved_parts(path: str | os.PathLike[str], home: str | os.PathLike[str]) -> tuple[str, tuple[str, ...]]:
    check_inside(path, home)
    root = _real(home)
    real = _real(path)
    if not _inside(real, root):  # e.g. a path given outside the home's folder itself
        raise LinkOutsideHome(display_name(path, home))
    rel = os.path.relpath(real, root)
    return root, () if rel == "." else Path(rel).parts


def _walk(root: str, parts: tuple[str, ...], name: str) -> int:
    """A directory fd for ``root/parts...``, each step opened without following a link."""
    fd = os.open(root, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    try:
        for part in parts:
            try:
                step = os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR) and os.path.islink(os.path.join(root, *parts)):
                    raise LinkOutsideHome(name) from None
                raise
            os.close(fd)
            fd = step
    except BaseException:
        os.close(fd)
        raise
    return fd


@contextlib.contextmanager
def parent_dir(path: str | os.PathLike[str], home: str | os.PathLike[str]) -> Iterator[tuple[int | None, str]]:
    """``(dir_fd, name)`` of the real location of ``path`` inside the home; ``dir_fd`` is None
    where the platform cannot open relative to a directory (then ``name`` is the full real path).
    Raises ``LinkOutsideHome`` or the OSError of a missing folder."""
    root, parts = _resolved_parts(path, home)
    if not parts:
        raise IsADirectoryError(errno.EISDIR, "the home itself is not a file")
    if not _WALKS:
        yield None, os.path.join(root, *parts)
        return
    fd = _walk(root, parts[:-1], display_name(path, home))
    try:
        yield fd, parts[-1]
    finally:
        os.close(fd)


def plain_folder(home: str | os.PathLike[str], parts: tuple[str, ...]) -> int | None:
    """A directory fd for ``home/parts...`` when the home opens as a folder and no part below it
    is a link (each step opened with ``O_NOFOLLOW``); None when that is not so (a part is a link,
    missing, not a folder) or the platform cannot open relative to a folder. A caller given None
    takes the general path (``open_in_home`` and friends), which resolves links inside the home
    and refuses those leading out of it. A caller given an fd opens only plain names in it with
    ``O_NOFOLLOW``: nothing reached that way can be outside the home (docs/safe_paths.md)."""
    if not _WALKS:
        return None
    try:
        fd = os.open(home, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    except (OSError, ValueError):
        return None
    for part in parts:
        try:
            step = os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=fd)
        except (OSError, ValueError):
            os.close(fd)
            return None
        os.close(fd)
        fd = step
    return fd


def is_link_at(dir_fd: int, name: str) -> bool:
    """Whether ``name`` in the folder ``dir_fd`` is a link (or cannot be looked at, which the
    callers treat alike: they take the general path); a missing name is not a link."""
    try:
        return stat.S_ISLNK(os.lstat(name, dir_fd=dir_fd).st_mode)
    except FileNotFoundError:
        return False
    except OSError:
        return True


def open_in_home(
    path: str | os.PathLike[str], home: str | os.PathLike[str], flags: int, mode: int = 0o600, *,
    follow_last: bool = True,
) -> int:
    """``os.open`` of ``path`` that never follows a link out of the home (nor any link swapped in
    after the check). A final component that is a link inside the home is opened where it leads,
    unless ``follow_last`` is False (lock files: a link there is never followed, ``ELOOP``)."""
    if not follow_last:
        folder, last = os.path.split(os.path.abspath(path))
        check_inside(folder, home)
        root, parts = _resolved_parts(folder, home)
        if not _WALKS:
            return os.open(os.path.join(root, *parts, last), flags | _NOFOLLOW | _CLOEXEC, mode)
        fd = _walk(root, parts, display_name(folder, home))
        try:
            return os.open(last, flags | _NOFOLLOW | _CLOEXEC, mode, dir_fd=fd)
        finally:
            os.close(fd)
    with parent_dir(path, home) as (fd, name):
        try:
            return os.open(name, flags | _NOFOLLOW | _CLOEXEC, mode, dir_fd=fd)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise LinkOutsideHome(display_name(path, home)) from None
            raise


def read_bytes(path: str | os.PathLike[str], home: str | os.PathLike[str]) -> bytes:
    """The bytes of a regular file in the home, read without following a link out of it.
    (O_NONBLOCK: a FIFO put in its place must not hang the reader.)"""
    fd = open_in_home(path, home, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        info = os.fstat(fd)
        if not _is_regular(info.st_mode):
            if _is_dir(info.st_mode):
                raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
            raise OSError(errno.EINVAL, "not a regular file")
        chunks = []
        while True:
            chunk = os.read(fd, max(info.st_size, 65536))
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _is_regular(mode: int) -> bool:
    import stat

    return stat.S_ISREG(mode)


def _is_dir(mode: int) -> bool:
    import stat

    return stat.S_ISDIR(mode)


def make_dirs(directory: str | os.PathLike[str], home: str | os.PathLike[str], mode: int = 0o777) -> None:
    """``mkdir -p`` inside the home; refuses a folder that leads out of it through a link."""
    check_inside(directory, home)
    os.makedirs(directory, mode=mode, exist_ok=True)
    check_inside(directory, home)


# -- stale temp files of the panel's own writes ----------------------------------------------------


def remove_stale_temps(
    directory: str | os.PathLike[str],
    home: str | os.PathLike[str],
    *,
    matches,
    older_than: float,
) -> list[str]:
    """Delete files in ``directory`` (inside the home, reached without leaving it) whose name
    ``matches`` and that were last changed before ``older_than`` (seconds since the epoch).

    Only regular files, never through a link (each is looked at with ``lstat``); a file changed
    after ``older_than`` may belong to a save in flight and is kept. Returns the names removed."""
    removed: list[str] = []
    if leaving_link(directory, home) is not None:
        return removed
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    for entry in entries:
        if not matches(entry.name):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not _is_regular(info.st_mode) or info.st_mtime >= older_than:
            continue
        with contextlib.suppress(OSError):
            os.unlink(entry.path)
            removed.append(entry.name)
    return removed

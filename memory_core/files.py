"""Reading a store file without ever raising (D14), and the atomic write of docs/agent_formats.md §Locking."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from memory_core import safe_paths
from memory_core.entries import decode_store_bytes
from memory_core.messages import say


@dataclass(frozen=True)
class FileRead:
    """Outcome of reading a store file.

    ``text`` is the decoded text (LF line endings, leading BOM dropped), ``""`` for a missing
    file, ``None`` when the file exists but could not be read; ``error`` then says why.
    """

    exists: bool
    text: str | None
    error: str | None = None
    size: int = 0
    # The path leads out of the home through a link: nothing was read (docs/safe_paths.md).
    linked: bool = False

    @property
    def readable(self) -> bool:
        return self.error is None


def _os_reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def home_of(path: Path) -> Path:
    """The home of a store file or backup: ``<home>/memories/<name>``."""
    return Path(path).absolute().parent.parent


# O_NONBLOCK: a FIFO put in place of the file must not hang the reader.
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)


def read_store_file(path: Path, *, home: Path | None = None) -> FileRead:
    """Never follows a link out of ``home`` (default: the home ``path`` is in)."""
    home = home_of(path) if home is None else Path(home)
    try:
        fd = safe_paths.open_in_home(path, home, _READ_FLAGS)
    except safe_paths.LinkOutsideHome:
        return FileRead(exists=True, text=None, error=safe_paths.LINK_PROBLEM, linked=True)
    except FileNotFoundError:
        return FileRead(exists=False, text="")
    except OSError as exc:
        return FileRead(exists=True, text=None, error=_os_reason(exc))
    return _read_open(fd)


def read_store_file_at(dir_fd: int, name: str) -> FileRead | None:
    """``read_store_file`` of the plain file ``name`` in a folder opened by
    ``safe_paths.plain_folder``; None when ``name`` is a link (the caller then reads through
    ``read_store_file``, which follows a link inside the home and refuses one leading out)."""
    try:
        fd = os.open(name, _READ_FLAGS | safe_paths.NOFOLLOW | safe_paths.CLOEXEC, dir_fd=dir_fd)
    except FileNotFoundError:
        return FileRead(exists=False, text="")
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return None
        return FileRead(exists=True, text=None, error=_os_reason(exc))
    return _read_open(fd)


def _read_open(fd: int) -> FileRead:
    """Read and close ``fd``, opened on a store file."""
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            return FileRead(exists=True, text=None, error=os.strerror(errno.EISDIR))
        if not stat.S_ISREG(info.st_mode):
            return FileRead(exists=True, text=None, error="not a regular file")
        chunks = []
        while True:
            chunk = os.read(fd, max(info.st_size, 65536))
            if not chunk:
                break
            chunks.append(chunk)
        raw = b"".join(chunks)
    except OSError as exc:
        return FileRead(exists=True, text=None, error=_os_reason(exc))
    finally:
        os.close(fd)
    try:
        text = decode_store_bytes(raw)
    except UnicodeDecodeError as exc:
        return FileRead(exists=True, text=None, error=f"invalid UTF-8 at byte {exc.start}", size=len(raw))
    return FileRead(exists=True, text=text, size=len(raw))


TEMP_PREFIX = ".mem_"
TEMP_SUFFIX = ".tmp"
_TEMP_FLAGS = os.O_RDWR | os.O_CREAT | os.O_EXCL


def is_temp_name(name: str) -> bool:
    """The temp names ``atomic_write_text`` makes (``.mem_<8 hex>.tmp``)."""
    if len(name) != len(TEMP_PREFIX) + 8 + len(TEMP_SUFFIX):
        return False
    middle = name[len(TEMP_PREFIX) : -len(TEMP_SUFFIX)]
    return name.startswith(TEMP_PREFIX) and name.endswith(TEMP_SUFFIX) and all(c in "0123456789abcdef" for c in middle)


class StoreWriteError(RuntimeError):
    """A store file could not be written; the old file is left as it was.

    ``str()`` is docs/agent_formats.md §Locking's ``Failed to write memory file <path>: <error>``; ``reason`` says the
    same in
    words a person can be shown (names relative to the home, never an absolute path)."""

    def __init__(self, text: str, reason: str) -> None:
        super().__init__(text)
        self.reason = reason


def _make_temp(dir_fd: int | None, directory: str) -> tuple[int, str]:
    """``.mem_<8 random hex>.tmp``, created exclusively with mode 0600 (like ``mkstemp``, whose
    import alone costs more than a write)."""
    for _attempt in range(100):
        name = f"{TEMP_PREFIX}{os.urandom(4).hex()}{TEMP_SUFFIX}"
        full = name if dir_fd is not None else os.path.join(directory, name)
        try:
            return os.open(full, _TEMP_FLAGS | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0), 0o600,
                           dir_fd=dir_fd), full
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "No usable temporary file name found")


def write_failure_reason(exc: BaseException, *, folder: str, file_name: str) -> str:
    """What went wrong, in words, naming only ``folder``/``file_name`` (relative to the home)."""
    if isinstance(exc, safe_paths.LinkOutsideHome):
        return say("write_link", name=exc.name)
    number = getattr(exc, "errno", None)
    if number == errno.ENOSPC or number == getattr(errno, "EDQUOT", -1):
        return say("write_disk_full")
    if number == errno.EROFS:
        return say("write_read_only_fs", folder=folder)
    if number in (errno.EACCES, errno.EPERM):
        return say("write_read_only", folder=folder)
    detail = getattr(exc, "strerror", None) or type(exc).__name__
    return say("write_failed", file=file_name, problem=detail)


def atomic_write_text(path: Path, text: str, *, home: Path | None = None) -> None:
    """Replace ``path`` with ``text`` (UTF-8) so readers see the old or the new file, never a mix.

    Temp file ``.mem_*.tmp`` (0600) in the file's real folder, fsync, rename over the real file: a
    link inside the home is kept and its target replaced (as the agent does); a path leading out of
    the home through a link is refused and nothing is written (docs/safe_paths.md). Raises
    ``StoreWriteError`` (a RuntimeError) on failure, leaving the old file in place and no temp
    file behind.
    """
    home = home_of(path) if home is None else Path(home)
    folder = safe_paths.display_name(Path(path).parent, home) + "/"
    try:
        data = text.encode("utf-8")
        safe_paths.make_dirs(Path(path).parent, home)
        with safe_paths.parent_dir(path, home) as (dir_fd, name):
            _write_in(dir_fd, name, data)
    except Exception as exc:
        reason = write_failure_reason(exc, folder=folder, file_name=Path(path).name)
        raise StoreWriteError(f"Failed to write memory file {path}: {exc}", reason) from exc


def atomic_write_at(dir_fd: int, name: str, text: str, *, path: Path, home: Path) -> None:
    """``atomic_write_text`` of ``path`` (``home/memories/<name>``) in its folder already opened
    by ``safe_paths.plain_folder``: no path is resolved again. A ``name`` that is a link by now
    is written through ``atomic_write_text`` (which follows a link inside the home and refuses
    one leading out)."""
    if safe_paths.is_link_at(dir_fd, name):
        atomic_write_text(path, text, home=home)
        return
    try:
        _write_in(dir_fd, name, text.encode("utf-8"))
    except Exception as exc:
        folder = safe_paths.display_name(Path(path).parent, home) + "/"
        reason = write_failure_reason(exc, folder=folder, file_name=Path(path).name)
        raise StoreWriteError(f"Failed to write memory file {path}: {exc}", reason) from exc


def _write_in(dir_fd: int | None, name: str, data: bytes) -> None:
    """Temp beside ``name`` (in the folder ``dir_fd``), fsync, rename over it; no temp left on failure."""
    fd, temp_name = _make_temp(dir_fd, os.path.dirname(name))
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.replace(temp_name, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except OSError as exc:
            if exc.errno not in (errno.EXDEV, errno.EBUSY):
                raise
            _copy_into_place(dir_fd, temp_name, name, data)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp_name, dir_fd=dir_fd)
        raise
    if dir_fd is not None:
        with contextlib.suppress(OSError):
            os.fsync(dir_fd)


def _copy_into_place(dir_fd: int | None, temp_name: str, name: str, data: bytes) -> None:
    """Fallback when rename cannot work (bind-mounted file): the bytes written in place."""
    fd = os.open(name, os.O_WRONLY | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0),
                 dir_fd=dir_fd)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        with contextlib.suppress(OSError):
            os.fchmod(fd, 0o600)
            os.fsync(fd)
    finally:
        os.close(fd)
    os.unlink(temp_name, dir_fd=dir_fd)

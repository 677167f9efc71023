"""Reading a store file without ever raising (D14), and the atomic write of §10."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from memory_core.entries import decode_store_bytes


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

    @property
    def readable(self) -> bool:
        return self.error is None


def _os_reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def read_store_file(path: Path) -> FileRead:
    # O_NONBLOCK: a FIFO put in place of the file must not hang the reader.
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return FileRead(exists=False, text="")
    except OSError as exc:
        return FileRead(exists=True, text=None, error=_os_reason(exc))
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


_TEMP_FLAGS = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def _make_temp(directory: Path) -> tuple[int, str]:
    """``.mem_<8 random chars>.tmp``, created exclusively with mode 0600 (like ``mkstemp``, whose
    import alone costs more than a write)."""
    for _attempt in range(100):
        suffix = os.urandom(4).hex()
        name = os.path.join(directory, f".mem_{suffix}.tmp")
        try:
            return os.open(name, _TEMP_FLAGS, 0o600), name
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "No usable temporary file name found", str(directory))


def atomic_write_text(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` (UTF-8) so readers see the old or the new file, never a mix.

    Temp file ``.mem_*.tmp`` (0600) beside the file, fsync, ``os.replace``. A symlinked file is
    replaced at its real path so the link survives. Raises RuntimeError on failure, leaving the
    old file in place and no temp file behind.
    """
    temp_name: str | None = None
    try:
        data = text.encode("utf-8")
        directory = path.parent
        directory.mkdir(parents=True, exist_ok=True)
        destination = Path(os.path.realpath(path)) if path.is_symlink() else path
        fd, temp_name = _make_temp(directory)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.replace(temp_name, destination)
        except OSError as exc:
            if exc.errno not in (errno.EXDEV, errno.EBUSY):
                raise
            _copy_into_place(temp_name, destination)
    except Exception as exc:
        if temp_name is not None:
            with contextlib.suppress(OSError):
                os.unlink(temp_name)
        raise RuntimeError(f"Failed to write memory file {path}: {exc}") from exc


def _copy_into_place(temp_name: str, destination: Path) -> None:
    """Fallback when rename cannot work (target on another filesystem, bind-mounted file)."""
    import shutil

    shutil.copyfile(temp_name, destination)
    shutil.copystat(temp_name, destination)
    with contextlib.suppress(OSError), open(destination, "rb+") as handle:
        os.fsync(handle.fileno())
    os.unlink(temp_name)

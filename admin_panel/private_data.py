"""The panel's own data folder is readable by its owner only: the folder 0700, every file in it 0600.

The folder holds the secret key and the database, whose session, token and audit tables are worth
protecting; docs/security.md says why each rule exists. Plain ``os`` calls only: this runs before
Django has connected to the database (from settings, the database engine and a system check).

SQLite creates the database's ``-wal``, ``-shm`` and ``-journal`` files with the main file's mode,
whatever the umask, so the main file is created 0600 before SQLite ever opens it.
"""

from __future__ import annotations

import logging
import os
import stat
import threading
from pathlib import Path

logger = logging.getLogger("admin_panel.data")

DIR_MODE = 0o700
FILE_MODE = 0o600
JOURNAL_SUFFIXES = ("-wal", "-shm", "-journal")

_prepared: set[str] = set()
_lock = threading.Lock()


class DataFolderRefused(Exception):
    """The data folder is open to other users and this process cannot make it private."""


def _mode(st: os.stat_result) -> str:
    return f"{stat.S_IMODE(st.st_mode):04o}"


def _refuse(what: str, st: os.stat_result, why: str) -> DataFolderRefused:
    return DataFolderRefused(
        f"{what} can be read by other users (mode {_mode(st)}) and {why}. Run the panel as the user who "
        f"owns it, or make it private yourself (chmod {DIR_MODE if stat.S_ISDIR(st.st_mode) else FILE_MODE:o}), "
        "or choose another folder with PANEL_DATA_DIR."
    )


def create_private_folder(path: Path) -> bool:
    """Create the folder 0700 (whatever the umask) unless it exists; True when this call made it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        path.mkdir(mode=DIR_MODE)
    except FileExistsError:
        return False
    os.chmod(path, DIR_MODE)  # mkdir's mode passes through the umask; the folder must stay usable
    return True


def _chmod(path: Path, mode: int, what: str, st: os.stat_result) -> None:
    try:
        os.chmod(path, mode)
        kept = not os.stat(path).st_mode & 0o077
    except OSError as exc:
        raise _refuse(what, st, f"could not be changed ({exc.strerror})") from exc
    if not kept:  # a file system without Unix modes (some network and FAT mounts) ignores chmod
        raise _refuse(what, st, "its file system did not keep the change")


def make_folder_private(path: Path) -> str | None:
    """Create the folder 0700, or make an existing one that others can open 0700 if this process owns
    it; what was repaired, in words, or None. Raises DataFolderRefused when it cannot be made private."""
    if create_private_folder(path):
        return None
    st = os.stat(path)
    what = f"The panel data folder {path}"
    if not stat.S_ISDIR(st.st_mode):
        raise DataFolderRefused(f"{what} is not a folder. Choose a folder with PANEL_DATA_DIR.")
    if not st.st_mode & 0o077:
        return None
    if st.st_uid != os.geteuid():
        raise _refuse(what, st, "belongs to another user, so the panel cannot make it private")
    if st.st_mode & stat.S_ISVTX:
        # A sticky folder (like /tmp) is shared by design: closing it would break other programs.
        raise _refuse(what, st, "is a shared folder (sticky bit set), which the panel will not close")
    _chmod(path, DIR_MODE, what, st)
    return f"the panel data folder was open to other users (mode {_mode(st)}); it is now {DIR_MODE:04o}"


def make_file_private(path: Path) -> str | None:
    """Make an existing file of the data folder 0600 if others can read it; what was repaired, or None."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    if not st.st_mode & 0o077:
        return None
    what = f"The panel's file {path.name}"
    if st.st_uid != os.geteuid():
        raise _refuse(what, st, "belongs to another user, so the panel cannot make it private")
    _chmod(path, FILE_MODE, what, st)
    return f"{path.name} was readable by other users (mode {_mode(st)}); it is now {FILE_MODE:04o}"


def create_private_file(path: Path) -> bool:
    """Create an empty file 0600 (whatever the umask) unless it exists; True when this call made it."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, FILE_MODE)
    except FileExistsError:
        return False
    try:
        os.fchmod(fd, FILE_MODE)  # a umask such as 0277 would otherwise leave it unwritable
    finally:
        os.close(fd)
    return True


def is_file_database(name: object) -> bool:
    """False for SQLite's in-memory databases (the test database) and URIs, which have no file to guard."""
    text = os.fspath(name) if isinstance(name, (str, os.PathLike)) else ""
    return bool(text) and text != ":memory:" and not text.startswith("file:")


def make_panel_data_private(*, database: Path, secret_key: Path | None = None, create: bool = True) -> list[str]:
    """Before the database is first opened in this process: its folder private, the database file
    created 0600 (so SQLite's journals are 0600 too; not with ``create=False``, the start-up check,
    which must not leave a database where a command never opens one), any existing file of it or
    the secret key tightened. The repairs made, each also logged as a warning. Done once per
    process and database (after the creating call)."""
    key = os.fspath(database)
    with _lock:
        if key in _prepared:
            return []
        repairs = [make_folder_private(database.parent)]
        if create:
            create_private_file(database)
        for path in (database, *(Path(f"{database}{suffix}") for suffix in JOURNAL_SUFFIXES), secret_key):
            if path is not None:
                repairs.append(make_file_private(path))
        done = [repair for repair in repairs if repair]
        for repair in done:
            logger.warning("Made the panel's data private: %s.", repair)
        if create:
            _prepared.add(key)
        return done

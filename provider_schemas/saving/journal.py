"""Intent journal that makes a multi-file save crash-atomic by rolling forward (docs/agent_formats.md §Provider
storage).

Protocol, always followed under the home lock (``provider_schemas.saving.locks``):

1. every new content is written to a temp file beside its target, named
   ``.<target name>.memory-panel.<random>.tmp``, and fsynced;
2. ``HERMES_HOME/panel/save-journal.json`` is created and fsynced (with its directory). It lists,
   per file, the temp path, the target path and the sha256 of the new bytes and of the bytes being
   replaced, plus the *names* of keyring entries the save changes. It never holds file content or
   secret values;
3. the temps are renamed over their targets, keyring operations run, the journal is removed.

A process killed during step 3 leaves the journal behind. The next holder of the home lock
completes it (``saving.recovery.complete_pending``): every target that does not hold its new
bytes yet gets its temp renamed over it. Only when every such target still holds exactly the bytes the save replaced
and its temp still holds the new bytes; otherwise (someone else wrote the file meanwhile, a temp is
gone) nothing is touched, the journal is kept as ``save-journal.failed-<ts>.json`` and a warning is
logged. Keyring operations cannot be replayed (values are never journalled); a journal that lists
keyring entries produces a warning naming them.

A journal with a ``move`` section belongs to a move of secrets between ``.env`` and the keyring;
``provider_schemas.saving.recovery.finish_interrupted_move`` finishes it instead, taking the values
from the store that still holds them.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import tempfile
import threading
import time
from collections.abc import Collection
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

logger = logging.getLogger(__name__)

PANEL_DIR = "panel"
JOURNAL_NAME = "save-journal.json"
FAILED_PREFIX = "save-journal.failed-"
TEMP_MARK = ".memory-panel."
TEMP_SUFFIX = ".tmp"
_VERSION = 1
_JOURNAL_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


@dataclass(frozen=True)
class JournalEntry:
    temp: Path
    target: Path
    new_sha256: str
    old_sha256: str | None  # None: the target did not exist


@dataclass
class Recovery:
    """What ``recovery.complete_pending`` found and did."""

    completed: bool
    renamed: list[Path] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    keyring_names: list[str] = field(default_factory=list)
    failed_copy: Path | None = None


# -- names ----------------------------------------------------------------------------------------


def panel_dir(home: Path) -> Path:
    return Path(home) / PANEL_DIR


def journal_path(home: Path) -> Path:
    return panel_dir(home) / JOURNAL_NAME


def temp_prefix(target: Path) -> str:
    return f".{target.name}{TEMP_MARK}"


def is_our_temp(name: str, target: Path | None = None) -> bool:
    """True for ``.<name>.memory-panel.<random>.tmp`` (mkstemp's random part), for ``target``'s name
    or, without ``target``, for any name. Nobody else uses the ``.memory-panel.`` mark."""
    base = re.escape(target.name) if target is not None else r".+"
    pattern = r"\." + base + re.escape(TEMP_MARK) + r"[A-Za-z0-9_]+" + re.escape(TEMP_SUFFIX)
    return re.fullmatch(pattern, name) is not None


def sha256(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def file_sha256(path: Path) -> str | None:
    try:
        return sha256(path.read_bytes())
    except FileNotFoundError:
        return None


# -- small file helpers ---------------------------------------------------------------------------


def fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


# Syncs that no order is needed between run at the same time: a journaling file system (ext4,
# xfs) then writes them in one commit of its journal instead of one commit each, several times
# cheaper than syncing one after the other (fsync releases the GIL). docs/performance.md §PUT: the
# same durability, paid once.
_sync_pool: ThreadPoolExecutor | None = None
_sync_pool_lock = threading.Lock()


def _pool() -> ThreadPoolExecutor:
    global _sync_pool
    with _sync_pool_lock:
        if _sync_pool is None:
            _sync_pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="panel-fsync")
        return _sync_pool


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def sync_together(*, files: Collection[Path] = (), dirs: Collection[Path] = ()) -> None:
    """fsync every file (an error is raised once all are done) and every folder (errors ignored,
    as ``fsync_dir``), all at once; returns when every one is on disk."""
    calls = [(_fsync_file, path) for path in dict.fromkeys(files)]
    calls += [(fsync_dir, path) for path in dict.fromkeys(dirs)]
    if len(calls) <= 1:
        for call, path in calls:
            call(path)
        return
    futures = [_pool().submit(call, path) for call, path in calls[1:]]
    errors: list[BaseException | None] = []
    call, path = calls[0]
    try:  # the first here: one hand-over to the pool fewer
        call(path)
        errors.append(None)
    except Exception as exc:
        errors.append(exc)
    errors += [future.exception() for future in futures]  # waits for every one
    for error in errors:
        if error is not None:
            raise error


def write_temp(target: Path, data: bytes, mode: int, *, sync: bool = True) -> Path:
    """A temp beside ``target`` holding ``data`` with ``mode``, fsynced unless ``sync`` is False
    (the caller syncs it, with others: ``sync_together``); removed again on failure."""
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=temp_prefix(target), suffix=TEMP_SUFFIX)
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), mode)
            handle.write(data)
            handle.flush()
            if sync:
                os.fsync(handle.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return Path(tmp)


def protected_temps(home: Path) -> set[Path]:
    """Temps named by a live or failed journal: evidence to keep, never "stale"."""
    directory = panel_dir(home)
    keep: set[Path] = set()
    try:
        names = [n for n in os.listdir(directory) if n == JOURNAL_NAME or n.startswith(FAILED_PREFIX)]
    except OSError:
        return keep
    for name in names:
        with contextlib.suppress(OSError, ValueError):
            entries, _names = parse_journal((directory / name).read_bytes())
            keep.update(e.temp for e in entries)
    return keep


def remove_stale_temps(directory: Path, *, keep: Collection[Path] = ()) -> list[Path]:
    """Delete our own leftover temps in ``directory`` (callers hold the home lock, so no save of ours
    has one in flight). Other programs' temps never match the pattern and are left alone."""
    removed: list[Path] = []
    try:
        names = [n for n in os.listdir(directory) if TEMP_MARK in n and is_our_temp(n)]
    except OSError:
        return removed
    for name in names:
        path = directory / name
        if path not in keep:
            with contextlib.suppress(OSError):
                os.unlink(path)
                removed.append(path)
    return removed


# -- the journal ----------------------------------------------------------------------------------


def parse_journal(raw: bytes) -> tuple[list[JournalEntry], list[str]]:
    doc = json.loads(raw.decode("utf-8"))
    if not isinstance(doc, dict) or doc.get("version") != _VERSION or not isinstance(doc.get("files"), list):
        raise ValueError("not a save journal")
    entries = []
    for item in doc["files"]:
        if not isinstance(item, dict):
            raise ValueError("bad journal entry")
        temp, target, new, old = item.get("temp"), item.get("target"), item.get("new_sha256"), item.get("old_sha256")
        if not (isinstance(temp, str) and isinstance(target, str) and isinstance(new, str)):
            raise ValueError("bad journal entry")
        if old is not None and not isinstance(old, str):
            raise ValueError("bad journal entry")
        entries.append(JournalEntry(Path(temp), Path(target), new, old))
    names = doc.get("keyring", [])
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ValueError("bad keyring list")
    return entries, names


def move_section(raw: bytes) -> dict | None:
    move = json.loads(raw.decode("utf-8")).get("move")
    return move if isinstance(move, dict) else None


def write_journal(
    home: Path, entries: list[JournalEntry], keyring_names: list[str], *, move: dict[str, object] | None = None
) -> Path:
    """Write and fsync the intent journal; refuses to overwrite a live one.

    Created in place (O_EXCL) rather than through a temp: the renames only start once it is
    complete and fsynced, so a journal cut short by a kill belongs to a save that changed nothing.
    On failure nothing is left behind."""
    path = journal_path(home)
    with contextlib.suppress(FileExistsError):
        path.parent.mkdir(mode=0o700)
    doc = {
        "version": _VERSION,
        "pid": os.getpid(),
        "created_at": time.time(),
        "files": [
            {"temp": str(e.temp), "target": str(e.target), "new_sha256": e.new_sha256, "old_sha256": e.old_sha256}
            for e in entries
        ],
        "keyring": list(keyring_names),
    }
    if move is not None:
        doc["move"] = move  # a move of secrets: its own roll-forward (provider_schemas.saving.secret_moves)
    data = json.dumps(doc, indent=1).encode("utf-8")
    fd = os.open(path, _JOURNAL_FLAGS, 0o600)  # FileExistsError: a live journal is never replaced
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.close(fd)
        fd = -1
        # Its bytes and its name in the folder: both on disk before the first rename, in either order.
        sync_together(files=[path], dirs=[path.parent])
    except BaseException:
        if fd >= 0:
            os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(path)
        raise
    return path


def remove_journal(home: Path) -> None:
    # No directory fsync: a journal that outlives a crash after this point finds every file at its
    # new bytes (nothing to do) or, after a rollback, the temps gone (set aside, files untouched).
    with contextlib.suppress(FileNotFoundError):
        os.unlink(journal_path(home))


def set_aside(path: Path) -> Path | None:
    """Keep the journal as ``save-journal.failed-<UTC time>.json`` for a human to inspect."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    for n in range(1000):
        candidate = path.parent / f"{FAILED_PREFIX}{stamp}{'' if n == 0 else f'-{n}'}.json"
        if candidate.exists():
            continue
        try:
            os.rename(path, candidate)
        except OSError:
            return None
        fsync_dir(path.parent)
        return candidate
    return None

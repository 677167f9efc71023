"""All-or-nothing commit of file writes and keyring operations (docs/agent_formats.md §Provider storage).

1. every new file content is written to a temporary file beside its target; all are fsynced together;
2. each file's current bytes are checked against what the plan was computed from;
3. the temporaries are renamed over their targets one by one, their folders fsynced together, then
   keyring operations run;
4. on any failure the replaced files are restored from their old bytes (or removed when they did
   not exist), keyring entries are put back, leftover temporaries and created directories are
   removed, and ``SaveFailed`` is raised.

A process killed in step 3 cannot roll back; a save touching several files (or files and keyring
entries) is therefore made crash-atomic by rolling *forward*: an intent journal is written before the
first rename and removed after the last operation (``provider_schemas.saving.journal``), and the next holder
of the home lock completes it. Temps are named ``.<target>.memory-panel.<random>.tmp``; our stale ones
in each target's folder are removed before writing (callers hold the home lock, so none is in flight).
"""

from __future__ import annotations

import contextlib
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

from provider_schemas.errors import ConflictError, SaveFailed, SecretStoreUnavailable
from provider_schemas.saving import journal
from provider_schemas.saving.journal import write_temp as _write_temp
from provider_schemas.saving.locks import held_home
from provider_schemas.secret_stores.keyring_store import KeyringStore

logger = logging.getLogger(__name__)


@dataclass
class FileWrite:
    """``target`` is the real file (symlinks resolved); ``old`` its bytes when planned (None: absent)."""

    target: Path
    label: str
    new: bytes
    old: bytes | None
    mode: int
    old_mode: int | None = None  # restored on rollback


@dataclass
class KeyringOp:
    name: str
    value: str | None = field(repr=False)  # None deletes


def _current_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _make_parents(target: Path, created: list[Path]) -> None:
    missing: list[Path] = []
    parent = target.parent
    while not parent.exists():
        missing.append(parent)
        parent = parent.parent
    for directory in reversed(missing):
        directory.mkdir(mode=0o700)
        created.append(directory)


def commit(
    writes: list[FileWrite],
    keyring_ops: list[KeyringOp],
    keyring: KeyringStore | None,
    *,
    home: Path | None = None,
    move: dict[str, object] | None = None,
) -> None:
    """Apply everything or nothing. Raises ``ConflictError`` (a file changed since it was read;
    nothing written), ``SecretStoreUnavailable`` (keyring failed; rolled back) or ``SaveFailed``.

    Call it under ``home_lock(home)``; ``home`` defaults to the home whose lock this thread holds
    and is where the intent journal of a multi-file commit goes.

    ``move`` (``{"to": store, "names": [...]}``, ``provider_schemas.saving.secret_moves``) journals the
    commit as a move of secrets and orders it so each value is always in one store at least: keyring
    entries are set *before* the files are renamed when moving to the keyring."""
    for w in writes:
        if _current_bytes(w.target) != w.old:
            raise ConflictError([f"{w.label} changed while saving"])
    if keyring_ops and keyring is not None:
        keyring.require_usable()  # a keyring locked since planning: refuse before any write
    journal_home = home if home is not None else held_home()
    if journal_home is None and len(writes) > 1:
        logger.warning("A multi-file save ran without the home's lock file: no journal protects it from a crash")
    needs_journal = journal_home is not None and (len(writes) > 1 or bool(writes and keyring_ops))
    keyring_first = move is not None and move.get("to") == "keyring"
    keep = journal.protected_temps(journal_home) if journal_home is not None else set()
    for directory in dict.fromkeys(w.target.parent for w in writes):
        journal.remove_stale_temps(directory, keep=keep)
    created_dirs: list[Path] = []
    temps: dict[Path, Path] = {}
    replaced: list[FileWrite] = []
    keyring_done: list[tuple[str, str | None]] = []
    journalled = False
    try:
        for w in writes:
            _make_parents(w.target, created_dirs)
            temps[w.target] = _write_temp(w.target, w.new, w.mode, sync=False)
        journal.sync_together(files=list(temps.values()))  # every temp on disk before the journal names it
        if needs_journal:
            assert journal_home is not None
            entries = [
                journal.JournalEntry(temps[w.target], w.target, journal.sha256(w.new) or "", journal.sha256(w.old))
                for w in writes
            ]
            # write_journal leaves nothing behind when it fails (and never replaces a live journal).
            journal.write_journal(journal_home, entries, [op.name for op in keyring_ops], move=move)
            journalled = True
        if keyring_first:
            _apply_keyring(keyring_ops, keyring, keyring_done)
        for w in writes:
            os.replace(temps[w.target], w.target)
            del temps[w.target]
            replaced.append(w)
        # The renames in any order (the journal rolls a crash forward), their folders synced together.
        journal.sync_together(dirs=[w.target.parent for w in writes])
        if not keyring_first:
            _apply_keyring(keyring_ops, keyring, keyring_done)
        if journalled:
            assert journal_home is not None
            journal.remove_journal(journal_home)
    except BaseException as exc:
        if journalled:
            # Drop the intent before undoing it, so nobody rolls this save forward again.
            assert journal_home is not None
            with contextlib.suppress(OSError):
                journal.remove_journal(journal_home)
        problems = _rollback(replaced, keyring_done, keyring, temps, created_dirs)
        if isinstance(exc, SecretStoreUnavailable) and not problems:
            raise
        detail = f"{type(exc).__name__} while saving; every change was rolled back"
        if problems:
            detail = f"{type(exc).__name__} while saving; rollback incomplete: " + "; ".join(problems)
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        raise SaveFailed(detail, rolled_back=not problems) from exc


def _apply_keyring(
    keyring_ops: list[KeyringOp], keyring: KeyringStore | None, done: list[tuple[str, str | None]]
) -> None:
    """Run the keyring operations, recording each entry's previous value for a rollback."""
    if not keyring_ops:
        return
    assert keyring is not None
    for op in keyring_ops:
        previous = keyring.get(op.name)
        if op.value is None:
            keyring.delete(op.name)
        else:
            keyring.set(op.name, op.value)
        done.append((op.name, previous))


def _rollback(
    replaced: list[FileWrite],
    keyring_done: list[tuple[str, str | None]],
    keyring: KeyringStore | None,
    temps: dict[Path, Path],
    created_dirs: list[Path],
) -> list[str]:
    problems: list[str] = []
    for name, previous in reversed(keyring_done):
        try:
            assert keyring is not None
            if previous is None:
                keyring.delete(name)
            else:
                keyring.set(name, previous)
        except Exception:
            problems.append(f"keyring entry {name}")
    for w in reversed(replaced):
        try:
            if w.old is None:
                os.unlink(w.target)
            else:
                tmp = _write_temp(w.target, w.old, w.old_mode if w.old_mode is not None else w.mode)
                os.replace(tmp, w.target)
        except Exception:
            problems.append(w.label)
    for tmp in temps.values():
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    for directory in reversed(created_dirs):
        with contextlib.suppress(OSError):
            directory.rmdir()
    return problems

"""The write-approval queue in 0.19.0's on-disk layout (docs/agent_formats.md §Pending queue, §Pending queue, D17).

Records live in ``<home>/pending/memory/<id>.json``. Ids are checked against ``[0-9a-f]{8}``
before they are ever used in a path, so a crafted id cannot reach a file outside the queue.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memory_core import messages as msg
from memory_core import safe_paths
from memory_core.agent_release import newer_agent_home
from memory_core.home import resolve_home
from memory_core.store import MemoryStore

logger = logging.getLogger("memory_core.pending")

SUBSYSTEM = "memory"
ID_PATTERN = re.compile(r"[0-9a-f]{8}")
STAGED_MESSAGE = "Staged for approval (memory.write_approval is on). Not yet saved — review with /memory pending."
BACKGROUND_ORIGIN = "background_review"
OPERATIONS_NOT_A_LIST = "operations must be a list of {action, content?, old_text?} objects."


class InvalidPendingId(ValueError):
    def __init__(self, pending_id: object) -> None:
        super().__init__(invalid_id_message(pending_id))


def invalid_id_message(pending_id: object) -> str:
    return f"Invalid pending id '{pending_id}'. Ids are 8 lower-case hex characters."


def unknown_id_message(pending_id: str) -> str:
    return f"No pending memory write with id '{pending_id}'."


def is_valid_id(pending_id: object) -> bool:
    return isinstance(pending_id, str) and ID_PATTERN.fullmatch(pending_id) is not None


def pending_dir(home: str | os.PathLike[str] | None) -> Path:
    return resolve_home(home) / "pending" / SUBSYSTEM


def _record_path(home: str | os.PathLike[str] | None, pending_id: str) -> Path:
    if not is_valid_id(pending_id):
        raise InvalidPendingId(pending_id)
    return pending_dir(home) / f"{pending_id}.json"


def stage(
    home: str | os.PathLike[str] | None,
    *,
    payload: dict[str, Any],
    summary: str,
    origin: str = "foreground",
    clock: Any = time.time,
    swallow_errors: bool = False,
) -> dict[str, Any]:
    """Write one pending record and return it.

    Raises OSError if it cannot be written, unless ``swallow_errors`` (the agent's gate: it logs
    the error and still answers with the id).
    """
    pending_id = uuid.uuid4().hex[:8]
    record = {
        "id": pending_id,
        "subsystem": SUBSYSTEM,
        "action": payload.get("action"),
        "summary": summary,
        "origin": origin or "foreground",
        "created_at": clock(),
        "payload": payload,
    }
    try:
        _write_record(pending_dir(home), record)
    except OSError as exc:
        if not swallow_errors:
            raise
        logger.warning("Could not stage memory write %s: %s", pending_id, exc.strerror or exc.__class__.__name__)
    return record


def _write_record(directory: Path, record: dict[str, Any]) -> None:
    pending_id = record["id"]
    home = directory.absolute().parent.parent  # <home>/pending/memory
    safe_paths.make_dirs(directory, home)
    final = directory / f"{pending_id}.json"
    temp = directory / f"{pending_id}.json.tmp"
    data = json.dumps(record, indent=2, ensure_ascii=False).encode("utf-8")
    # Pending records hold memory text: private to the owner, like the store files.
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = safe_paths.open_in_home(temp, home, flags, 0o600, follow_last=False)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, final)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def _created_at(record: dict[str, Any]) -> float:
    value = record.get("created_at", 0)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0.0
    return float(value)


@dataclass(frozen=True)
class UnreadableRecord:
    """A file in the queue that is not a record the panel can read. It is shown, never deleted:
    a newer agent may understand it, and the user decides."""

    name: str  # the file name inside the queue (no directory)
    reason: str  # one of the constants below


NOT_JSON = "not_json"  # unreadable, not UTF-8, or not JSON
NOT_OBJECT = "not_object"  # JSON, but not an object
ID_MISMATCH = "id_mismatch"  # its ``id`` is missing, malformed, or not its file name


def _scan(home: str | os.PathLike[str] | None) -> tuple[list[dict[str, Any]], list[UnreadableRecord]]:
    directory = pending_dir(home)
    if safe_paths.leaving_link(directory, resolve_home(home)) is not None:
        return []
    try:
        names = sorted(entry.name for entry in os.scandir(directory) if entry.name.endswith(".json"))
    except OSError:
        return [], []
    records, unreadable = [], []
    for name in names:
        path = directory / name
        stem = name[: -len(".json")]
        try:
            record = json.loads(safe_paths.read_bytes(path, resolve_home(home)).decode("utf-8"))
        except (OSError, ValueError, RecursionError):
            logger.warning("Skipping unreadable pending record: %s", path)
            unreadable.append(UnreadableRecord(name=name, reason=NOT_JSON))
            continue
        if not isinstance(record, dict):
            logger.warning("Skipping unreadable pending record: %s", path)
            unreadable.append(UnreadableRecord(name=name, reason=NOT_OBJECT))
            continue
        if not is_valid_id(stem) or record.get("id") != stem:
            logger.warning("Skipping unreadable pending record: %s", path)
            unreadable.append(UnreadableRecord(name=name, reason=ID_MISMATCH))
            continue
        records.append(record)
    records.sort(key=_created_at)
    return records, unreadable


def list_pending(home: str | os.PathLike[str] | None) -> list[dict[str, Any]]:
    """Readable records, oldest first. Unreadable files, and files whose name is not a valid id
    equal to the record's ``id``, are skipped (logged); see :func:`unreadable_pending`."""
    return _scan(home)[0]


def unreadable_pending(home: str | os.PathLike[str] | None) -> list[UnreadableRecord]:
    """The queue's files that :func:`list_pending` skips, by file name."""
    return _scan(home)[1]


def scan_pending(home: str | os.PathLike[str] | None) -> tuple[list[dict[str, Any]], list[UnreadableRecord]]:
    """Both at once, from one listing of the queue."""
    return _scan(home)


def count_pending(home: str | os.PathLike[str] | None) -> int:
    try:
        return sum(1 for entry in os.scandir(pending_dir(home)) if entry.name.endswith(".json"))
    except OSError:
        return 0


def get_pending(home: str | os.PathLike[str] | None, pending_id: str) -> dict[str, Any] | None:
    """The listed record with this id, or None. Raises InvalidPendingId for a malformed id."""
    _record_path(home, pending_id)
    return next((record for record in list_pending(home) if record.get("id") == pending_id), None)


def discard_pending(home: str | os.PathLike[str] | None, pending_id: str) -> bool:
    """Delete the record; False if it was not there. Raises InvalidPendingId for a malformed id."""
    path = _record_path(home, pending_id)
    try:
        path.unlink()
    except FileNotFoundError:
        return False
    return True


DESTRUCTIVE = ("replace", "remove")


def destructive_operations(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """The replace/remove operations of a staged payload, single or batch."""
    raw = (payload.get("operations") or []) if payload.get("action") == "batch" else [payload]
    ops = raw if isinstance(raw, list) else []
    return [op for op in ops if isinstance(op, dict) and op.get("action") in DESTRUCTIVE]


def replay(
    payload: Any, store: MemoryStore, *, refuse_drift: bool = False, newer: bool = False, whole_entries: bool = False
) -> dict[str, Any]:
    """Apply a staged payload through the store's normal checks (no approval gate).

    ``refuse_drift`` (the panel) makes a staged add refuse a drifted file under the lock, as
    replace, remove and batch always do. A replace/remove pinned to the entry it was reviewed
    against (``matched_entry``, newer agents) applies to exactly that entry or is refused.
    ``newer``: the home's agent is newer than 0.19.0, so its refusals apply too (a disabled
    store; an unpinned replace/remove). See docs/memory_core.md "Newer agents". ``whole_entries``
    (the panel, its command line) refuses staged text that would not read back as the same entry
    (see ``MemoryStore.add``)."""
    payload = payload if isinstance(payload, dict) else {}
    action = payload.get("action")
    target = payload.get("target")
    if target is None:
        target = "memory"
    if target not in ("memory", "user"):
        return msg.failure(msg.invalid_target(target))
    if newer:
        enabled = store.user_profile_enabled if target == "user" else store.memory_enabled
        if not enabled:
            return msg.failure(msg.target_disabled("USER.md" if target == "user" else "MEMORY.md"), target=target)
        if any(not op.get("matched_entry") for op in destructive_operations(payload)):
            return msg.failure(msg.UNPINNED_DESTRUCTIVE)
    if action == "batch":
        operations = payload.get("operations")
        if not operations:
            return msg.failure(msg.EMPTY_OPERATIONS)
        if not isinstance(operations, list):
            return msg.failure(OPERATIONS_NOT_A_LIST)
        if newer:  # newer agents take an operation's ``new_text`` for a missing ``content``
            operations = [{**op, "content": op.get("content") or op.get("new_text")}
                          if isinstance(op, dict) and op.get("new_text") else op for op in operations]
        return store.apply_batch(target, operations, refuse_emptying=newer, whole_entries=whole_entries)
    content = payload.get("content") or ""
    old_text = payload.get("old_text") or ""
    pinned = payload.get("matched_entry")
    if action == "add":
        return store.add(target, content, refuse_drift=refuse_drift, whole_entries=whole_entries)
    if action == "replace":
        return store.replace(target, old_text, content, matched_entry=pinned, whole_entries=whole_entries)
    if action == "remove":
        return store.remove(target, old_text, matched_entry=pinned)
    return msg.failure(f"Unknown staged action '{action}'.")


def approve(
    home: str | os.PathLike[str] | None,
    store: MemoryStore | None,
    pending_id: str,
    *,
    refuse_drift: bool = False,
    whole_entries: bool = False,
) -> dict[str, Any]:
    """Replay one record; on success it is deleted, on failure it is kept.

    Returns the replay result, or a failure for a malformed or unknown id. Exceptions raised
    while replaying (a malformed staged operation) become a failure with their text.
    ``refuse_drift``, ``whole_entries``: see :func:`replay`.
    """
    if not is_valid_id(pending_id):
        return msg.failure(invalid_id_message(pending_id))
    record = get_pending(home, pending_id)
    if record is None:
        return msg.failure(unknown_id_message(pending_id))
    return approve_record(home, store, record, refuse_drift=refuse_drift, whole_entries=whole_entries)


def approve_record(
    home: str | os.PathLike[str] | None,
    store: MemoryStore | None,
    record: dict[str, Any],
    *,
    refuse_drift: bool = False,
    whole_entries: bool = False,
) -> dict[str, Any]:
    if store is None:
        return msg.failure("memory store unavailable")
    try:
        result = replay(record.get("payload"), store, refuse_drift=refuse_drift, newer=newer_agent_home(home),
                        whole_entries=whole_entries)
    except (TypeError, ValueError, AttributeError, RuntimeError) as exc:
        # A failed write's own text names absolute paths; its reason says the same in words.
        return msg.failure(getattr(exc, "reason", None) or str(exc))
    if result.get("success"):
        discard_pending(home, record["id"])
    return result


UNREADABLE_KEPT = ("Pending memory write '{}' is not a record the panel can read; it was kept as it is. "
                   "Remove the file by hand if you are sure it is not needed.")


def reject(home: str | os.PathLike[str] | None, pending_id: str, *, only_readable: bool = False) -> dict[str, Any]:
    """Delete one record without applying it. ``only_readable`` (the panel): a file that is not a
    record it can read (a newer agent's, a damaged one) is kept; the agent's own command deletes
    it by id."""
    if not is_valid_id(pending_id):
        return msg.failure(invalid_id_message(pending_id))
    if only_readable and get_pending(home, pending_id) is None and _record_path(home, pending_id).exists():
        return msg.failure(UNREADABLE_KEPT.format(pending_id))
    if discard_pending(home, pending_id):
        return {"success": True, "message": f"Rejected pending memory write '{pending_id}'."}
    return msg.failure(unknown_id_message(pending_id))

"""The write-approval queue in 0.19.0's on-disk layout (spec §14.2, §14.3, D17).

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
from pathlib import Path
from typing import Any

from memory_core import messages as msg
from memory_core import safe_paths
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


def list_pending(home: str | os.PathLike[str] | None) -> list[dict[str, Any]]:
    """Readable records, oldest first. Unreadable files, and files whose name is not a valid id
    equal to the record's ``id``, are skipped (logged)."""
    directory = pending_dir(home)
    if safe_paths.leaving_link(directory, resolve_home(home)) is not None:
        return []
    try:
        names = sorted(entry.name for entry in os.scandir(directory) if entry.name.endswith(".json"))
    except OSError:
        return []
    records = []
    for name in names:
        path = directory / name
        stem = name[: -len(".json")]
        try:
            record = json.loads(safe_paths.read_bytes(path, resolve_home(home)).decode("utf-8"))
        except (OSError, ValueError):
            logger.warning("Skipping unreadable pending record: %s", path)
            continue
        if not isinstance(record, dict) or not is_valid_id(stem) or record.get("id") != stem:
            logger.warning("Skipping unreadable pending record: %s", path)
            continue
        records.append(record)
    records.sort(key=_created_at)
    return records


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


def replay(
    payload: Any, store: MemoryStore, *, refuse_drift: bool = False, whole_entries: bool = False
) -> dict[str, Any]:
    """Apply a staged payload through the store's normal checks (no approval gate).

    ``refuse_drift`` (the panel) makes a staged add refuse a drifted file under the lock, as
    replace, remove and batch always do. ``whole_entries`` (the panel, its command line) refuses
    staged text that would not read back as the same entry (see ``MemoryStore.add``)."""
    payload = payload if isinstance(payload, dict) else {}
    action = payload.get("action")
    target = payload.get("target")
    if target is None:
        target = "memory"
    if target not in ("memory", "user"):
        return msg.failure(msg.invalid_target(target))
    if action == "batch":
        operations = payload.get("operations")
        if not operations:
            return msg.failure(msg.EMPTY_OPERATIONS)
        if not isinstance(operations, list):
            return msg.failure(OPERATIONS_NOT_A_LIST)
        return store.apply_batch(target, operations, whole_entries=whole_entries)
    content = payload.get("content") or ""
    old_text = payload.get("old_text") or ""
    if action == "add":
        return store.add(target, content, refuse_drift=refuse_drift, whole_entries=whole_entries)
    if action == "replace":
        return store.replace(target, old_text, content, whole_entries=whole_entries)
    if action == "remove":
        return store.remove(target, old_text)
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
        result = replay(record.get("payload"), store, refuse_drift=refuse_drift, whole_entries=whole_entries)
    except (TypeError, ValueError, AttributeError, RuntimeError) as exc:
        # A failed write's own text names absolute paths; its reason says the same in words.
        return msg.failure(getattr(exc, "reason", None) or str(exc))
    if result.get("success"):
        discard_pending(home, record["id"])
    return result


def reject(home: str | os.PathLike[str] | None, pending_id: str) -> dict[str, Any]:
    """Delete one record without applying it."""
    if not is_valid_id(pending_id):
        return msg.failure(invalid_id_message(pending_id))
    if discard_pending(home, pending_id):
        return {"success": True, "message": f"Rejected pending memory write '{pending_id}'."}
    return msg.failure(unknown_id_message(pending_id))


def approve_all(home: str | os.PathLike[str] | None, store: MemoryStore | None) -> list[tuple[str, dict[str, Any]]]:
    """Replay every listed record in list order; (id, result) per record."""
    return [(record["id"], approve_record(home, store, record)) for record in list_pending(home)]

"""Writes of the maintenance page: merging duplicates, deleting or rewriting one entry, undoing
either, and the budget samples the page charts.

Every entry write is one ``memory_core.exchange_entries`` call: one batch under the store's lock,
by exact text, all or nothing, with the budget checked on the final list. An entry that changed
or vanished since the page showed it refuses the whole write; nothing is ever applied to an entry
that merely resembles the one the admin saw.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

import memory_core
from admin_panel.change_feed import ChangeFeed, Subscription, change_feed
from admin_panel.models import AuditEntry, BudgetSample
from admin_panel.services.audit import record
from admin_panel.services.memory import FILE_NAMES, User, WriteOutcome, _refused, _write_failed
from memory_core.entries import FILE_NAMES as STORE_FILE_NAMES
from memory_core.entries import TARGETS
from memory_core.fingerprints import fingerprint_of
from memory_core.state import StoreState, read_store_state

UNDO_SESSION_KEY = "maintenance_undo"
logger = logging.getLogger(__name__)


@dataclass
class MaintenanceOutcome(WriteOutcome):
    # What the session keeps so that the change can be undone (None when nothing was written).
    undo: dict[str, Any] | None = None
    changed: list[str] = field(default_factory=list)


def _undo_offer(target: str, result: dict[str, Any], *, kind: str) -> dict[str, Any]:
    return {
        "at": time.time(),
        "kind": kind,
        "target": target,
        "remove": list(result.get("added", [])),
        "restore": list(result.get("removed", [])),
        "positions": list(result.get("removed_positions", [])),
    }


def _exchange(*, home: Path, target: str, old: list[str], new: list[str], positions: list[int] | None = None) -> Any:
    try:
        return memory_core.exchange_entries(
            home=home, target=target, old_contents=old, new_contents=new, positions=positions
        )
    except RuntimeError as exc:
        return exc


def _gone() -> MaintenanceOutcome:
    return MaintenanceOutcome(
        ok=False,
        gone=True,
        message=_(
            "An entry you picked is no longer in the file exactly as it was shown: it was changed or deleted "
            "meanwhile. Nothing was changed."
        ),
    )


def apply_change(*, home: Path, user: User, target: str, originals: list[str], merged: str) -> MaintenanceOutcome:
    """Replace the picked entries (exact texts, as shown) by ``merged``, or delete them when
    ``merged`` is blank. One entry and a new text is a rewrite; several are a merge."""
    file_name = FILE_NAMES[target]
    merged = merged.strip()
    new = [merged] if merged else []
    if len(originals) == 1 and new == originals:
        return MaintenanceOutcome(ok=True, message=_("The entry is unchanged."))
    result = _exchange(home=home, target=target, old=originals, new=new)
    if isinstance(result, RuntimeError):
        failed = _write_failed(result)
        return MaintenanceOutcome(ok=False, message=failed.message, error=failed.error, disk_full=failed.disk_full)
    if not result.get("success"):
        if "missing" in result:
            return _gone()
        refused = _refused(result, target, merged or None)
        return MaintenanceOutcome(
            ok=False,
            message=refused.message,
            error=refused.error,
            findings=refused.findings,
            scanned_text=refused.scanned_text,
        )
    removed = list(result["removed"])
    if not new:
        noun = "entry" if len(removed) == 1 else "entries"
        kind, summary = "delete", f"Deleted {len(removed)} {noun} from {file_name}"
        details: dict[str, Any] = {"action": "delete", "target": target, "content": removed}
        message = ngettext(
            "Deleted %(count)d entry from %(file)s.", "Deleted %(count)d entries from %(file)s.", len(removed)
        ) % {"count": len(removed), "file": file_name}
    elif len(removed) == 1:
        kind, summary = "edit", f"Edited an entry of {file_name}"
        details = {"action": "edit", "target": target, "content": merged, "old_content": removed[0]}
        message = _("Entry of %(file)s saved.") % {"file": file_name}
    else:
        kind, summary = "merge", f"Merged {len(removed)} entries of {file_name} into one"
        details = {"action": "merge", "target": target, "content": merged, "old_content": removed}
        message = _("Merged %(count)d entries of %(file)s into one.") % {"count": len(removed), "file": file_name}
    record(user=user, channel="panel", home=home, kind=AuditEntry.Kind.MEMORY_ENTRY, summary=summary, details=details)
    return MaintenanceOutcome(ok=True, message=message, undo=_undo_offer(target, result, kind=kind), changed=removed)


def undo_change(*, home: Path, user: User, offer: dict[str, Any]) -> MaintenanceOutcome:
    """Put back what a maintenance change removed, where it was, and take out what it added; in
    one exchange, refused if the added text changed since (then nothing is written)."""
    target = offer.get("target")
    remove, restore, positions = offer.get("remove"), offer.get("restore"), offer.get("positions")
    well_formed = (
        target in FILE_NAMES
        and all(isinstance(part, list) and all(isinstance(t, str) for t in part) for part in (remove, restore))
        and isinstance(positions, list)
        and len(positions) == len(restore or [])
    )
    if not well_formed:
        return MaintenanceOutcome(ok=False, message=_("There is nothing to undo any more."))
    assert isinstance(target, str) and isinstance(remove, list) and isinstance(restore, list)
    result = _exchange(home=home, target=target, old=remove, new=restore, positions=positions)
    if isinstance(result, RuntimeError):
        failed = _write_failed(result)
        return MaintenanceOutcome(ok=False, message=failed.message, error=failed.error, disk_full=failed.disk_full)
    if not result.get("success"):
        if "missing" in result:
            return MaintenanceOutcome(
                ok=False,
                gone=True,
                message=_("The entry this change wrote was changed or deleted since; nothing was undone."),
            )
        refused = _refused(result, target)
        return MaintenanceOutcome(ok=False, message=refused.message, error=refused.error)
    file_name = FILE_NAMES[target]
    restored = [text for text in restore if text in result.get("added", [])]
    record(
        user=user,
        channel="panel",
        home=home,
        kind=AuditEntry.Kind.MEMORY_ENTRY,
        summary=f"Restored {len(restored)} {'entry' if len(restored) == 1 else 'entries'} to {file_name} (undo)",
        details={"action": "restore", "target": target, "content": restored, "old_content": remove, "reason": "undo"},
    )
    return MaintenanceOutcome(ok=True, message=_("Undone: %(file)s is back as it was.") % {"file": file_name})


# --- budget history ---------------------------------------------------------------------------------


def record_budget_samples(*, home: Path, states: list[StoreState]) -> None:
    """Record each readable store's count if it differs from that store's last sample.

    Several recorders see the same store at once (the change feed's sampler thread, a request
    thread showing the Memory or Maintenance page, another panel process on the same database):
    the look at the last sample and the insert are one write transaction (``BEGIN IMMEDIATE``, the
    database's ``transaction_mode``), so a second recorder reads the first one's sample and adds
    no copy of it."""
    for state in states:
        if not state.readable:
            continue
        with transaction.atomic():
            last = (
                BudgetSample.objects.filter(home=str(home), target=state.target)
                .order_by("-recorded_at", "-pk")
                .values_list("chars", "limit")
                .first()
            )
            if last != (state.total_chars, state.limit):
                # Taken inside the transaction, so samples are in the order they were written.
                BudgetSample.objects.create(home=str(home), target=state.target, chars=state.total_chars,
                                            limit=state.limit, recorded_at=timezone.now())


def record_budget_on_store_changes(*, home: Path, feed: ChangeFeed | None = None) -> Subscription:
    """Record a budget sample whenever the change feed sees a store file change, so the chart
    holds the panel's own observations of the agent's writes, not only the moments someone had a
    memory page open. Samples are taken on a thread of their own (never the feed's); changes that
    arrive while one is being taken are folded into the next."""
    home = Path(home)
    lock = threading.Lock()
    state = {"wanted": False, "running": False}

    def take_samples() -> None:
        from django.db import connection

        try:
            while True:
                with lock:
                    if not state["wanted"]:
                        state["running"] = False
                        return
                    state["wanted"] = False
                try:
                    record_budget_samples(home=home, states=[read_store_state(home=home, target=t) for t in TARGETS])
                except Exception:  # a missed sample is not worth stopping for; the next change retries
                    logger.exception("Could not record a budget sample")
        finally:
            connection.close()

    watching = feed or change_feed()

    def wake() -> None:
        if watching.closed:
            return  # the last wake of a shutdown, not a change
        with lock:
            state["wanted"] = True
            if state["running"]:
                return
            state["running"] = True
        threading.Thread(target=take_samples, name="budget-samples", daemon=True).start()

    paths = [home / "memories" / STORE_FILE_NAMES[target] for target in TARGETS]
    # Woken only when a store's own stat fingerprint moved, not by every event in its folder.
    return watching.subscribe(paths, wake, fingerprint=lambda: fingerprint_of(paths))

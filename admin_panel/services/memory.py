"""Writes from the live memory view. ``memory_core`` does the work under the store lock; this
module adds the panel's rules (no writes to drifted or unreadable stores, entries named by
reference), the audit records and messages for the admin.

The panel's rules are enforced by ``memory_core`` under the store lock (adds with
``refuse_drift=True``, edits and deletes by exact text), not by a look at the file beforehand,
which the agent could change between that look and the write.

Error texts coming back from ``memory_core`` are the agent's own wording (English, part of the
agent's contract) and are shown as they are, after a translated lead-in.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

import memory_core
from admin_panel.localisation import localise_message
from admin_panel.models import AuditEntry
from admin_panel.selectors.memory import ResolvedRef, StoreFile
from admin_panel.services.audit import record
from admin_panel.services.write_errors import disk_full_text, is_disk_full, reports_disk_full
from memory_core import pending
from memory_core.coded import Message
from memory_core.config import read_memory_config, store_from_config
from memory_core.drift import backup_failed_on_full_disk
from memory_core.messages import is_file_refusal
from memory_core.state import StoreState
from memory_core.threats import MEMORY_SCOPE, ThreatFinding, scan_detailed

User = AbstractBaseUser | AnonymousUser
FILE_NAMES = {"memory": "MEMORY.md", "user": "USER.md"}


@dataclass
class WriteOutcome:
    ok: bool
    message: str
    # The store's refusal in its own words, and what the scanner found in a refused text.
    error: str = ""
    findings: list[ThreatFinding] = field(default_factory=list)
    scanned_text: str = ""  # the text the findings' spans index
    gone: bool = False  # the entry to edit changed or vanished before the store's lock was held
    disk_full: bool = False  # nothing was written because the disk (or quota) is full


def _unreadable_text(file_name: str, reason: str) -> str:
    return _("%(file)s cannot be read (%(reason)s), so the panel does not write it.") % {
        "file": file_name,
        "reason": reason or _("unknown reason"),
    }


def _drift_text(file_name: str) -> str:
    return _(
        "%(file)s has drifted: its text would not survive a rewrite unchanged. The panel does not "
        "write it until the drift is resolved."
    ) % {"file": file_name}


def _linked_text(name: str) -> str:
    return _(
        "%(name)s is a link to a file outside the agent's home; the panel does not read or write through links."
    ) % {"name": name}


def write_refusal(state: StoreState | StoreFile) -> str:
    """Why the panel will not write this store right now ("" when it will). For display: the
    write itself is refused (or not) by memory_core under the lock."""
    if state.linked:
        return _linked_text(state.linked_name or state.file_name)
    if not state.readable:
        return _unreadable_text(state.file_name, state.error)
    if state.drift is not None:
        return _drift_text(state.file_name)
    return ""


def file_refusal_text(result: dict[str, Any], target: str) -> str:
    """The panel's sentence for a write memory_core refused because the file is drifted or
    unreadable, else "" (other refusals are shown in the store's own words)."""
    if result.get("success") or not is_file_refusal(result):
        return ""
    if backup_failed_on_full_disk(f"{result.get('drift_backup', '')} {result.get('error', '')}"):
        return disk_full_text()  # the drift backup could not be written, so neither was anything else
    file_name = FILE_NAMES.get(target, "")
    # memory_core's drift and unreadable-file refusals are told apart by their codes
    # (memory_core.messages) for the panel's own sentences (docs/agent_formats.md §Drift guard and
    # backups, §Unreadable files).
    code = getattr(result.get("error"), "code", "")
    if result.get("linked"):
        return _linked_text(str(result["linked"]))
    if "drift_backup" in result or code == "drift_refusal":
        return _drift_text(file_name)
    if code == "unreadable_refusal":
        params = result["error"].params
        return _unreadable_text(str(params.get("file", file_name)), str(params.get("reason", "")))
    return ""


def _audit(
    *, user: User, home: Path, summary: str, details: dict[str, Any], kind: str = AuditEntry.Kind.MEMORY_ENTRY
) -> None:
    record(user=user, channel="panel", home=home, kind=kind, summary=summary, details=details)


def shown_error(result: dict[str, Any]) -> str:
    """The store's refusal as the panel shows it: the drift backup named relative to the home
    (memory_core's text names it by its absolute path, as the agent's does)."""
    error = _error_of(result)
    backup = result.get("drift_backup")
    if isinstance(backup, str) and backup and backup in error:
        shown = "memories/" + backup.rsplit("/", 1)[-1]
        error = error.with_value_replaced(backup, shown) if isinstance(error, Message) else error.replace(backup, shown)
    return error


def _error_of(result: dict[str, Any]) -> str:
    """The store's refusal text, kept as the coded message it is (``str()`` would drop the code)."""
    error = result.get("error", "")
    return error if isinstance(error, str) else str(error)


def _refused(result: dict[str, Any], target: str, text: str | None = None) -> WriteOutcome:
    error = shown_error(result)
    refusal = file_refusal_text(result, target)
    if refusal == disk_full_text():
        return WriteOutcome(ok=False, message=refusal, disk_full=True)
    if refusal:
        # The store's text stays beside it: for drift it names the backup just written.
        return WriteOutcome(ok=False, message=refusal, error=error)
    findings = scan_detailed(text, MEMORY_SCOPE) if text and error.startswith("Blocked:") else []
    return WriteOutcome(
        ok=False,
        message=_("The store refused the change."),
        error=error,
        findings=findings,
        scanned_text=text if findings and text else "",
    )


def _write_failed(exc: RuntimeError) -> WriteOutcome:
    """memory_core raises when the file itself cannot be written (disk full, read-only folder);
    the old file is left as it was. The exception's own text names absolute paths: only its
    ``reason`` (names relative to the home) is shown."""
    if is_disk_full(exc):
        return WriteOutcome(ok=False, message=disk_full_text(), disk_full=True)
    reason = getattr(exc, "reason", "") or _("The file could not be written.")
    return WriteOutcome(ok=False, message=_("The entry could not be written; nothing was changed."), error=reason)


def add_entry(*, home: Path, user: User, target: str, content: str) -> WriteOutcome:
    try:
        result = memory_core.add_entry(home=home, target=target, content=content, refuse_drift=True)
    except RuntimeError as exc:
        return _write_failed(exc)
    if not result.get("success"):
        return _refused(result, target, content.strip())
    file_name = FILE_NAMES[target]
    if result.get("message") == "Entry already exists (no duplicate added).":
        return WriteOutcome(
            ok=True, message=_("%(file)s already holds this entry; nothing changed.") % {"file": file_name}
        )
    _audit(
        user=user,
        home=home,
        summary=f"Added an entry to {file_name}",
        details={"action": "add", "target": target, "content": content.strip()},
    )
    return WriteOutcome(ok=True, message=_("Entry added to %(file)s.") % {"file": file_name})


def edit_entry(*, home: Path, user: User, target: str, old_content: str, new_content: str) -> WriteOutcome:
    """Replace the entry whose exact text is ``old_content``; if it changed or vanished before the
    store's lock was held, nothing is written (never an entry that merely contains it)."""
    file_name = FILE_NAMES[target]
    if new_content.strip() == old_content:
        return WriteOutcome(ok=True, message=_("The entry is unchanged."))
    try:
        result = memory_core.replace_entry_exact(
            home=home, target=target, old_content=old_content, new_content=new_content
        )
    except RuntimeError as exc:
        return _write_failed(exc)
    if not result.get("success"):
        if "missing" in result:
            return WriteOutcome(
                ok=False,
                gone=True,
                message=_(
                    "This entry is no longer in the file exactly as it was: it was changed or deleted meanwhile. "
                    "Nothing was changed."
                ),
            )
        return _refused(result, target, new_content.strip())
    _audit(
        user=user,
        home=home,
        summary=f"Edited an entry of {file_name}",
        details={"action": "edit", "target": target, "content": new_content.strip(), "old_content": old_content},
    )
    return WriteOutcome(ok=True, message=_("Entry of %(file)s saved.") % {"file": file_name})


@dataclass
class DeleteOutcome:
    deleted: list[tuple[str, str]] = field(default_factory=list)  # (target, text)
    gone: list[ResolvedRef] = field(default_factory=list)  # changed or vanished meanwhile
    refused: dict[str, str] = field(default_factory=dict)  # target -> why nothing was deleted there

    @property
    def restorable(self) -> list[tuple[str, str]]:
        """The deleted entries Undo can add back: the add path refuses what the threat scanner
        blocks, so offering Undo for a blocked entry would promise what cannot happen."""
        return [(target, text) for target, text in self.deleted
                if not memory_core.first_threat_message(text, MEMORY_SCOPE)]

    @property
    def messages(self) -> list[tuple[str, str]]:
        """(level, text) lines for the admin."""
        lines: list[tuple[str, str]] = []
        by_target: dict[str, int] = defaultdict(int)
        for target, _text in self.deleted:
            by_target[target] += 1
        for target, count in by_target.items():
            lines.append(
                (
                    "success",
                    ngettext(
                        "Deleted %(count)d entry from %(file)s.", "Deleted %(count)d entries from %(file)s.", count
                    )
                    % {"count": count, "file": FILE_NAMES[target]},
                )
            )
        if self.deleted and not self.restorable:
            lines.append(("info", _("There is nothing to undo: a blocked entry stays deleted.")))
        if self.gone:
            lines.append(
                (
                    "warning",
                    ngettext(
                        "%(count)d selected entry changed or vanished since you selected it; it was not deleted.",
                        "%(count)d selected entries changed or vanished since you selected them; they were not "
                        "deleted.",
                        len(self.gone),
                    )
                    % {"count": len(self.gone)},
                )
            )
        for target, reason in self.refused.items():
            lines.append(
                (
                    "error",
                    _("Nothing was deleted from %(file)s: %(reason)s")
                    % {"file": FILE_NAMES[target], "reason": localise_message(reason)},
                )
            )
        return lines


def delete_entries(*, home: Path, user: User, refs: list[ResolvedRef]) -> DeleteOutcome:
    """Delete the referenced entries by exact text, under each store's lock.

    An entry whose text is no longer in its file is reported as gone and nothing of it is
    deleted; the others still are.
    """
    outcome = DeleteOutcome()
    wanted: dict[str, list[str]] = defaultdict(list)
    for ref in refs:
        if ref.text is None:
            outcome.gone.append(ref)
        else:
            wanted[ref.target].append(ref.text)
    by_text = {(ref.target, ref.text): ref for ref in refs if ref.text is not None}
    for target, texts in wanted.items():
        remaining = list(texts)
        # memory_core deletes all or none; entries that vanished between our read and its lock
        # are set aside and the rest tried again (each attempt loses at least one entry).
        while remaining:
            result = memory_core.delete_entries(home=home, target=target, contents=remaining)
            if result.get("success"):
                outcome.deleted.extend((target, text) for text in remaining)
                _audit(
                    user=user,
                    home=home,
                    summary=f"Deleted {len(remaining)} {'entry' if len(remaining) == 1 else 'entries'} "
                    f"from {FILE_NAMES[target]}",
                    details={"action": "delete", "target": target, "content": remaining},
                )
                break
            missing = result.get("missing")
            if not missing:
                outcome.refused[target] = file_refusal_text(result, target) or _error_of(result)
                break
            outcome.gone.extend(by_text[(target, text)] for text in missing if (target, text) in by_text)
            remaining = [text for text in remaining if text not in set(missing)]
    return outcome


@dataclass
class ReaddReport:
    added: list[tuple[str, str]] = field(default_factory=list)
    already_present: list[tuple[str, str]] = field(default_factory=list)
    refused: list[tuple[str, str, str]] = field(default_factory=list)  # (target, text, why)


def readd_entries(*, home: Path, user: User, items: list[tuple[str, str]], reason: str) -> ReaddReport:
    """Add entries back through the normal add path (undo, restore from a backup).

    Each goes through the scanner and the budget; what does not fit is reported, not forced.
    ``reason`` ("undo" or "backup") is kept in the audit log.
    """
    report = ReaddReport()
    grouped: dict[str, list[str]] = defaultdict(list)
    for target, text in items:
        grouped[target].append(text)
    for target, texts in grouped.items():
        outcome = memory_core.readd_entries(home=home, target=target, contents=texts, refuse_drift=True)
        report.added.extend((target, text) for text in outcome.added)
        report.already_present.extend((target, text) for text in outcome.already_present)
        report.refused.extend(
            (target, text, file_refusal_text({"success": False, "error": why}, target) or why)
            for text, why in outcome.refused.items()
        )
        if outcome.added:
            _audit(
                user=user,
                home=home,
                summary=f"Restored {len(outcome.added)} {'entry' if len(outcome.added) == 1 else 'entries'} "
                f"to {FILE_NAMES[target]} ({reason})",
                details={"action": "restore", "target": target, "content": outcome.added, "reason": reason},
            )
    return report


@dataclass
class PendingOutcome:
    pending_id: str
    ok: bool
    summary: str
    error: str = ""


def _pending_record(home: Path, pending_id: str) -> dict[str, Any] | None:
    try:
        return pending.get_pending(home, pending_id)
    except ValueError:
        return None


def _pending_summary(home: Path, pending_id: str) -> str:
    found = _pending_record(home, pending_id)
    return str(found.get("summary", "")) if found else ""


def _record_target(found: dict[str, Any] | None) -> str | None:
    """The store a staged write goes to (None when memory_core will refuse the record itself)."""
    payload = found.get("payload") if found else None
    if not isinstance(payload, dict):
        return None
    target = payload.get("target")
    target = "memory" if target is None else target  # the agent's default for a missing target
    return target if target in FILE_NAMES else None


def approve_pending(*, home: Path, user: User, ids: list[str]) -> list[PendingOutcome]:
    """Replay each staged write through the store's normal checks; a failure keeps the record.

    A staged add refuses a drifted store under the lock too (``refuse_drift``). Once a store
    refuses because of its file, the later records for it get the same answer without another
    attempt, so approving many at once leaves one drift backup, not one per record.
    """
    outcomes = []
    store = store_from_config(home, read_memory_config(home), load=False)
    refused_files: dict[str, dict[str, Any]] = {}
    for pending_id in ids:
        found = _pending_record(home, pending_id)
        summary = str(found.get("summary", "")) if found else ""
        target = _record_target(found)
        if target is not None and target in refused_files:
            result = refused_files[target]
        else:
            # Each approval is a separate admin decision, not retries within an agent turn.
            store.reset_consolidation_failures()
            result = pending.approve(home, store, pending_id, refuse_drift=True, whole_entries=True)
            if target is not None and is_file_refusal(result):
                refused_files[target] = result
        ok = bool(result.get("success"))
        error = (file_refusal_text(result, target) if target else "") or _error_of(result)
        if not ok and reports_disk_full(error):
            error = disk_full_text()  # not the store's text, which names the absolute path
        outcome = PendingOutcome(pending_id=pending_id, ok=ok, summary=summary, error=error)
        outcomes.append(outcome)
        _audit(
            user=user,
            home=home,
            kind=AuditEntry.Kind.APPROVAL,
            summary=f"{'Approved' if ok else 'Approval failed for'} pending memory write {pending_id}",
            details={
                "action": "approve",
                "pending_id": pending_id,
                "summary": summary,
                "result": "applied" if ok else outcome.error,
                # What was written, in the tool's argument shape: the memory page traces entries to it.
                "payload": found.get("payload") if found else None,
            },
        )
    return outcomes


def reject_pending(*, home: Path, user: User, ids: list[str]) -> list[PendingOutcome]:
    outcomes = []
    for pending_id in ids:
        summary = _pending_summary(home, pending_id)
        result = pending.reject(home, pending_id, only_readable=True)
        ok = bool(result.get("success"))
        outcomes.append(
            PendingOutcome(pending_id=pending_id, ok=ok, summary=summary, error=shown_error(result))
        )
        if ok:
            _audit(
                user=user,
                home=home,
                kind=AuditEntry.Kind.APPROVAL,
                summary=f"Rejected pending memory write {pending_id}",
                details={"action": "reject", "pending_id": pending_id, "summary": summary, "result": "rejected"},
            )
    return outcomes

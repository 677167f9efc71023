"""``python manage.py memory ...``: inspect and edit the agent's memory stores from a shell.

The work is done by memory_core.cli (shared with ``python -m memory_core``); this wrapper only
supplies the configured HERMES_HOME, records what changed in the audit log (channel "command", the
operating-system account that ran it as the user) and turns the result into the process exit code.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from admin_panel.agent_home import current_home
from memory_core import cli

ENTRY_WRITES = ("add", "replace", "remove")


class Command(BaseCommand):
    help = (
        "Show, snapshot, add, replace, remove and scan the agent's memory entries, and review pending "
        "writes. Exit codes: 0 done, 1 refused or threats found, 2 invalid request."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        cli.add_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        home = Path(options.get("home") or current_home())
        before = _observe(home, options)
        code = cli.run(options, home=home, out=self.stdout, err=self.stderr, secrets=_stored_secrets(home, options))
        if before is not None:
            _record_changes(home, options, before, _observe(home, options))
        if code:
            raise SystemExit(code)


def _stored_secrets(home: Path, options: dict[str, Any]) -> tuple[str, ...]:
    """For ``check``: every stored form of every secret the panel holds (.env, keyring), so that an
    entry holding one is reported, as on the maintenance page, and never printed."""
    if options.get("action") != "check":
        return ()
    from admin_panel.selectors.sessions import secret_masker

    return tuple(sorted(secret_masker(home=home).forms))


# --- audit: compare the store (or the pending queue) before and after the command ------------------


def _observe(home: Path, options: dict[str, Any]) -> Any:
    from memory_core import pending
    from memory_core.state import read_store_state

    action = options.get("action")
    if action in ENTRY_WRITES and options.get("target") in ("memory", "user"):
        return [view.text for view in read_store_state(home=home, target=options["target"]).entries]
    if action == "pending" and str(options.get("command") or "").lower() in ("approve", "reject"):
        return {str(r.get("id")): str(r.get("summary", "")) for r in pending.list_pending(home)}
    return None


def _record_changes(home: Path, options: dict[str, Any], before: Any, after: Any) -> None:
    from admin_panel.models import AuditEntry
    from admin_panel.services.audit import command_username, record

    who = command_username()
    if isinstance(before, dict):
        command = str(options.get("command")).lower()
        for pending_id, summary in before.items():
            if pending_id not in after:  # a record leaves the queue only when approved or rejected
                done = "Approved" if command == "approve" else "Rejected"
                record(user=None, username=who, channel="command", home=home, kind=AuditEntry.Kind.APPROVAL,
                       summary=f"{done} pending memory write {pending_id}",
                       details={"action": command, "pending_id": pending_id, "summary": summary,
                                "result": "applied" if command == "approve" else "rejected"})
        return
    target = options["target"]
    file_name = "USER.md" if target == "user" else "MEMORY.md"
    added = [text for text in after if text not in before]
    removed = [text for text in before if text not in after]
    if added and removed:
        summary, details = f"Edited an entry of {file_name}", {
            "action": "edit", "target": target, "content": added[0], "old_content": removed[0]}
    elif added:
        summary, details = f"Added an entry to {file_name}", {"action": "add", "target": target, "content": added[0]}
    elif removed:
        summary, details = f"Deleted an entry from {file_name}", {
            "action": "delete", "target": target, "content": removed}
    else:
        return
    record(user=None, username=who, channel="command", home=home, kind=AuditEntry.Kind.MEMORY_ENTRY, summary=summary,
           details=details)

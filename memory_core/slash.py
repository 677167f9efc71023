"""The ``/memory`` subcommand texts of 0.19.0 (docs/agent_formats.md §Pending queue), with D17's id check."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from memory_core import pending
from memory_core.config import read_memory_config, set_write_approval
from memory_core.store import MemoryStore

USAGE = "Usage: /memory approve|reject <id>  (or 'all')"
NO_PENDING = "No pending memory writes."
LIST_FOOTER = "Apply: /memory approve <id>   Reject: /memory reject <id>"
_ON_WORDS = frozenset({"on", "true", "yes", "1", "enable", "enabled"})
_OFF_WORDS = frozenset({"off", "false", "no", "0", "disable", "disabled"})

Home = str | os.PathLike[str] | None


def _mode_line(home: Home) -> str:
    state = "on" if read_memory_config(home).write_approval else "off"
    return f"memory.write_approval = {state}"


def format_pending_list(records: Sequence[dict[str, Any]]) -> str:
    if not records:
        return NO_PENDING
    lines = [f"Pending memory writes ({len(records)}):"]
    for record in records:
        auto = " [auto]" if record.get("origin") == pending.BACKGROUND_ORIGIN else ""
        lines.append(f"  {record.get('id')}{auto}  {record.get('summary', '')}")
    lines.extend(["", LIST_FOOTER])
    return "\n".join(lines)


def _approve(home: Home, store: MemoryStore | None, which: str) -> str:
    records = pending.list_pending(home)
    if not records:
        return NO_PENDING
    if which.lower() == "all":
        chosen = records
    else:
        if not pending.is_valid_id(which):
            return pending.invalid_id_message(which)
        chosen = [record for record in records if record.get("id") == which]
        if not chosen:
            return pending.unknown_id_message(which)
    approved = 0
    failures = []
    for record in chosen:
        result = pending.approve_record(home, store, record)
        if result.get("success"):
            approved += 1
        else:
            failures.append(f"  {record['id']}: {result.get('error', '')}")
    text = f"Approved {approved} memory write(s)."
    if failures:
        text += "\nFailed:\n" + "\n".join(failures)
    return text


def _reject(home: Home, which: str) -> str:
    if which.lower() == "all":
        records = pending.list_pending(home)
        for record in records:
            pending.discard_pending(home, record["id"])
        return f"Rejected {len(records)} pending memory write(s)."
    if not pending.is_valid_id(which):
        return pending.invalid_id_message(which)
    if pending.discard_pending(home, which):
        return f"Rejected pending memory write '{which}'."
    return pending.unknown_id_message(which)


def _approval(home: Home, value: str | None) -> str:
    if value is None:
        return f"{_mode_line(home)}\nSet with: /memory approval <on|off>"
    word = value.strip().lower()
    if word in _ON_WORDS:
        enabled = True
    elif word in _OFF_WORDS:
        enabled = False
    else:
        return f"Invalid value '{word}'. Use: on or off."
    set_write_approval(home, enabled)
    return f"memory.write_approval set to '{'on' if enabled else 'off'}'."


def handle_memory_command(args: str | Sequence[str], *, home: Home, store: MemoryStore | None) -> str | None:
    """The reply to ``/memory <args>``, or None for a subcommand it does not handle."""
    words = args.split() if isinstance(args, str) else list(args)
    if not words:
        return f"{_mode_line(home)}\n\n{format_pending_list(pending.list_pending(home))}"
    command = words[0].lower()
    rest = words[1:]
    if command == "pending":
        return format_pending_list(pending.list_pending(home))
    if command in ("approve", "apply"):
        return _approve(home, store, rest[0]) if rest else USAGE
    if command in ("reject", "deny", "drop"):
        return _reject(home, rest[0]) if rest else USAGE
    if command in ("approval", "mode"):
        return _approval(home, rest[0] if rest else None)
    return None

"""The blocks injected into the agent's system prompt (docs/agent_formats.md §Snapshot), byte for byte."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from memory_core.entries import DELIMITER, file_name_for, usage_text
from memory_core.threats import MEMORY_SCOPE, scan_for_threats

logger = logging.getLogger("memory_core.snapshot")

RULE = "═" * 46
TITLES = {"memory": "MEMORY (your personal notes)", "user": "USER PROFILE (who the user is)"}


def blocked_placeholder(file_name: str, ids: Sequence[str]) -> str:
    return (
        f"[BLOCKED: {file_name} entry contained threat pattern(s): {', '.join(ids)}. "
        "Removed from system prompt; use memory(action=remove) to delete the original.]"
    )


def sanitise_entries(entries: Sequence[str], file_name: str, *, log: bool = True) -> list[str]:
    """Entries as the snapshot shows them: any entry with a finding becomes a placeholder.

    Unlike 0.19.0, entries that already start with ``[BLOCKED:`` are scanned too (D12b).
    """
    shown = []
    for entry in entries:
        ids = scan_for_threats(entry, MEMORY_SCOPE) if entry else []
        if ids:
            if log:
                logger.warning("Memory entry from %s blocked at load time: %s", file_name, ", ".join(ids))
            shown.append(blocked_placeholder(file_name, ids))
        else:
            shown.append(entry)
    return shown


def render_block(target: str, entries: Sequence[str], limit: int, *, log: bool = True) -> str:
    """The frozen block for ``target`` ("" for no entries)."""
    if not entries:
        return ""
    content = DELIMITER.join(sanitise_entries(entries, file_name_for(target), log=log))
    title = TITLES["user" if target == "user" else "memory"]
    return "\n".join((RULE, f"{title} [{usage_text(len(content), limit)}]", RULE, content))

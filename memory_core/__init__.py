"""memory_core: the curated memory store of hermes-agent 0.19.0, safe to use beside a running agent.

No Django here: the panel, the management command and scripts all use this package directly.
See docs/memory_core.md for the API. Names are imported on first use, so a process that only
needs the store (a writer, a benchmark) does not pay for YAML, the queue or the panel views.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "DELIMITER": "entries",
    "TARGETS": "entries",
    "char_count": "entries",
    "parse_entries": "entries",
    "percent": "entries",
    "serialise": "entries",
    "MemoryConfig": "config",
    "read_memory_config": "config",
    "set_write_approval": "config",
    "store_from_config": "config",
    "approve": "pending",
    "count_pending": "pending",
    "get_pending": "pending",
    "is_valid_id": "pending",
    "list_pending": "pending",
    "reject": "pending",
    "stage": "pending",
    "ReaddOutcome": "services",
    "add_entry": "services",
    "apply_operations": "services",
    "delete_entries": "services",
    "exchange_entries": "services",
    "readd_entries": "services",
    "remove_entry": "services",
    "replace_entry": "services",
    "replace_entry_exact": "services",
    "resolve_drift": "services",
    "handle_memory_command": "slash",
    "BackupFile": "state",
    "EntryView": "state",
    "StoreState": "state",
    "fingerprint": "state",
    "list_backups": "state",
    "read_all_states": "state",
    "read_store_state": "state",
    "MemoryStore": "store",
    "MAX_SCAN_CHARS": "threats",
    "ThreatFinding": "threats",
    "first_threat_message": "threats",
    "scan_detailed": "threats",
    "scan_for_threats": "threats",
    "memory_tool": "tool",
}

__all__ = [
    "DELIMITER",
    "MAX_SCAN_CHARS",
    "TARGETS",
    "BackupFile",
    "EntryView",
    "MemoryConfig",
    "MemoryStore",
    "ReaddOutcome",
    "StoreState",
    "ThreatFinding",
    "add_entry",
    "apply_operations",
    "approve",
    "char_count",
    "count_pending",
    "delete_entries",
    "exchange_entries",
    "fingerprint",
    "first_threat_message",
    "get_pending",
    "handle_memory_command",
    "is_valid_id",
    "list_backups",
    "list_pending",
    "memory_tool",
    "parse_entries",
    "percent",
    "read_all_states",
    "read_memory_config",
    "read_store_state",
    "readd_entries",
    "reject",
    "remove_entry",
    "replace_entry",
    "replace_entry_exact",
    "resolve_drift",
    "scan_detailed",
    "scan_for_threats",
    "serialise",
    "set_write_approval",
    "stage",
    "store_from_config",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'memory_core' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"memory_core.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:
    from memory_core.config import MemoryConfig, read_memory_config, set_write_approval, store_from_config
    from memory_core.entries import DELIMITER, TARGETS, char_count, parse_entries, percent, serialise
    from memory_core.pending import approve, count_pending, get_pending, is_valid_id, list_pending, reject, stage
    from memory_core.services import (
        ReaddOutcome,
        add_entry,
        apply_operations,
        delete_entries,
        exchange_entries,
        readd_entries,
        remove_entry,
        replace_entry,
        replace_entry_exact,
        resolve_drift,
    )
    from memory_core.slash import handle_memory_command
    from memory_core.state import (
        BackupFile,
        EntryView,
        StoreState,
        fingerprint,
        list_backups,
        read_all_states,
        read_store_state,
    )
    from memory_core.store import MemoryStore
    from memory_core.threats import (
        MAX_SCAN_CHARS,
        ThreatFinding,
        first_threat_message,
        scan_detailed,
        scan_for_threats,
    )
    from memory_core.tool import memory_tool

"""The agent-side ``memory`` tool: argument checks, the write-approval gate, JSON text (docs/agent_formats.md §Memory
tool, §Pending queue).

The approval callback and the write origin are passed in explicitly (the agent keeps them in
thread-local state); the write-approval setting comes from ``store.write_approval``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from memory_core import messages as msg
from memory_core.entries import char_count, failure_usage
from memory_core.pending import BACKGROUND_ORIGIN, OPERATIONS_NOT_A_LIST, STAGED_MESSAGE, stage
from memory_core.store import MemoryStore

ApprovalCallback = Callable[..., Any]
NOT_AVAILABLE = "Memory is not available. It may be disabled in config or this environment."
DENIED = "Memory write denied by user. The change was not saved."
_PROCEED_ANSWERS = ("once", "session")


def _tool_error(message: str) -> str:
    return json.dumps({"error": message, "success": False}, ensure_ascii=False)


def _dump(result: dict[str, Any]) -> str:
    return json.dumps(result, ensure_ascii=False)


def _label(target: str) -> str:
    return "user profile" if target == "user" else "memory"


def _single_summary(action: str, target: str, content: Any, old_text: Any) -> tuple[str, str]:
    label = _label(target)
    if action == "add":
        return f"add to {label}", content or ""
    if action == "replace":
        return f"replace in {label}", f"old: {old_text}\nnew: {content}"
    return f"remove from {label}", old_text or ""


def _batch_summary(target: str, operations: list[Any]) -> tuple[str, str]:
    lines = []
    for op in operations:
        op = op or {}
        action = op.get("action", "?")
        if action == "remove":
            lines.append(f"- remove: {op.get('old_text', '')}")
        elif action == "replace":
            lines.append(f"- replace: {op.get('old_text', '')} -> {op.get('content', '')}")
        else:
            lines.append(f"- {action}: {op.get('content', '')}")
    return f"apply {len(operations)} op(s) to {_label(target)}", "\n".join(lines)


def _gate(
    store: MemoryStore,
    summary: str,
    detail: str,
    payload: dict[str, Any],
    *,
    approval_callback: ApprovalCallback | None,
    origin: str,
) -> str | None:
    """None to write now; otherwise the JSON result (denied or staged)."""
    if not store.write_approval:
        return None
    if origin != BACKGROUND_ORIGIN and approval_callback is not None:
        description = "Save to memory: " + (summary.strip() or "Save to memory?")
        command = detail.strip() or description
        try:
            answer = approval_callback(command, description, allow_permanent=False)
        except Exception:
            answer = None
        if answer in _PROCEED_ANSWERS:
            return None
        if answer == "deny":
            return _tool_error(DENIED)
    staged_summary = f"{summary}: {detail[:120]}".strip()
    # As in 0.19.0, a disk error while staging is logged and the id is still returned.
    record = stage(
        store.home, payload=payload, summary=staged_summary, origin=origin or "foreground", swallow_errors=True
    )
    return _dump({"success": True, "staged": True, "pending_id": record["id"], "message": STAGED_MESSAGE})


def memory_tool(
    action: str | None = None,
    target: str | None = "memory",
    content: str | None = None,
    old_text: str | None = None,
    operations: list[dict[str, Any]] | None = None,
    store: MemoryStore | None = None,
    *,
    approval_callback: ApprovalCallback | None = None,
    origin: str = "foreground",
) -> str:
    """One memory tool call as the agent makes it; returns the JSON text the model sees."""
    if store is None:
        return _tool_error(NOT_AVAILABLE)
    if target is None:
        target = "memory"
    if target not in ("memory", "user"):
        return _tool_error(msg.invalid_target(target))
    if operations:
        if not isinstance(operations, list):
            return _tool_error(OPERATIONS_NOT_A_LIST)
        summary, detail = _batch_summary(target, operations)
        payload = {"action": "batch", "target": target, "operations": operations}
        gated = _gate(store, summary, detail, payload, approval_callback=approval_callback, origin=origin)
        return gated if gated is not None else _dump(store.apply_batch(target, operations))
    if action == "add" and not content:
        return _tool_error("Content is required for 'add' action.")
    if action in ("replace", "remove") and not old_text:
        entries = store.entries(target)
        return _dump(
            {
                "success": False,
                "error": (
                    f"'{action}' needs old_text -- a short unique substring of the entry to {action}. None "
                    f"was provided. Reissue the {action} with old_text set to part of one of the "
                    "current_entries below."
                ),
                "current_entries": list(entries),
                "usage": failure_usage(char_count(entries), store.limit_for(target)),
            }
        )
    if action == "replace" and not content:
        return _tool_error("content is required for 'replace' action.")
    if action not in ("add", "replace", "remove"):
        return _tool_error(f"Unknown action '{action}'. Use: add, replace, remove")
    summary, detail = _single_summary(action, target, content, old_text)
    payload = {"action": action, "target": target, "content": content, "old_text": old_text}
    gated = _gate(store, summary, detail, payload, approval_callback=approval_callback, origin=origin)
    if gated is not None:
        return gated
    if action == "add":
        return _dump(store.add(target, content or ""))
    if action == "replace":
        return _dump(store.replace(target, old_text or "", content or ""))
    return _dump(store.remove(target, old_text or ""))

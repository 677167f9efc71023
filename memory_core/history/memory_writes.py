"""The agent's ``memory`` tool calls in ``state.db`` (sessions.md §6), as provenance events.

Two short reads, of rows in every state (rewound and compacted rows are real history): the
results (``tool_name = 'memory'``), then the calls (``tool_calls`` naming ``memory``) of the
sessions holding a successful result, so a history full of failed or unanswered calls costs
little more than the index lookup. A call
counts when its result says it wrote; the same call stored again (a branch's copy, compaction's
re-inserted tail: same ``tool_call_id`` and arguments) counts once, at its earliest row. Each
successful result's usage line (``"43/1,375 chars"``) is also a point of the store's budget
history.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from memory_core.history.db import History
from memory_core.maintenance.provenance import TOOL, WriteEvent, parse_arguments, parse_result, result_wrote

_USAGE = re.compile(r"([\d,]+)\s*/\s*([\d,]+)\s*chars")

_COLUMNS = "m.id, m.session_id, m.role, m.timestamp, m.tool_calls, m.tool_call_id, m.tool_name, m.content, s.source"
# Results first: with the full-text index only the rows holding the token ``memory`` (a result's
# tool name is in the indexed text) are looked at, else the table is scanned once.
_RESULTS_FTS_SQL = (
    "SELECT m.session_id, m.tool_call_id, m.content FROM messages_fts f JOIN messages m ON m.id = f.rowid"
    " WHERE messages_fts MATCH 'memory' AND m.tool_name = 'memory' AND m.role = 'tool'"
)
_RESULTS_SCAN_SQL = (
    "SELECT session_id, tool_call_id, content FROM messages WHERE tool_name = 'memory' AND role = 'tool'"
)
# Then the calls, only in the sessions that hold a successful result (a call and its result are
# stored in the same session, copies included), through the session index.
_CALLS_FROM = (
    " FROM messages m LEFT JOIN sessions s ON s.id = m.session_id"
    " WHERE m.session_id IN ({marks}) AND m.tool_calls IS NOT NULL AND instr(m.tool_calls, 'memory') > 0"
)


@dataclass(frozen=True)
class UsagePoint:
    """A store's size as a successful write reported it."""

    target: str
    at: float
    chars: int
    limit: int


@dataclass(frozen=True)
class MemoryHistory:
    writes: tuple[WriteEvent, ...]
    usage: tuple[UsagePoint, ...]


def _calls(value: Any) -> list[dict[str, Any]]:
    try:
        parsed = json.loads(value) if isinstance(value, str) else value
    except ValueError:
        return []
    return [item for item in parsed if isinstance(item, dict)] if isinstance(parsed, list) else []


def _memory_call(item: dict[str, Any]) -> tuple[str, Any] | None:
    """(call id, arguments) of a ``memory`` call item, nested or flat."""
    function = item.get("function") if isinstance(item.get("function"), dict) else item
    if function.get("name") != "memory":
        return None
    call_id = item.get("id") or item.get("call_id")
    return (str(call_id) if call_id else "", function.get("arguments"))


def usage_point(result: dict[str, Any], *, target: str, at: float) -> UsagePoint | None:
    match = _USAGE.search(str(result.get("usage") or ""))
    if match is None:
        return None
    chars, limit = (int(group.replace(",", "")) for group in match.groups())
    return UsagePoint(target=str(result.get("target") or target), at=at, chars=chars, limit=limit)


def read_memory_history(history: History) -> MemoryHistory:
    indexed = history.caps.fts and not history.caps.missing_triggers
    results: dict[tuple[str, str], dict[str, Any] | None] = {}  # (session, call id) -> parsed result
    any_session: dict[str, dict[str, Any] | None] = {}  # call id -> a successful result in any session
    succeeded: set[str] = set()
    for row in history.rows(_RESULTS_FTS_SQL if indexed else _RESULTS_SCAN_SQL):
        if not row["tool_call_id"]:
            continue
        parsed = parse_result(row["content"])
        results.setdefault((row["session_id"], row["tool_call_id"]), parsed)
        if parsed is not None and parsed.get("success") is True:
            any_session.setdefault(row["tool_call_id"], parsed)
            succeeded.add(row["session_id"])
    sessions = sorted(succeeded)
    rows = []
    for start in range(0, len(sessions), 500):
        chunk = sessions[start:start + 500]
        sql = f"SELECT {_COLUMNS}" + _CALLS_FROM.format(marks=", ".join("?" * len(chunk)))
        rows += history.rows(sql, chunk)
    rows.sort(key=lambda row: (row["timestamp"], row["id"]))
    seen: set[tuple[str, str]] = set()
    writes: list[WriteEvent] = []
    usage: list[UsagePoint] = []
    for row in rows:
        if row["tool_calls"] is None:
            continue
        for item in _calls(row["tool_calls"]):
            call = _memory_call(item)
            if call is None:
                continue
            call_id, arguments = call
            key = (row["session_id"], call_id)
            result = results[key] if key in results else any_session.get(call_id)
            # Most calls are settled by their result alone; only a successful one is looked at further.
            if not call_id or result is None or result.get("success") is not True:
                continue
            raw = arguments if isinstance(arguments, str) else json.dumps(arguments, sort_keys=True)
            if (call_id, raw) in seen:  # a copy of a call already counted (rows are in time order)
                continue
            seen.add((call_id, raw))
            parsed = parse_arguments(arguments)
            if parsed is None:
                continue
            target, ops = parsed
            if not result_wrote(result, ops):
                continue
            writes.append(WriteEvent(
                target=target, ops=ops, at=float(row["timestamp"]), origin=TOOL, order=int(row["id"]),
                session_id=row["session_id"], message_id=int(row["id"]), source=row["source"] or "",
            ))
            point = usage_point(result or {}, target=target, at=float(row["timestamp"]))
            if point is not None:
                usage.append(point)
    return MemoryHistory(writes=tuple(writes), usage=tuple(usage))

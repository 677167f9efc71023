"""The agent's ``memory`` tool calls in ``state.db`` (docs/agent_formats.md §Memory tool calls in history), as
provenance events.

What is read, by capability (explicit columns only, whatever the schema version says):

* the results (``tool_name = 'memory'``, role ``tool``) and the calls (``tool_calls`` naming
  ``memory``) of the sessions holding a successful result. Rows in every state count: a rewind or
  a compaction does not undo a write (docs/agent_formats.md §Memory tool calls in history; docs/memory_core.md "Newer
  agents").
* A call counts when its result says it wrote; the same call stored again (a branch's copy, the
  tail a compaction carries into live rows: same ``tool_call_id`` and arguments) counts once, at
  its earliest row. Each counted result's usage line (``"43/1,375 chars"``) is also a point of
  the store's budget history.

Reading every call of a large history takes a few hundred milliseconds, and the running agent
changes ``state.db`` every turn, so the rows read are kept per file (its path, device and inode,
and the shape of its tables) and the next read only fetches what was appended since: rows with a
larger id. Before that, every kept row and the last row read are fetched again by primary key and
compared; any difference (a row rewritten or deleted, a rewind flag set) means a full re-read, so
the result always equals a fresh full read (tests/maintenance/test_provenance_incremental.py).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from memory_core.caching import MISSING, KeyedCache
from memory_core.history.db import History
from memory_core.maintenance.provenance import TOOL, WriteEvent, parse_arguments, parse_result, result_wrote

_USAGE = re.compile(r"([\d,]+)\s*/\s*([\d,]+)\s*chars")
_CHUNK = 500  # bound parameters per statement, well under SQLite's limit

_RESULT_COLUMNS = "m.id, m.session_id, m.tool_call_id, m.content"
_CALL_COLUMNS = "m.id, m.session_id, m.timestamp, m.tool_calls, s.source"
_RESULT_WHERE = "m.tool_name = 'memory' AND m.role = 'tool'"
_CALL_WHERE = "m.tool_calls IS NOT NULL AND instr(m.tool_calls, 'memory') > 0"
_CALLS_FROM = " FROM messages m LEFT JOIN sessions s ON s.id = m.session_id"


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


def _prepared(call: tuple[str, Any]) -> tuple[str, str, tuple | None]:
    """(call id, the arguments as compared for copies, the parsed target and operations)."""
    call_id, arguments = call
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments, sort_keys=True)
    return call_id, raw, parse_arguments(arguments)


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


# -- what the file offers --------------------------------------------------------------------------


def _indexes_tool_name(history: History) -> bool:
    """Whether ``messages_fts`` holds each row's tool name (0.19.0's inline index, kept in step by
    its triggers). Newer shapes index other text (v30: an external-content index over a view), so
    a ``MATCH 'memory'`` there could miss a result whose content never says "memory"."""
    caps = history.caps
    # A backfill in progress (``unindexed``) leaves recent rows out of the index: scan instead.
    if not caps.fts or caps.missing_triggers or getattr(caps, "unindexed", None) is not None:
        return False
    row = history.one("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'messages_fts_insert'")
    sql = (row[0] or "") if row is not None else ""
    return "new.tool_name" in sql.replace(" ", "")


def _shape(history: History) -> tuple:
    """What the reader's queries depend on; a file upgraded in place (same inode) differs here."""
    caps = history.caps
    return (caps.version, caps.session_columns, caps.message_columns, caps.fts, caps.missing_triggers,
            getattr(caps, "unindexed", None))


# -- reading rows ----------------------------------------------------------------------------------


@dataclass
class _Rows:
    """The rows a history's memory writes are folded from, by message id, each parsed once. Only
    rows that can matter are kept: every ``memory`` result, and the rows whose ``tool_calls``
    hold a ``memory`` call (the word alone, in another tool's arguments, is not enough)."""

    results: dict[int, tuple[tuple, dict[str, Any] | None]] = field(default_factory=dict)  # id -> (row, parsed)
    calls: dict[int, tuple[tuple, tuple[tuple[str, str, tuple | None], ...]]] = field(default_factory=dict)
    by_call_id: dict[str, tuple[int, ...]] = field(default_factory=dict)  # call id -> call rows holding it
    answered: frozenset[str] = frozenset()  # call ids that have a result row
    succeeded: frozenset[str] = frozenset()  # sessions holding a successful result
    high: int = 0  # the largest message id when read
    last: tuple | None = None  # that row, as ``_last`` reads it
    changes: int = 0  # rows added or dropped since the copy (0: the last fold still stands)

    def add_result(self, row: tuple) -> None:
        parsed = parse_result(row[3]) if row[2] else None
        self.results[row[0]] = (row, parsed)
        self.changes += 1
        if row[2]:
            self.answered = self.answered | {row[2]}
        if parsed is not None and parsed.get("success") is True:
            self.succeeded = self.succeeded | {row[1]}

    def add_call(self, row: tuple) -> None:
        self.drop_call(row[0])
        found = tuple(_prepared(call) for call in map(_memory_call, _calls(row[3])) if call is not None)
        if not found:
            return
        self.calls[row[0]] = (row, found)
        self.changes += 1
        for call_id in {call[0] for call in found}:
            self.by_call_id[call_id] = (*self.by_call_id.get(call_id, ()), row[0])

    def drop_call(self, message_id: int) -> None:
        kept = self.calls.pop(message_id, None)
        if kept is None:
            return
        self.changes += 1
        for call_id in {call[0] for call in kept[1]}:
            rest = tuple(i for i in self.by_call_id.get(call_id, ()) if i != message_id)
            if rest:
                self.by_call_id[call_id] = rest
            else:
                self.by_call_id.pop(call_id, None)

    def calls_answered_by(self, call_ids: Iterable[str]) -> list[int]:
        return sorted({message_id for call_id in call_ids for message_id in self.by_call_id.get(call_id, ())})

    def copy(self) -> _Rows:
        return _Rows(results=dict(self.results), calls=dict(self.calls), by_call_id=dict(self.by_call_id),
                     answered=self.answered, succeeded=self.succeeded, high=self.high, last=self.last)


# The last row read stands for "nothing at or below it was replaced": in a table whose ids can be
# reused (no AUTOINCREMENT), a deleted last row and a new one under its id must not look the same.
_LAST_COLUMNS = ("id", "session_id", "role", "timestamp", "content", "tool_calls", "tool_name", "tool_call_id",
                 "active", "compacted")


def _high(history: History) -> int:
    row = history.one("SELECT max(id) FROM messages")
    return int(row[0]) if row is not None and row[0] is not None else 0


def _last(history: History, high: int) -> tuple | None:
    if not high:
        return None
    columns = ", ".join(c for c in _LAST_COLUMNS if c in history.caps.message_columns)
    row = history.one(f"SELECT {columns} FROM messages WHERE id = ?", (high,))  # noqa: S608 - known names
    return tuple(row) if row is not None else None


def _chunks(values: Sequence[Any]) -> Iterable[Sequence[Any]]:
    for start in range(0, len(values), _CHUNK):
        yield values[start:start + _CHUNK]


def _calls_of(history: History, sessions: Iterable[str], *, above: int, upto: int) -> list[tuple]:
    ordered = sorted(sessions)
    rows: list[tuple] = []
    for chunk in _chunks(ordered):
        marks = ", ".join("?" * len(chunk))
        # ``+m.id``: the session index drives the lookup, never a range scan of the whole table.
        sql = (f"SELECT {_CALL_COLUMNS}{_CALLS_FROM} WHERE m.session_id IN ({marks}) AND {_CALL_WHERE}"
               " AND +m.id > ? AND +m.id <= ?")
        rows += [tuple(row) for row in history.rows(sql, [*chunk, above, upto])]
    return rows


def _full_read(history: History) -> _Rows:
    found = _Rows()
    found.high = _high(history)
    found.last = _last(history, found.high)
    if _indexes_tool_name(history):
        # Only the rows holding the token ``memory`` (a result's tool name is in 0.19.0's indexed
        # text) are looked at, instead of scanning the table once.
        sql = (f"SELECT {_RESULT_COLUMNS} FROM messages_fts f JOIN messages m ON m.id = f.rowid"  # noqa: S608
               f" WHERE messages_fts MATCH 'memory' AND {_RESULT_WHERE} AND +m.id <= ?")
    else:
        sql = f"SELECT {_RESULT_COLUMNS} FROM messages m WHERE {_RESULT_WHERE} AND m.id <= ?"  # noqa: S608
    for row in history.rows(sql, (found.high,)):
        found.add_result(tuple(row))
    for row in _calls_of(history, found.succeeded, above=0, upto=found.high):
        found.add_call(row)
    return found


def _refetch(history: History, ids: Sequence[int], columns: str, source: str) -> dict[int, tuple]:
    found: dict[int, tuple] = {}
    for chunk in _chunks(sorted(ids)):
        marks = ", ".join("?" * len(chunk))
        for row in history.rows(f"SELECT {columns}{source} WHERE m.id IN ({marks})", chunk):
            found[row[0]] = tuple(row)
    return found


def _unchanged(history: History, kept: _Rows) -> bool:
    """Whether the rows the writes come from still read the same: every result, every call that
    has a result, and the last row read. A call still waiting for its result is read again when
    the result arrives (``_extend``), so the check grows with the memory calls, not the history."""
    if _last(history, kept.high) != kept.last:
        return False
    checked = (
        (kept.results, list(kept.results), _RESULT_COLUMNS, " FROM messages m"),
        (kept.calls, kept.calls_answered_by(kept.answered), _CALL_COLUMNS, _CALLS_FROM),
    )
    for rows, ids, columns, source in checked:
        now = _refetch(history, ids, columns, source)
        if len(now) != len(ids) or any(rows[message_id][0] != row for message_id, row in now.items()):
            return False  # a row was deleted or rewritten
    return True


def _extend(history: History, kept: _Rows) -> _Rows:
    """``kept`` plus the rows appended after it (a new object; ``kept`` stays as it was)."""
    found = kept.copy()
    found.high = _high(history)
    found.last = _last(history, found.high)
    if found.high == kept.high:
        return found
    answered = kept.answered
    sql = f"SELECT {_RESULT_COLUMNS} FROM messages m WHERE m.id > ? AND m.id <= ? AND {_RESULT_WHERE}"  # noqa: S608
    for row in history.rows(sql, (kept.high, found.high)):
        found.add_result(tuple(row))
    # Kept calls whose result just arrived were not checked while unanswered: read them again.
    waiting = found.calls_answered_by(found.answered - answered)
    now = _refetch(history, waiting, _CALL_COLUMNS, _CALLS_FROM)
    for message_id in waiting:
        if message_id in now:
            found.add_call(now[message_id])
        else:
            found.drop_call(message_id)
    # The appended calls, by id range (the primary key), of every session holding a success.
    sql = f"SELECT {_CALL_COLUMNS}{_CALLS_FROM} WHERE m.id > ? AND m.id <= ? AND {_CALL_WHERE}"
    for row in history.rows(sql, (kept.high, found.high)):
        if row[1] in found.succeeded:
            found.add_call(tuple(row))
    # A session whose first successful result just arrived: its earlier calls were never read.
    for row in _calls_of(history, found.succeeded - kept.succeeded, above=0, upto=kept.high):
        found.add_call(row)
    return found


# -- folding rows into writes ------------------------------------------------------------------------


def _fold(found: _Rows) -> MemoryHistory:
    results: dict[tuple[str, str], dict[str, Any] | None] = {}  # (session, call id) -> parsed result
    any_session: dict[str, dict[str, Any] | None] = {}  # call id -> a successful result in any session
    for message_id in sorted(found.results):
        row, parsed = found.results[message_id]
        if not row[2]:
            continue
        results.setdefault((row[1], row[2]), parsed)
        if parsed is not None and parsed.get("success") is True:
            any_session.setdefault(row[2], parsed)
    # Only calls that have a result can have written; the others wait in ``found`` for theirs.
    answered = (found.calls[message_id] for message_id in found.calls_answered_by(found.answered))
    rows = sorted(answered, key=lambda kept: (kept[0][2], kept[0][0]))
    seen: set[tuple[str, str]] = set()
    writes: list[WriteEvent] = []
    usage: list[UsagePoint] = []
    for (message_id, session_id, timestamp, _tool_calls, source), calls in rows:
        for call_id, raw, parsed in calls:
            key = (session_id, call_id)
            result = results[key] if key in results else any_session.get(call_id)
            # Most calls are settled by their result alone; only a successful one is looked at further.
            if not call_id or result is None or result.get("success") is not True:
                continue
            if (call_id, raw) in seen:  # a copy of a call already counted (rows are in time order)
                continue
            seen.add((call_id, raw))
            if parsed is None:
                continue
            target, ops = parsed
            if not result_wrote(result, ops):
                continue
            writes.append(WriteEvent(
                target=target, ops=ops, at=float(timestamp), origin=TOOL, order=int(message_id),
                session_id=session_id, message_id=int(message_id), source=source or "",
            ))
            point = usage_point(result or {}, target=target, at=float(timestamp))
            if point is not None:
                usage.append(point)
    return MemoryHistory(writes=tuple(writes), usage=tuple(usage))


# -- the per-file cache ------------------------------------------------------------------------------

_lock = threading.Lock()
# realpath of state.db -> (rows, folded history) under the file's identity (device, inode, table
# shape); the rows are then checked and extended, never trusted blindly (see the module docstring).
_kept = KeyedCache("memory writes read from state.db", size=16)
_stats = {"full": 0, "incremental": 0}  # how reads were served (tests and the benchmark look)


def _identity(history: History) -> tuple[str, tuple] | None:
    try:
        st = os.stat(history.path)
    except OSError:
        return None
    return os.path.realpath(history.path), (st.st_dev, st.st_ino, _shape(history))


class _Snapshot:
    """One read transaction, so the checks and the appended rows come from the same state of the
    file; it ends (and with it the snapshot) before the read returns."""

    def __init__(self, history: History) -> None:
        self.conn = history.conn

    def __enter__(self) -> None:
        if not self.conn.in_transaction:
            # Without it each statement still reads a consistent state, only less tightly matched.
            with contextlib.suppress(sqlite3.Error):
                self.conn.execute("BEGIN")

    def __exit__(self, *exc: object) -> None:
        if self.conn.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                self.conn.execute("COMMIT")


def read_memory_history_full(history: History) -> MemoryHistory:
    """Every recorded memory write, read from scratch (nothing kept)."""
    with _Snapshot(history):
        return _fold(_full_read(history))


def read_memory_history(history: History) -> MemoryHistory:
    """Every recorded memory write of ``history``; after the first read of a file only the rows
    appended since are fetched (see the module docstring)."""
    ident = _identity(history)
    hit = _kept.get(ident[0], ident[1]) if ident is not None else MISSING
    with _Snapshot(history):
        if hit is not MISSING and _unchanged(history, hit[0]):
            if _high(history) == hit[0].high:
                return hit[1]
            rows = _extend(history, hit[0])
            kind = "incremental"
        else:
            rows = _full_read(history)
            kind = "full"
    # Turns without a memory call add no row that matters: the last fold still stands.
    folded = hit[1] if kind == "incremental" and not rows.changes else _fold(rows)
    if ident is not None:
        _kept.put(ident[0], ident[1], (rows, folded))
        with _lock:
            _stats[kind] += 1
    return folded


def forget_kept() -> None:
    """Drop every kept read and its counters (the tests of this module count reads from nothing)."""
    _kept.clear()
    with _lock:
        _stats.update(full=0, incremental=0)


def read_counts() -> dict[str, int]:
    with _lock:
        return dict(_stats)

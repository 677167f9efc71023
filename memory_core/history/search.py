"""Full-text search over ``state.db`` with the agent's rules (docs/agent_formats.md §Session history, docs/api.md
§Session routes) and the panel's
documented fixes (§Deviations from 0.19.0, §Deviations from 0.19.0).
"""

# SQL is assembled only from fixed fragments and placeholders; values always go as parameters.
# ruff: noqa: S608

from __future__ import annotations

import os
import re
import sqlite3
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memory_core.history.db import (
    History,
    classify,
    connect_read_only,
    is_state_error,
    open_history,
    read_capabilities,
)
from memory_core.history.sessions import (
    compression_root,
    compression_tip,
    content_text,
    escape_like,
    has_hidden_sessions,
    listable_candidates_by_id,
    visible_clause,
)

MAX_FTS5_QUERY_CHARS = 2048
SNIPPET_OPEN, SNIPPET_CLOSE, SNIPPET_CUT = ">>>", "<<<", "..."
OPERATORS = ("AND", "OR", "NOT")
CONTEXT_CHARS = 200

_FTS_SPECIAL = re.compile(r'[+{}():^"]')
_STARS = re.compile(r"\*+")
_LEADING_STAR = re.compile(r"(^|(?<=\s))\*")
_LEADING_OPERATOR = re.compile(r"^(?:AND|OR|NOT)\b\s*", re.IGNORECASE)
_TRAILING_OPERATOR = re.compile(r"\s+(?:AND|OR|NOT)$", re.IGNORECASE)
_JOINED_WORDS = re.compile(r"\w+(?:[._-]\w+)+")
_PLACEHOLDER = "\ue000{}\ue001"
_PLACEHOLDER_RE = re.compile("\ue000(\\d+)\ue001")
_CJK_RANGES = ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x3000, 0x303F), (0x3040, 0x309F),
               (0x30A0, 0x30FF), (0xAC00, 0xD7AF))
_ROUTE_RUNS = re.compile(r'"[^"]*"|\S+')


def is_cjk(char: str) -> bool:
    code = ord(char)
    return any(lo <= code <= hi for lo, hi in _CJK_RANGES)


def cjk_count(text: str) -> int:
    return sum(1 for ch in text if is_cjk(ch))


def sanitize_fts5_query(query: str) -> str:
    """``_sanitize_fts5_query`` of docs/agent_formats.md §Session history, step by step."""
    text = query[:MAX_FTS5_QUERY_CHARS]
    phrases: list[str] = []
    pieces: list[str] = []
    pos = 0
    while pos < len(text):  # step 2: pair quotes; an unpaired one becomes a space
        quote = text.find('"', pos)
        if quote < 0:
            pieces.append(text[pos:])
            break
        pieces.append(text[pos:quote])
        close = text.find('"', quote + 1)
        if close < 0:
            pieces.append(" " + text[quote + 1:])
            break
        pieces.append(_PLACEHOLDER.format(len(phrases)))
        phrases.append(text[quote:close + 1])
        pos = close + 1
    text = "".join(pieces)
    text = _FTS_SPECIAL.sub(" ", text)  # step 3
    text = _STARS.sub("*", text)  # step 4
    text = _LEADING_STAR.sub("", text)
    text = text.strip()  # step 5
    text = _LEADING_OPERATOR.sub("", text, count=1).strip()
    text = _TRAILING_OPERATOR.sub("", text, count=1)
    text = _JOINED_WORDS.sub(lambda m: f'"{m.group(0)}"', text)  # step 6
    text = _PLACEHOLDER_RE.sub(lambda m: phrases[int(m.group(1))], text)  # step 7
    return text.strip()


def route_query(q: str) -> str:
    """The dashboard route's prefix rewrite (docs/api.md §Session routes step 4) with the fixes of §Deviations from
    0.19.0: a quoted run or a
    run ending in ``*`` is kept; the bare operators and runs holding CJK get no ``*``; every other
    run gets one."""
    runs = []
    for run in _ROUTE_RUNS.findall(q):
        if run.startswith('"') or run.endswith("*") or run in OPERATORS or cjk_count(run):
            runs.append(run)
        else:
            runs.append(run + "*")
    return " ".join(runs)


@dataclass
class MessageHits:
    """Hits of ``search_messages``; ``unparsable`` when FTS5 rejected the query (docs/api.md §Deviations from
    0.19.0)."""

    hits: list[dict[str, Any]] = field(default_factory=list)
    unparsable: bool = False
    path: str = "fts"


_HIT_COLUMNS = ("m.id, m.session_id, m.role, {snippet} AS snippet, m.content, m.timestamp, m.tool_name,"
                " s.source, s.model, s.started_at AS session_started")


def _filters(history: History, source_filter, exclude_sources, role_filter, *, live_only: bool,
             include_hidden: bool = True) -> tuple[str, list[Any]]:
    clauses: list[str] = []
    params: list[Any] = []
    if live_only:
        clauses.append(visible_clause(history))
    if not include_hidden and has_hidden_sessions(history):
        clauses.append("COALESCE(s.hidden, 0) = 0")
    for column, values, op in (("s.source", source_filter, "IN"), ("s.source", exclude_sources, "NOT IN"),
                               ("m.role", role_filter, "IN")):
        if values:
            clauses.append(f"{column} {op} ({', '.join('?' * len(values))})")
            params.extend(values)
    return "".join(f" AND {c}" for c in clauses), params


def _order(sort: str | None) -> str:
    key = (sort or "").strip().lower()
    if key == "newest":
        return "m.timestamp DESC, rank"
    if key == "oldest":
        return "m.timestamp ASC, rank"
    return "rank"


def _fts(history: History, table: str, match: str, extra: str, params: list[Any], order: str,
         limit: int, offset: int) -> list[dict[str, Any]]:
    snippet = f"snippet({table}, 0, '{SNIPPET_OPEN}', '{SNIPPET_CLOSE}', '{SNIPPET_CUT}', 40)"
    sql = (
        f"SELECT {_HIT_COLUMNS.format(snippet=snippet)} FROM {table}"
        f" JOIN messages m ON m.id = {table}.rowid JOIN sessions s ON s.id = m.session_id"
        f" WHERE {table} MATCH ?{extra} ORDER BY {order} LIMIT ? OFFSET ?"
    )
    return [dict(r) for r in history.conn.execute(sql, [match, *params, limit, offset]).fetchall()]


def _like_snippet(rows: list[dict[str, Any]], terms: list[str]) -> list[dict[str, Any]]:
    first = terms[0].lower()
    for row in rows:
        content = row["content"] if isinstance(row["content"], str) else ""
        at = content.lower().find(first)
        start = max(0, at - 40) if at >= 0 else 0
        row["snippet"] = content[start:start + 120]
    return rows


def _like(history: History, raw: str, tokens: list[str], extra: str, params: list[Any],
          limit: int, offset: int, *, within: str = "", within_params: tuple = ()) -> list[dict[str, Any]]:
    """Rows holding any of the terms as plain text, newest row first (by id: the scan can stop as
    soon as it has enough; docs/history.md). ``within`` narrows the scan to rows an index leaves out."""
    terms = [t for t in tokens if t.upper() not in OPERATORS] or [raw]
    conditions, like_params = [], []
    for term in terms:
        pattern = f"%{escape_like(term)}%"
        conditions.append("(m.content LIKE ? ESCAPE '\\' OR m.tool_name LIKE ? ESCAPE '\\'"
                          " OR m.tool_calls LIKE ? ESCAPE '\\')")
        like_params.extend([pattern] * 3)
    scope = f" AND ({within})" if within else ""
    sql = (
        f"SELECT {_HIT_COLUMNS.format(snippet='NULL')} FROM messages m JOIN sessions s ON s.id = m.session_id"
        f" WHERE ({' OR '.join(conditions)}){scope}{extra} ORDER BY m.id DESC LIMIT ? OFFSET ?"
    )
    rows = [dict(r) for r in history.rows(sql, [*like_params, *within_params, *params, limit, offset])]
    return _like_snippet(rows, terms)


def _context(history: History, hit: dict[str, Any]) -> list[dict[str, Any]]:
    around = history.rows(
        "SELECT * FROM (SELECT id, role, content, timestamp FROM messages WHERE session_id = ?1"
        " AND (timestamp < ?2 OR (timestamp = ?2 AND id < ?3)) ORDER BY timestamp DESC, id DESC LIMIT 1)"
        " UNION ALL SELECT id, role, content, timestamp FROM messages WHERE id = ?3"
        " UNION ALL SELECT * FROM (SELECT id, role, content, timestamp FROM messages WHERE session_id = ?1"
        " AND (timestamp > ?2 OR (timestamp = ?2 AND id > ?3)) ORDER BY timestamp, id LIMIT 1)",
        (hit["session_id"], hit["timestamp"], hit["id"]),
    )
    return [{"role": r["role"], "content": content_text(r["content"])[:CONTEXT_CHARS]} for r in around]


# --- what an index leaves out (docs/history.md "Search") ----------------------------------------
#
# Rows an index cannot answer for are scanned, never skipped: tool rows longer than the prefix the
# agent indexes, rows a backfill has not reached yet, and (for the trigram index of a v30 file)
# tool rows and cron, subagent and delegated sessions.

_LONG_TOOL_CACHE: dict[tuple, tuple[int, frozenset[int]]] = {}
_LONG_TOOL_LOCK = threading.Lock()
_WARMING: set[tuple] = set()
SCAN_BATCH = 2000
# A request reads at most this many not-yet-known rows for long tool rows itself (the rows appended
# since the last look); a longer stretch is read by a background thread in chunks of WARM_CHUNK,
# and until it is done the request scans that stretch under the same condition (docs/history.md).
INLINE_ROWS = 20_000
WARM_CHUNK = 50_000
_LONG_TOOL_SQL = "SELECT id FROM messages WHERE id > ? AND id <= ? AND role = 'tool' AND length(content) > ?"


def _long_tool_key(path: Path, prefix: int) -> tuple:
    try:
        st = os.stat(path)
        return (str(path), st.st_dev, st.st_ino, prefix)
    except OSError:
        return (str(path), None, None, prefix)


def _known(key: tuple, top: int | None) -> tuple[int, frozenset[int]]:
    """What is known of the file under ``key``: every long tool row up to the first value. Ids only
    grow (the agent's ids are AUTOINCREMENT); a ``top`` below what is known means rows were cut from
    the end or the file was replaced: start again."""
    with _LONG_TOOL_LOCK:
        scanned, ids = _LONG_TOOL_CACHE.get(key, (0, frozenset()))
        if top is not None and top < scanned:
            scanned, ids = 0, frozenset()
            _LONG_TOOL_CACHE[key] = (scanned, ids)
    return scanned, ids


def _learn(key: tuple, low: int, high: int, found: set[int]) -> None:
    """Record that rows ``(low, high]`` were read; kept only when it joins what is already known."""
    with _LONG_TOOL_LOCK:
        scanned, ids = _LONG_TOOL_CACHE.get(key, (0, frozenset()))
        if scanned >= low and high > scanned:
            _LONG_TOOL_CACHE[key] = (high, frozenset(ids | found))


def _read_long_tool_rows(conn: sqlite3.Connection, key: tuple, prefix: int, top: int) -> None:
    scanned, _ids = _known(key, top)
    while scanned < top:
        high = min(top, scanned + WARM_CHUNK)
        found = {r[0] for r in conn.execute(_LONG_TOOL_SQL, (scanned, high, prefix)).fetchall()}
        _learn(key, scanned, high, found)
        # Another reader may have gone further meanwhile: never start again from here.
        scanned, _ids = _known(key, None)


def _warm(path: Path, key: tuple, prefix: int) -> None:
    try:
        conn = connect_read_only(path)
        try:
            top = conn.execute("SELECT COALESCE(MAX(id), 0) FROM messages").fetchone()[0]
            _read_long_tool_rows(conn, key, prefix, int(top))
            # and index their whole text, so the first search does not pay for that either
            history = History(conn=conn, caps=read_capabilities(conn), path=path)
            _long_rows_matching(history, _known(key, None)[1], None)
        finally:
            conn.close()
    except Exception:  # noqa: S110 - a request reads whatever is still unknown itself
        pass
    finally:
        with _LONG_TOOL_LOCK:
            _WARMING.discard(key)


def start_warming(path: Path, prefix: int) -> bool:
    """Read the long tool rows of ``path`` in a background thread (one per file at a time)."""
    key = _long_tool_key(path, prefix)
    with _LONG_TOOL_LOCK:
        if key in _WARMING:
            return False
        _WARMING.add(key)
    threading.Thread(target=_warm, args=(path, key, prefix), name="panel-history-warm", daemon=True).start()
    return True


def warm_history(home: Path) -> bool:
    """Start reading what the first search of ``home``'s history would otherwise read (``serve``
    calls this once it listens); never blocks and never raises."""
    try:
        with open_history(home) as history:
            if history.caps.fts and history.caps.tool_prefix:
                return start_warming(history.path, history.caps.tool_prefix)
    except Exception:  # a missing or unreadable history is reported by the pages
        return False
    return False


def _top(history: History) -> int:
    row = history.one("SELECT MAX(id) AS n FROM messages")
    return int(row["n"] or 0) if row is not None else 0


def long_tool_gap(history: History, prefix: int) -> tuple[frozenset[int], tuple[int, int] | None]:
    """Ids of tool rows longer than ``prefix`` characters, and the id range ``(low, high]`` not
    read yet (``None`` when every row was). A short stretch (rows appended since the last look) is
    read here; a long one is left to a background thread and the caller scans it."""
    key = _long_tool_key(history.path, prefix)
    top = _top(history)
    scanned, ids = _known(key, top)
    if top - scanned <= INLINE_ROWS:
        if top > scanned:
            found = {r[0] for r in history.rows(_LONG_TOOL_SQL, (scanned, top, prefix))}
            _learn(key, scanned, top, found)
            ids = frozenset(ids | found)
        return ids, None
    start_warming(history.path, prefix)
    return ids, (scanned, top)


def long_tool_ids(history: History, prefix: int) -> frozenset[int]:
    """Every id of a tool row longer than ``prefix`` characters (reads what is not known yet)."""
    key = _long_tool_key(history.path, prefix)
    top = _top(history)
    try:
        _read_long_tool_rows(history.conn, key, prefix, top)
    except sqlite3.DatabaseError as exc:
        if isinstance(exc, sqlite3.OperationalError) and not is_state_error(exc):
            raise
        raise classify(exc) from None
    scanned, ids = _known(key, top)
    if scanned < top:  # the file changed under the read: read the rest here
        ids = frozenset(ids | {r[0] for r in history.rows(_LONG_TOOL_SQL, (scanned, top, prefix))})
    return ids


_LONG_TEXT_INDEX: dict[tuple, tuple[sqlite3.Connection, set[int]]] = {}
_LONG_TEXT_LOCK = threading.Lock()
_INDEXED_TEXT = "COALESCE(content, '') || ' ' || COALESCE(tool_name, '') || ' ' || COALESCE(tool_calls, '')"


def _long_rows_matching(history: History, ids: frozenset[int], match: str | None) -> list[int] | None:
    """Which of the long tool rows ``ids`` hold ``match``, from a private FTS5 index of their whole
    text kept per file (the agent never rewrites a row in place: docs/history.md "Speed"), so a
    search tokenizes each long row once rather than every time. ``None`` when FTS5 rejects ``match``."""
    key = _long_tool_key(history.path, history.caps.tool_prefix or 0)
    with _LONG_TEXT_LOCK:
        index, indexed = _LONG_TEXT_INDEX.get(key, (None, set()))
        if index is None or not indexed <= ids:  # rows were read again from the start: begin anew
            if index is not None:
                index.close()
            index = sqlite3.connect(":memory:", check_same_thread=False)
            index.execute("CREATE VIRTUAL TABLE t USING fts5(content, content='')")
            indexed = set()
            _LONG_TEXT_INDEX[key] = (index, indexed)
        missing = sorted(ids - indexed)
        for start in range(0, len(missing), 500):
            chunk = missing[start:start + 500]
            rows = history.rows(f"SELECT id, {_INDEXED_TEXT} AS text FROM messages"
                                f" WHERE id IN ({', '.join('?' * len(chunk))})", chunk)
            index.executemany("INSERT INTO t(rowid, content) VALUES (?, ?)",
                              [(r["id"], r["text"] if isinstance(r["text"], str) else "") for r in rows])
            indexed.update(chunk)
        if match is None:
            return None
        try:
            return [r[0] for r in index.execute("SELECT rowid FROM t WHERE t MATCH ?", (match,)).fetchall()]
        except sqlite3.OperationalError:
            return None


def _gap_for_words(history: History, match: str | None = None) -> tuple[str, list[Any]]:
    """SQL condition (on ``m``) for rows the main index does not hold in full; with ``match``, only
    the known long tool rows that hold it."""
    caps = history.caps
    parts: list[str] = []
    params: list[Any] = []
    if caps.unindexed:
        parts.append("(m.id > ? AND m.id <= ?)")
        params.extend(caps.unindexed)
    if caps.tool_prefix:
        known, unknown = long_tool_gap(history, caps.tool_prefix)
        if known and match is not None:
            matching = _long_rows_matching(history, known, match)
            if matching is not None:
                known = frozenset(matching)
        if known:
            parts.append(f"m.id IN ({', '.join(str(int(i)) for i in sorted(known))})")
        if unknown:
            parts.append("(m.id > ? AND m.id <= ? AND m.role = 'tool' AND length(m.content) > ?)")
            params.extend([*unknown, caps.tool_prefix])
    return " OR ".join(parts), params


_EXCLUDED_FROM_TRIGRAM = (
    "m.role = 'tool' OR m.session_id IN (SELECT x.id FROM sessions x WHERE x.source IN ('cron', 'subagent')"
    " OR COALESCE(x.model_config, '') LIKE '%\"!_delegate!_from\"%' ESCAPE '!')"
)


def _gap_for_trigram(history: History) -> tuple[str, list[Any]]:
    """SQL condition (on ``m``) for rows the trigram index does not hold in full."""
    parts: list[str] = []
    params: list[Any] = []
    if history.caps.trigram_partial:
        parts.append(_EXCLUDED_FROM_TRIGRAM)
    words, word_params = _gap_for_words(history)
    if words:
        parts.append(words)
        params.extend(word_params)
    return " OR ".join(f"({p})" for p in parts), params


def _fts_scan(history: History, match: str, within: str, within_params: list[Any], extra: str,
              params: list[Any], need: int) -> list[dict[str, Any]]:
    """The FTS5 query ``match`` evaluated on rows the index leaves out: read newest first in
    batches, each indexed in a private in-memory table with the agent's default tokenizer, until
    ``need`` rows matched or none are left."""
    hits: list[dict[str, Any]] = []
    below: int | None = None
    # Small first batches: long tool rows are long, and when the newest already match, tokenizing
    # thousands of them would cost more than the search (docs/history.md "Speed").
    batch = max(64, need)
    scratch = sqlite3.connect(":memory:")
    try:
        scratch.execute("CREATE VIRTUAL TABLE t USING fts5(content)")
        while len(hits) < need:
            bound = "" if below is None else " AND m.id < ?"
            rows = history.rows(
                f"SELECT {_HIT_COLUMNS.format(snippet='NULL')}, COALESCE(m.content, '') || ' ' ||"
                " COALESCE(m.tool_name, '') || ' ' || COALESCE(m.tool_calls, '') AS indexed"
                f" FROM messages m JOIN sessions s ON s.id = m.session_id WHERE ({within}){extra}{bound}"
                " ORDER BY m.id DESC LIMIT ?",
                [*within_params, *params, *([below] if below is not None else []), batch])
            if not rows:
                break
            below = rows[-1]["id"]
            scratch.execute("DELETE FROM t")
            scratch.executemany("INSERT INTO t(rowid, content) VALUES (?, ?)",
                                [(r["id"], r["indexed"] if isinstance(r["indexed"], str) else "") for r in rows])
            try:
                matched = dict(scratch.execute(
                    f"SELECT rowid, snippet(t, 0, '{SNIPPET_OPEN}', '{SNIPPET_CLOSE}', '{SNIPPET_CUT}', 40)"
                    " FROM t WHERE t MATCH ?", (match,)).fetchall())
            except sqlite3.OperationalError:
                break  # the index already said whether the query parses
            for r in rows:
                if r["id"] in matched:
                    hit = dict(r)
                    hit.pop("indexed", None)
                    hit["snippet"] = matched[r["id"]]
                    hits.append(hit)
            if len(rows) < batch:
                break
            batch = min(2 * batch, SCAN_BATCH)
    finally:
        scratch.close()
    return hits[:need]


def _merge(indexed: list[dict[str, Any]], scanned: list[dict[str, Any]], sort: str | None,
           limit: int, offset: int) -> list[dict[str, Any]]:
    """Index hits (in the index's order) then scanned ones (newest first), without repeats; by time
    when a time order was asked for."""
    seen: set[int] = set()
    merged = []
    for hit in [*indexed, *scanned]:
        if hit["id"] in seen:
            continue
        seen.add(hit["id"])
        merged.append(hit)
    key = (sort or "").strip().lower()
    if key in ("newest", "oldest"):
        merged.sort(key=lambda h: (h["timestamp"], h["id"]), reverse=key == "newest")
    return merged[offset:offset + limit]


def search_messages(history: History, query: str, *, source_filter: list[str] | None = None,
                    exclude_sources: list[str] | None = None, role_filter: list[str] | None = None,
                    limit: int = 20, offset: int = 0, sort: str | None = None,
                    include_inactive: bool = False, with_context: bool = True,
                    include_hidden: bool = True) -> MessageHits:
    """``search_messages`` of docs/agent_formats.md §Session history–§Session history, with the rewound-row rule also
    on the LIKE path (docs/api.md §Deviations from 0.19.0), and
    every row an index leaves out scanned (docs/history.md)."""
    if not history.caps.fts or not query or not query.strip():
        return MessageHits()
    sanitized = sanitize_fts5_query(query)
    if not sanitized:
        return MessageHits()
    extra, params = _filters(history, source_filter, exclude_sources, role_filter, live_only=not include_inactive,
                             include_hidden=include_hidden)
    want = offset + limit
    try:
        if cjk_count(sanitized):
            raw = sanitized.strip('"').strip()
            tokens = raw.split()
            words = [t for t in tokens if t.upper() not in OPERATORS]
            hits = None
            path = "like"
            if history.caps.trigram and cjk_count(raw) >= 3 and all(cjk_count(t) >= 3 for t in words if cjk_count(t)):
                match = " ".join(t if t.upper() in OPERATORS else '"' + t.replace('"', '""') + '"' for t in tokens)
                try:
                    indexed = _fts(history, "messages_fts_trigram", match, extra, params, _order(sort), want, 0)
                    path = "trigram"
                except sqlite3.OperationalError as exc:
                    if is_state_error(exc):
                        raise classify(exc) from None
                    indexed = None
                if indexed is not None:
                    within, within_params = _gap_for_trigram(history)
                    scanned = _like(history, raw, tokens, extra, params, want, 0, within=within,
                                    within_params=tuple(within_params)) if within else []
                    hits = _merge(indexed, scanned, sort, limit, offset)
            if hits is None:
                hits = _like(history, raw, tokens, extra, params, limit, offset)
        else:
            path = "fts"
            try:
                indexed = _fts(history, "messages_fts", sanitized, extra, params, _order(sort), want, 0)
            except sqlite3.OperationalError as exc:
                if is_state_error(exc):
                    raise classify(exc) from None
                return MessageHits(unparsable=True, path=path)  # FTS5 could not parse the query
            within, within_params = _gap_for_words(history, sanitized)
            scanned = _fts_scan(history, sanitized, within, within_params, extra, params, want) if within else []
            hits = _merge(indexed, scanned, sort, limit, offset)
    except sqlite3.DatabaseError as exc:
        if isinstance(exc, sqlite3.OperationalError) and not is_state_error(exc):
            raise
        raise classify(exc) from None
    for hit in hits:
        if with_context:
            hit["context"] = _context(history, hit)
        hit.pop("content", None)
    return MessageHits(hits=hits, path=path)


def _id_rank(row: dict[str, Any], needle: str) -> int:
    ids = [row["id"].lower()] + ([row["_lineage_root_id"].lower()] if row.get("_lineage_root_id") else [])
    if needle in ids:
        return 0
    if any(i.startswith(needle) for i in ids):
        return 1
    return 2


@dataclass
class SearchAnswer:
    results: list[dict[str, Any]]
    unparsable: bool = False


def clamp_search_limit(value: int | None) -> int:
    return max(1, min(int(value or 20), 100))


def search_sessions(history: History, q: str, *, limit: int = 20, include_hidden: bool = False) -> SearchAnswer:
    """``GET /api/sessions/search`` (docs/api.md §Session routes) with §Deviations from 0.19.0 and §Deviations from
    0.19.0 (``match_message_id``)."""
    if not q or not q.strip():
        return SearchAnswer(results=[])
    limit = clamp_search_limit(limit)
    needle = q.strip().lower()
    candidates: list[tuple[str, dict[str, Any], int | None]] = []
    id_rows = listable_candidates_by_id(history, needle)
    if not include_hidden:
        id_rows = [r for r in id_rows if not r.get("hidden")]
    id_rows = id_rows[: 4 * limit]
    id_rows.sort(key=lambda r: _id_rank(r, needle))
    for row in id_rows:
        candidates.append((row.get("_lineage_root_id") or row["id"], {
            "snippet": row["preview"] or f"Session ID: {row['id']}",
            "role": None,
            "source": row["source"],
            "model": row["model"],
            "session_started": row["started_at"],
        }, None))
    content = search_messages(history, route_query(q), limit=max(5 * limit, 50), with_context=False,
                              include_hidden=include_hidden)
    for hit in content.hits:
        candidates.append((hit["session_id"], {
            "snippet": hit["snippet"],
            "role": hit["role"],
            "source": hit["source"],
            "model": hit["model"],
            "session_started": hit["session_started"],
        }, hit["id"]))
    results: list[dict[str, Any]] = []
    seen: set[str] = set()
    for session_id, result, message_id in candidates:
        root = compression_root(history, session_id)
        if root in seen:
            continue
        seen.add(root)
        result["session_id"] = compression_tip(history, root)
        result["lineage_root"] = root
        result["match_message_id"] = message_id  # docs/api.md §Deviations from 0.19.0
        results.append(result)
        if len(results) >= limit:
            break
    return SearchAnswer(results=results, unparsable=content.unparsable)

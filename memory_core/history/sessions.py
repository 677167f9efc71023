"""Sessions of ``state.db``: listing with the compression projection, lineage, stats, one session,
its messages (docs/agent_formats.md §Session history, docs/api.md §Session routes, §Session routes–§Session routes).
Shapes are 0.19.0's read routes'.
"""

# SQL is assembled only from fixed fragments and placeholders; values always go as parameters.
# ruff: noqa: S608

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from memory_core.history.db import History

ARCHIVED_CHOICES = ("exclude", "only", "include")
ORDER_CHOICES = ("created", "recent")
HIDDEN_SOURCES = ("subagent", "tool")
MULTIMODAL_PREFIX = "\x00json:"
TIP_MAX_STEPS = 100
RESUME_MAX_STEPS = 32
MESSAGES_MAX_LIMIT = 500
ACTIVE_SECONDS = 300
STATS_NEWEST = 10_000

# Fields a compression root shows from its tip in lists (docs/api.md §Session routes "Projection").
PROJECTED_FIELDS = ("id", "ended_at", "end_reason", "message_count", "tool_call_count", "title", "last_active",
                    "preview", "model", "cwd", "git_branch", "git_repo_root", "system_prompt")
FULL_ONLY = ("model_config", "system_prompt")

# Columns the reader names. 0.19.0's (the routes' shapes), then the ones v30 added that are plain
# text or numbers (docs/history.md). A column outside these lists, and any binary value, is never
# read into an answer: ``display_identity`` is a BLOB, and a newer agent may add anything.
SESSION_COLUMNS = (
    "id", "source", "user_id", "session_key", "chat_id", "chat_type", "thread_id", "display_name", "origin_json",
    "expiry_finalized", "model", "model_config", "system_prompt", "parent_session_id", "started_at", "ended_at",
    "end_reason", "message_count", "tool_call_count", "input_tokens", "output_tokens", "cache_read_tokens",
    "cache_write_tokens", "reasoning_tokens", "cwd", "git_branch", "git_repo_root", "billing_provider",
    "billing_base_url", "billing_mode", "estimated_cost_usd", "actual_cost_usd", "cost_status", "cost_source",
    "pricing_version", "title", "api_call_count", "handoff_state", "handoff_platform", "handoff_error",
    "compression_failure_cooldown_until", "compression_failure_error", "compression_fallback_streak",
    "profile_name", "rewind_count", "archived",
    # v30
    "created_source", "system_prompt_hash", "git_metadata_generation", "title_source", "last_activity_at",
    "last_activity_description", "last_activity_provenance", "compression_ineffective_count",
    "compression_recovery_deadline", "compression_overload_streak", "transport_profile", "pinned", "hidden",
    "last_read_at", "tool_names",
)
MESSAGE_COLUMNS = (
    "id", "session_id", "role", "content", "tool_call_id", "tool_calls", "tool_name", "effect_disposition",
    "timestamp", "token_count", "finish_reason", "reasoning", "reasoning_content", "reasoning_details",
    "codex_reasoning_items", "codex_message_items", "platform_message_id", "observed", "active", "compacted",
    "api_content",
    # v30
    "_compressed_summary", "display_kind", "display_metadata", "display_order",
)
HIDDEN_KIND = "hidden"  # display_kind of model-facing scaffolding the agent never shows


def session_columns(history: History, alias: str = "") -> str:
    """The known session columns this file has, for a SELECT list."""
    prefix = f"{alias}." if alias else ""
    return ", ".join(prefix + c for c in SESSION_COLUMNS if c in history.caps.session_columns)


def message_columns(history: History, alias: str = "") -> str:
    prefix = f"{alias}." if alias else ""
    return ", ".join(prefix + c for c in MESSAGE_COLUMNS if c in history.caps.message_columns)


def plain(row: Mapping[str, Any]) -> dict[str, Any]:
    """A row as a dict of JSON-safe values: a binary value (SQLite stores what it is given,
    whatever a column is declared as) is left out."""
    return {k: v for k, v in dict(row).items() if not isinstance(v, (bytes, bytearray, memoryview))}


def visible_clause(history: History, alias: str = "m") -> str:
    """SQL condition: a row the agent shows, live or summarized away by compaction; never a rewound
    row nor hidden scaffolding (docs/history.md)."""
    clause = f"({alias}.active = 1 OR {alias}.compacted = 1)"
    if "display_kind" in history.caps.message_columns:
        clause += f" AND COALESCE({alias}.display_kind, '') <> '{HIDDEN_KIND}'"
    return clause


def has_hidden_sessions(history: History) -> bool:
    return "hidden" in history.caps.session_columns


def _like_marker(key: str) -> str:
    return f"COALESCE({{t}}.model_config, '') LIKE '%\"{key}\"%' ESCAPE '!'"


_DELEGATE = _like_marker("!_delegate!_from")
_BRANCHED = _like_marker("!_branched!_from")


def _listable(alias: str = "s", *, delegates: bool = False) -> str:
    """SQL condition: roots and branch children, never a delegate subagent (docs/agent_formats.md §Session history)
    unless
    ``delegates`` (the page's "hidden sources" filter shows them too)."""
    if delegates:
        return f"({_DELEGATE.format(t=alias)} OR ({_listable(alias)}))"
    return (
        f"NOT ({_DELEGATE.format(t=alias)}) AND ({alias}.parent_session_id IS NULL OR {_BRANCHED.format(t=alias)}"
        f" OR EXISTS (SELECT 1 FROM sessions bp WHERE bp.id = {alias}.parent_session_id"
        f" AND bp.end_reason = 'branched' AND bp.ended_at IS NOT NULL AND {alias}.started_at >= bp.ended_at))"
    )


def _continuation(alias: str = "c") -> str:
    """SQL condition on a child: it carries no branch/delegate marker and its source is not ``tool``."""
    return f"{alias}.source != 'tool' AND NOT ({_DELEGATE.format(t=alias)}) AND NOT ({_BRANCHED.format(t=alias)})"


def escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


# --- content ------------------------------------------------------------------------------------


def decode_content(content: Any) -> Any:
    """Stored content as the routes return it: multimodal rows become their list of parts."""
    if isinstance(content, str) and content.startswith(MULTIMODAL_PREFIX):
        try:
            return json.loads(content[len(MULTIMODAL_PREFIX):])
        except ValueError:
            return content
    return content


def content_text(content: Any) -> str:
    """Readable text of stored content: multimodal text parts joined by a space."""
    decoded = decode_content(content)
    if decoded is None:
        return ""
    if isinstance(decoded, str):
        return decoded
    if isinstance(decoded, list):
        parts = [p.get("text", "") for p in decoded if isinstance(p, dict) and p.get("type") == "text"]
        parts = [p for p in parts if isinstance(p, str) and p]
        return " ".join(parts) if parts else "[multimodal content]"
    return str(decoded)


def preview_of(content: str | None) -> str:
    if content is None:
        return ""
    text = content.replace("\r", " ").replace("\n", " ")[:63].strip()
    return text[:60] + "..." if len(text) > 60 else text


def parse_tool_calls(value: Any) -> Any:
    if value is None:
        return None
    try:
        parsed = json.loads(value)
    except (TypeError, ValueError):
        return []
    return parsed if isinstance(parsed, list) else []


def shape_message(row: Mapping[str, Any]) -> dict[str, Any]:
    """A message as 0.19.0's routes return it (docs/api.md §Session routes step 4)."""
    out = dict(row)
    out["content"] = decode_content(out.get("content"))
    if "tool_calls" in out:
        out["tool_calls"] = parse_tool_calls(out["tool_calls"])
    return out


# --- lineage -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Child:
    id: str
    end_reason: str | None
    ended_at: float | None
    started_at: float
    activity: float


def pick_continuation(children: Iterable[Child]) -> Child | None:
    """The child a compression walk follows: compression-ended first, then a live one, then the
    rest; ties by latest activity, started_at, id, all descending (docs/agent_formats.md §Session history)."""

    def key(c: Child) -> tuple:
        group = 0 if c.end_reason == "compression" else 1 if c.ended_at is None else 2
        return (group, -c.activity, -c.started_at, _desc(c.id))

    ordered = sorted(children, key=key)
    return ordered[0] if ordered else None


class _Desc(str):
    def __lt__(self, other: str) -> bool:  # type: ignore[override]
        return str.__gt__(self, other)


def _desc(text: str) -> _Desc:
    return _Desc(text)


def _children(history: History, parent_id: str) -> list[Child]:
    rows = history.rows(
        "SELECT c.id, c.end_reason, c.ended_at, c.started_at,"
        " COALESCE((SELECT MAX(m.timestamp) FROM messages m WHERE m.session_id = c.id), c.started_at) AS act"
        f" FROM sessions c WHERE c.parent_session_id = ? AND {_continuation('c')}",
        (parent_id,),
    )
    return [Child(r["id"], r["end_reason"], r["ended_at"], r["started_at"], r["act"]) for r in rows]


def compression_chain(history: History, session_id: str) -> list[str]:
    """``session_id`` and each session the compression tip walk visits, in order (docs/agent_formats.md §Session
    history)."""
    chain = [session_id]
    seen = {session_id}
    current = session_id
    for _ in range(TIP_MAX_STEPS):
        row = history.one("SELECT end_reason FROM sessions WHERE id = ?", (current,))
        if row is None or row["end_reason"] != "compression":
            break
        child = pick_continuation(_children(history, current))
        if child is None or child.id in seen:
            break
        chain.append(child.id)
        seen.add(child.id)
        current = child.id
    return chain


def compression_tip(history: History, session_id: str) -> str:
    return compression_chain(history, session_id)[-1]


def compression_root(history: History, session_id: str) -> str:
    """The dedup key of search (docs/api.md §Session routes step 5): up through compression parents ended before the
    child began."""
    current = session_id
    seen = {current}
    while True:
        row = history.one(
            "SELECT p.id FROM sessions c JOIN sessions p ON p.id = c.parent_session_id"
            " WHERE c.id = ? AND p.end_reason = 'compression' AND p.ended_at IS NOT NULL"
            " AND c.started_at >= p.ended_at",
            (current,),
        )
        if row is None or row["id"] in seen:
            return current
        current = row["id"]
        seen.add(current)


def resume_target(history: History, session_id: str) -> str:
    """Where the messages route redirects (docs/api.md §Session routes step 2)."""
    tip = compression_tip(history, session_id)
    visited = [tip]
    current = tip
    for _ in range(RESUME_MAX_STEPS):
        row = history.one(
            f"SELECT c.id FROM sessions c WHERE c.parent_session_id = ? AND {_continuation('c')}"
            " ORDER BY c.started_at DESC, c.id DESC LIMIT 1",
            (current,),
        )
        if row is None or row["id"] in visited:
            break
        current = row["id"]
        visited.append(current)
    for candidate in reversed(visited):
        if history.one("SELECT 1 FROM messages WHERE session_id = ? LIMIT 1", (candidate,)) is not None:
            return candidate
    return tip


def compression_parent(history: History, session_id: str) -> str | None:
    """The segment this one continues, if it is a compression continuation."""
    row = history.one(
        f"SELECT p.id FROM sessions c JOIN sessions p ON p.id = c.parent_session_id"
        f" WHERE c.id = ? AND p.end_reason = 'compression' AND {_continuation('c')}",
        (session_id,),
    )
    return row["id"] if row else None


def continuation_of(history: History, session_id: str) -> str | None:
    """The next segment of a compression-ended session, if any."""
    chain = compression_chain(history, session_id)
    return chain[1] if len(chain) > 1 else None


# --- rows ----------------------------------------------------------------------------------------


def _heartbeat(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _last_active(history: History, session_id: str, started_at: float) -> float:
    """The newest message, or v30's activity heartbeat when it is newer (it is rate-limited, so it
    may also lag the newest message), else the start."""
    row = history.one("SELECT MAX(timestamp) AS t FROM messages WHERE session_id = ?", (session_id,))
    best = row["t"] if row is not None and row["t"] is not None else None
    if "last_activity_at" in history.caps.session_columns:
        beat = history.one("SELECT last_activity_at FROM sessions WHERE id = ?", (session_id,))
        value = _heartbeat(beat["last_activity_at"]) if beat is not None else None
        if value is not None and (best is None or value > best):
            best = value
    return best if best is not None else started_at


def _preview(history: History, session_id: str) -> str:
    row = history.one(
        "SELECT content FROM messages WHERE session_id = ? AND role = 'user' AND content IS NOT NULL"
        + (f" AND COALESCE(display_kind, '') <> '{HIDDEN_KIND}'" if "display_kind" in history.caps.message_columns
           else "") + " ORDER BY timestamp, id LIMIT 1",
        (session_id,),
    )
    return preview_of(row["content"]) if row is not None else ""


def resolve_session_id(history: History, session_id: str) -> str | None:
    """Exact id, else the one id starting with ``session_id`` (docs/api.md §Session routes)."""
    if history.one("SELECT 1 FROM sessions WHERE id = ?", (session_id,)) is not None:
        return session_id
    if not session_id:
        return None
    rows = history.rows("SELECT id FROM sessions WHERE id LIKE ? ESCAPE '\\' LIMIT 2",
                        (escape_like(session_id) + "%",))
    return rows[0]["id"] if len(rows) == 1 else None


def session_row(history: History, session_id: str) -> dict[str, Any] | None:
    row = history.one(f"SELECT {session_columns(history)} FROM sessions WHERE id = ?", (session_id,))
    if row is None:
        return None
    return with_prompts(history, [plain(row)])[0]


def with_prompts(history: History, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Fill ``system_prompt`` from v30's ``system_prompts`` where the row keeps only its hash (an
    inline prompt, kept by rows the agent has not moved yet, wins)."""
    if not history.caps.system_prompts:
        return rows
    wanted = sorted({r["system_prompt_hash"] for r in rows if r.get("system_prompt") is None
                     and isinstance(r.get("system_prompt_hash"), str)})
    prompts: dict[str, str] = {}
    for start in range(0, len(wanted), 500):
        chunk = wanted[start:start + 500]
        marks = ", ".join("?" * len(chunk))
        prompts.update((r["hash"], r["prompt"]) for r in history.rows(
            f"SELECT hash, prompt FROM system_prompts WHERE hash IN ({marks})", chunk) if isinstance(r["prompt"], str))
    for r in rows:
        if r.get("system_prompt") is None and r.get("system_prompt_hash") in prompts:
            r["system_prompt"] = prompts[r["system_prompt_hash"]]
    return rows


@dataclass(frozen=True)
class ListFilters:
    limit: int = 20
    offset: int = 0
    min_messages: int = 0
    archived: str = "exclude"
    order: str = "created"
    source: str = ""
    exclude_sources: tuple[str, ...] = ()
    cwd_prefix: str = ""
    full: bool = False
    # Panel-only filters (the page): a time range on started_at.
    started_from: float | None = None
    started_to: float | None = None
    include_delegates: bool = False
    # v30 sessions the agent hides from its own lists are left out unless asked for.
    include_hidden: bool = False


def _where(history: History, filters: ListFilters) -> tuple[str, list[Any]]:
    clauses = [_listable("s", delegates=filters.include_delegates)]
    params: list[Any] = []
    if not filters.include_hidden and has_hidden_sessions(history):
        clauses.append("COALESCE(s.hidden, 0) = 0")
    if filters.archived == "exclude":
        clauses.append("COALESCE(s.archived, 0) = 0")
    elif filters.archived == "only":
        clauses.append("s.archived = 1")
    if filters.source:
        clauses.append("s.source = ?")
        params.append(filters.source)
    if filters.exclude_sources:
        clauses.append(f"s.source NOT IN ({', '.join('?' * len(filters.exclude_sources))})")
        params.extend(filters.exclude_sources)
    if filters.cwd_prefix:
        prefix = filters.cwd_prefix.rstrip("/\\")
        clauses.append("(s.cwd = ? OR s.cwd LIKE ? ESCAPE '\\' OR s.cwd LIKE ? ESCAPE '\\')")
        params.extend([prefix, escape_like(prefix) + "/%", escape_like(prefix) + "\\\\%"])
    if filters.min_messages > 0:
        clauses.append("s.message_count >= ?")
        params.append(filters.min_messages)
    if filters.started_from is not None:
        clauses.append("s.started_at >= ?")
        params.append(filters.started_from)
    if filters.started_to is not None:
        clauses.append("s.started_at < ?")
        params.append(filters.started_to)
    return " AND ".join(clauses), params


def _project(history: History, row: dict[str, Any], *, full: bool, now: float) -> dict[str, Any]:
    """One list row: columns, ``last_active``, ``preview``, the tip projection, ``is_active``."""
    out = dict(row)
    if not full:
        for key in FULL_ONLY:
            out.pop(key, None)
    out["archived"] = bool(out.get("archived"))
    out["last_active"] = _last_active(history, row["id"], row["started_at"])
    out["preview"] = _preview(history, row["id"])
    if row.get("end_reason") == "compression":
        tip_id = compression_tip(history, row["id"])
        if tip_id != row["id"]:
            tip = session_row(history, tip_id) or {}
            tip["last_active"] = _last_active(history, tip_id, tip.get("started_at", row["started_at"]))
            tip["preview"] = _preview(history, tip_id)
            for key in PROJECTED_FIELDS:
                if key in out and key in tip:
                    out[key] = tip[key]
            out["_lineage_root_id"] = row["id"]
    out["is_active"] = out.get("ended_at") is None and now - out["last_active"] < ACTIVE_SECONDS
    return out


def effective_activity(history: History, session_id: str, started_at: float) -> float:
    """The latest activity over a row and its forward compression chain (docs/api.md §Session routes ``recent``)."""
    best = _last_active(history, session_id, started_at)
    for segment in compression_chain(history, session_id)[1:]:
        row = history.one("SELECT started_at FROM sessions WHERE id = ?", (segment,))
        if row is not None:
            best = max(best, _last_active(history, segment, row["started_at"]))
    return best


def _recent_ids(history: History, where: str, params: list[Any]) -> list[str]:
    """Every matching id in ``recent`` order. Activity is read in bulk: one grouped scan, then the
    compression chains walked in memory with the same continuation rule as the tip walk."""
    rows = history.rows(f"SELECT s.id, s.started_at, s.end_reason FROM sessions s WHERE {where}", params)
    latest = {r[0]: r[1] for r in history.rows("SELECT session_id, MAX(timestamp) FROM messages GROUP BY session_id")}
    if "last_activity_at" in history.caps.session_columns:
        for r in history.rows("SELECT id, last_activity_at FROM sessions WHERE last_activity_at IS NOT NULL"):
            beat = _heartbeat(r[1])
            if beat is not None and (latest.get(r[0]) is None or beat > latest[r[0]]):
                latest[r[0]] = beat
    compressed = [r for r in rows if r["end_reason"] == "compression"]
    effective: dict[str, float] = {}
    graph: dict[str, list[Child]] = {}
    info: dict[str, Any] = {}
    if compressed:
        for c in history.rows(
            "SELECT c.id, c.parent_session_id, c.end_reason, c.ended_at, c.started_at FROM sessions c"
            f" WHERE c.parent_session_id IS NOT NULL AND {_continuation('c')}"
        ):
            child = Child(c["id"], c["end_reason"], c["ended_at"], c["started_at"],
                          latest.get(c["id"], c["started_at"]))
            graph.setdefault(c["parent_session_id"], []).append(child)
            info[c["id"]] = child
    for r in rows:
        best = latest.get(r["id"], r["started_at"])
        current, end_reason, seen = r["id"], r["end_reason"], {r["id"]}
        for _ in range(TIP_MAX_STEPS):
            if end_reason != "compression":
                break
            nxt = pick_continuation(graph.get(current, ()))
            if nxt is None or nxt.id in seen:
                break
            best = max(best, nxt.activity)
            current, end_reason = nxt.id, nxt.end_reason
            seen.add(current)
        effective[r["id"]] = best
    ordered = sorted(rows, key=lambda r: (-effective[r["id"]], -r["started_at"], _desc(r["id"])))
    return [r["id"] for r in ordered]


def activity_summary(history: History, filters: ListFilters) -> tuple[int, float | None]:
    """How many sessions ``filters`` list, and the latest activity in the whole history (the newest
    message of any session, compression continuations and subagents included; else the newest
    start), without building the list."""
    where, params = _where(history, filters)
    total = history.one(f"SELECT COUNT(*) AS n FROM sessions s WHERE {where}", params)["n"]
    beats = " UNION ALL SELECT MAX(last_activity_at) FROM sessions" if (
        "last_activity_at" in history.caps.session_columns) else ""
    latest = history.one(
        "SELECT MAX(t) AS t FROM (SELECT MAX(timestamp) AS t FROM messages"
        f" UNION ALL SELECT MAX(started_at) FROM sessions{beats})"
    )["t"]
    return total, latest


def list_sessions(history: History, filters: ListFilters) -> dict[str, Any]:
    """``{"sessions", "total", "limit", "offset"}`` of ``GET /api/sessions`` (docs/api.md §Session routes)."""
    where, params = _where(history, filters)
    offset = max(0, filters.offset)
    if filters.order == "recent":
        ids = _recent_ids(history, where, params)
        page_ids = ids[offset:] if filters.limit < 0 else ids[offset:offset + filters.limit]
        by_id = {}
        if page_ids:
            marks = ", ".join("?" * len(page_ids))
            by_id = {r["id"]: plain(r) for r in history.rows(
                f"SELECT {session_columns(history)} FROM sessions WHERE id IN ({marks})", page_ids)}
        rows = [by_id[i] for i in page_ids if i in by_id]
        total = len(ids)
    else:
        rows = [plain(r) for r in history.rows(
            f"SELECT {session_columns(history, 's')} FROM sessions s WHERE {where}"
            " ORDER BY s.started_at DESC LIMIT ? OFFSET ?",
            [*params, filters.limit, offset],
        )]
        total = history.one(f"SELECT COUNT(*) AS n FROM sessions s WHERE {where}", params)["n"]
    now = time.time()
    if filters.full:
        rows = with_prompts(history, rows)
    sessions = [_project(history, r, full=filters.full, now=now) for r in rows]
    return {"sessions": sessions, "total": total, "limit": filters.limit, "offset": filters.offset}


def listable_candidates_by_id(history: History, needle: str) -> list[dict[str, Any]]:
    """Listable rows (archived included) whose id or any id of their forward compression chain
    contains ``needle`` (lower-cased), projected, in ``recent`` order (docs/api.md §Session routes step 3)."""
    hits = history.rows("SELECT id FROM sessions WHERE instr(lower(id), ?) > 0", (needle,))
    roots: set[str] = set()
    for hit in hits:
        current, seen = hit["id"], {hit["id"]}
        while True:
            roots.add(current)
            parent = compression_parent(history, current)
            if parent is None or parent in seen:
                break
            seen.add(parent)
            current = parent
    if not roots:
        return []
    marks = ", ".join("?" * len(roots))
    listable = history.rows(
        f"SELECT {session_columns(history, 's')} FROM sessions s WHERE s.id IN ({marks}) AND {_listable('s')}",
        sorted(roots),
    )
    now = time.time()
    keyed = []
    for r in listable:
        row = plain(r)
        chain = compression_chain(history, row["id"])
        if not any(needle in c.lower() for c in chain):
            continue
        keyed.append((effective_activity(history, row["id"], row["started_at"]), row))
    keyed.sort(key=lambda p: (-p[0], -p[1]["started_at"], _desc(p[1]["id"])))
    return [_project(history, row, full=False, now=now) for _, row in keyed]


def stats(history: History) -> dict[str, Any]:
    """``GET /api/sessions/stats`` (docs/api.md §Session routes)."""
    counts = history.one(
        "SELECT COUNT(*) AS total, COALESCE(SUM(archived = 0), 0) AS active_store,"
        " COALESCE(SUM(archived = 1), 0) AS archived FROM sessions"
    )
    messages = history.one("SELECT COUNT(*) AS n FROM messages")["n"]
    by_source: dict[str, int] = {}
    for r in history.rows(
        f"SELECT s.source FROM sessions s WHERE {_listable('s')} ORDER BY s.started_at DESC LIMIT ?",
        (STATS_NEWEST,),
    ):
        key = r["source"] or "cli"
        by_source[key] = by_source.get(key, 0) + 1
    return {"total": counts["total"], "active_store": counts["active_store"], "archived": counts["archived"],
            "messages": messages, "by_source": by_source}


def messages_of(history: History, session_id: str, *, limit: int | None = None, offset: int = 0,
                include_inactive: bool = False) -> list[dict[str, Any]]:
    """Messages of one session in id order, shaped (docs/api.md §Session routes step 3–4, §Session routes
    ``get_messages``)."""
    where = "session_id = ?" if include_inactive else "session_id = ? AND active = 1"
    sql_limit = -1 if limit is None or limit < 0 else min(limit, MESSAGES_MAX_LIMIT)
    rows = history.rows(
        f"SELECT {message_columns(history)} FROM messages WHERE {where} ORDER BY id LIMIT ? OFFSET ?",
        (session_id, sql_limit, max(0, offset)),
    )
    return [shape_message(plain(r)) for r in rows]


# --- the transcript as the agent shows it (docs/history.md) ---------------------------------------
#
# Shown: live rows and rows summarized away by compaction, in display order, one row per display
# position (a compaction's carried tail is written again as new live rows sharing the originals'
# position and identity: the live copy is shown). Not shown unless every row is asked for: rewound
# rows, the superseded originals of a carried tail, and hidden scaffolding. Each row says which.

LIVE, COMPACTED, REWOUND, CARRIED, SCAFFOLDING = "live", "compacted", "rewound", "carried", "scaffolding"


def _dedupe_clause(history: History) -> str:
    if "display_order" not in history.caps.message_columns:
        return ""
    return (" AND (m.display_order IS NULL OR m.id = (SELECT c.id FROM messages c WHERE c.session_id = m.session_id"
            " AND c.display_order = m.display_order AND (c.active = 1 OR c.compacted = 1)"
            " ORDER BY c.active DESC, c.id DESC LIMIT 1))")


def _shown_where(history: History, show_all: bool) -> str:
    if show_all:
        return "m.session_id = ?"
    return f"m.session_id = ? AND {visible_clause(history)}{_dedupe_clause(history)}"


def _display_order(history: History) -> str:
    if "display_order" in history.caps.message_columns:
        return "COALESCE(m.display_order, m.id), m.id"
    return "m.id"


def _state_expr(history: History) -> str:
    """SQL: which of the states above a row is in (compared in SQL; the identity never leaves it)."""
    cols = history.caps.message_columns
    carried = "0"
    if "display_identity" in cols:
        carried = ("(m.display_identity IS NOT NULL AND EXISTS (SELECT 1 FROM messages t WHERE t.session_id ="
                   " m.session_id AND t.id <> m.id AND t.active = 1 AND t.display_identity = m.display_identity))")
    elif "display_order" in cols:
        carried = ("(m.display_order IS NOT NULL AND EXISTS (SELECT 1 FROM messages t WHERE t.session_id ="
                   " m.session_id AND t.id <> m.id AND t.active = 1 AND t.display_order = m.display_order))")
    hidden = f"COALESCE(m.display_kind, '') = '{HIDDEN_KIND}'" if "display_kind" in cols else "0"
    return (f"CASE WHEN {hidden} THEN '{SCAFFOLDING}' WHEN m.active = 1 THEN '{LIVE}'"
            f" WHEN {carried} THEN '{CARRIED}' WHEN m.compacted = 1 THEN '{COMPACTED}' ELSE '{REWOUND}' END")


def transcript_messages(history: History, session_id: str, *, limit: int, offset: int,
                        show_all: bool) -> list[dict[str, Any]]:
    """One page of the transcript, each row with its ``state``."""
    rows = history.rows(
        f"SELECT {message_columns(history, 'm')}, {_state_expr(history)} AS state FROM messages m"
        f" WHERE {_shown_where(history, show_all)} ORDER BY {_display_order(history)} LIMIT ? OFFSET ?",
        (session_id, limit, max(0, offset)),
    )
    return [shape_message(plain(r)) for r in rows]


def transcript_count(history: History, session_id: str, *, show_all: bool) -> int:
    return history.one(f"SELECT COUNT(*) AS n FROM messages m WHERE {_shown_where(history, show_all)}",
                       (session_id,))["n"]


def transcript_locate(history: History, message_id: int, *, show_all: bool) -> tuple[str, bool, int] | None:
    """(session id, shown without "every row", how many rows come before it on the transcript) of
    one message, to open a transcript at a search hit."""
    row = history.one("SELECT m.session_id FROM messages m WHERE m.id = ?", (message_id,))
    if row is None:
        return None
    session_id = row["session_id"]
    shown = history.one(f"SELECT 1 FROM messages m WHERE m.id = ? AND {_shown_where(history, False)}",
                        (message_id, session_id)) is not None
    everything = show_all or not shown
    if "display_order" in history.caps.message_columns:
        key = history.one("SELECT COALESCE(display_order, id) AS k FROM messages WHERE id = ?", (message_id,))["k"]
        before_clause = "(COALESCE(m.display_order, m.id) < ? OR (COALESCE(m.display_order, m.id) = ? AND m.id < ?))"
        params: tuple = (session_id, key, key, message_id)
    else:
        before_clause = "m.id < ?"
        params = (session_id, message_id)
    before = history.one(
        f"SELECT COUNT(*) AS n FROM messages m WHERE {_shown_where(history, everything)} AND {before_clause}",
        params)["n"]
    return session_id, shown, before


def session_summaries(history: History, session_ids: Iterable[str]) -> dict[str, dict[str, Any]]:
    """``{id: {"title", "source", "started_at", "pinned", "hidden"}}`` for the given ids (those that exist)."""
    ids = sorted(set(session_ids))
    out: dict[str, dict[str, Any]] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        marks = ", ".join("?" * len(chunk))
        flags = "".join(f", {c}" for c in ("pinned", "hidden") if c in history.caps.session_columns)
        for r in history.rows(f"SELECT id, title, source, started_at{flags} FROM sessions WHERE id IN ({marks})",
                              chunk):
            row = dict(r)
            out[row["id"]] = {"title": row["title"], "source": row["source"], "started_at": row["started_at"],
                              "pinned": bool(row.get("pinned")), "hidden": bool(row.get("hidden"))}
    return out


def children_of(history: History, session_id: str) -> list[dict[str, Any]]:
    return [dict(r) for r in history.rows(
        "SELECT id, title, source FROM sessions WHERE parent_session_id = ? ORDER BY started_at", (session_id,))]


def export_session(history: History, session_id: str) -> dict[str, Any]:
    """``GET /api/sessions/{id}/export`` (docs/api.md §Session routes): the raw row plus its active messages."""
    row = session_row(history, session_id) or {}
    row["messages"] = messages_of(history, session_id)
    return row


def distinct_sources(history: History) -> list[str]:
    return [r["source"] for r in history.rows("SELECT DISTINCT source FROM sessions ORDER BY source")]

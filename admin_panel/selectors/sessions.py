"""Reads for the Sessions page and API: the agent's history, masked.

Every text that leaves here went through the home's ``SecretMasker`` (docs/api.md §Deviations from 0.19.0). The
masker and the map of sessions holding a secret are kept for a few seconds per home, so a page
and its htmx requests do not read the secret stores and the whole history each time.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from datetime import time as dt_time
from pathlib import Path
from typing import Any

from admin_panel.forms.query import MAX_PAGE, clamped_query_int
from memory_core.caching import KeyedCache, file_signature, home_key
from memory_core.fingerprints import database_fingerprint, stat_token
from memory_core.history import Capabilities, History, HistoryUnavailable, open_history, state_db_path
from memory_core.history import sessions as history_sessions
from memory_core.history.db import CJK_STALE, CJK_UNLOADABLE, MISSING
from memory_core.history.schema import V30_SCHEMA_VERSION
from memory_core.history.search import search_sessions
from memory_core.history.secrets import sessions_with_secrets
from memory_core.secret_masking import SecretMasker
from provider_schemas.reading.secret_values import stored_secret_values

SNIPPET_MARKERS = (">>>", "<<<")
# The keyring has no version to compare: its part of the masker is at most this old (the panel's own
# secret writes drop the home's entries at once, docs/caching.md).
_CACHE_SECONDS = 5.0
# home -> its masker, under .env's stat signature.
_maskers = KeyedCache("secret maskers", size=64, max_age=_CACHE_SECONDS)
# home -> the sessions holding a secret, under the file's stamp and the masker's secrets.
_secret_maps = KeyedCache("sessions holding a secret", size=64, max_age=_CACHE_SECONDS)


def _env_signature(home: Path) -> tuple[int, ...] | None:
    try:
        return file_signature(os.stat(Path(home) / ".env"))
    except OSError:
        return None


def secret_masker(*, home: Path) -> SecretMasker:
    # Keyed by the home as given, not resolved: pages showing many texts ask for it once per text.
    return _maskers.get_or_compute(
        str(home), _env_signature(home), lambda: SecretMasker(stored_secret_values(home=Path(home)))
    )


def history_paths(*, home: Path) -> tuple[Path, Path]:
    """``state.db`` and its write-ahead log: the agent's commits land in the log first."""
    path = state_db_path(home)
    return path, path.with_name(path.name + "-wal")


def history_fingerprint(*, home: Path) -> str:
    """Changes whenever the agent commits to its history (``stat`` calls only, no read). The panel's
    own reads of ``state.db`` leave it unchanged: they touch the log's ctime and the -shm file, and
    may create an empty log."""
    return database_fingerprint(state_db_path(home))


def _file_stamp(path: Path) -> tuple:
    return tuple(stat_token(candidate) for candidate in (path, path.with_name(path.name + "-wal")))


def secret_sessions(history: History, *, home: Path, masker: SecretMasker) -> dict[str, list[str]]:
    """``{ENV_NAME: [session ids]}``, cached while the file and the secrets are unchanged."""
    if not masker:
        return {}
    return _secret_maps.get_or_compute(
        home_key(home),
        (_file_stamp(history.path), masker.names, len(masker.forms)),
        lambda: sessions_with_secrets(history, masker),
    )


def secrets_by_session(found: dict[str, list[str]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for name, ids in found.items():
        for session_id in ids:
            out.setdefault(session_id, []).append(name)
    return {session_id: sorted(names) for session_id, names in out.items()}


def mask_search_results(results: list[dict[str, Any]], masker: SecretMasker) -> list[dict[str, Any]]:
    out = []
    for result in results:
        masked = masker.mask_data({k: v for k, v in result.items() if k != "snippet"})
        masked_result = {}
        for k in result:
            if k == "snippet":
                snippet = result[k]
                masked_result[k] = masker.mask_excerpt(snippet, markers=SNIPPET_MARKERS) if snippet else snippet
            else:
                masked_result[k] = masked[k]
        out.append(masked_result)
    return out


# --- the Sessions page --------------------------------------------------------------------------

PAGE_SIZE = 50
TRANSCRIPT_PAGE_SIZE = 100
SEARCH_LIMIT = 50
LONG_MESSAGE_CHARS = 1500


def epoch(value: Any) -> datetime | None:
    if not isinstance(value, (int, float)):
        return None
    try:
        return datetime.fromtimestamp(value, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None


@dataclass(frozen=True)
class PageFilters:
    """The list's filters as the GET form sends them; bad values fall back to the defaults."""

    q: str = ""
    source: str = ""
    archived: str = "exclude"
    order: str = "created"
    hidden: bool = False
    hidden_sessions: bool = False  # v30 sessions the agent hides from its own lists
    date_from: date | None = None
    date_to: date | None = None
    page: int = 1

    @classmethod
    def from_query(cls, query: Mapping[str, str]) -> PageFilters:
        def day(name: str) -> date | None:
            try:
                return date.fromisoformat(query.get(name, "").strip())
            except ValueError:
                return None

        archived = query.get("archived", "exclude")
        order = query.get("order", "created")
        page = clamped_query_int(query, "page", default=1, minimum=1, maximum=MAX_PAGE)
        return cls(
            q=query.get("q", "").strip()[:500],
            source=query.get("source", "").strip()[:64],
            archived=archived if archived in history_sessions.ARCHIVED_CHOICES else "exclude",
            order=order if order in history_sessions.ORDER_CHOICES else "created",
            hidden=query.get("hidden", "") == "1",
            hidden_sessions=query.get("hidden_sessions", "") == "1",
            date_from=day("from"),
            date_to=day("to"),
            page=page,
        )

    @property
    def active(self) -> bool:
        return bool(self.source or self.archived != "exclude" or self.hidden or self.hidden_sessions
                    or self.date_from or self.date_to)

    def list_filters(self) -> history_sessions.ListFilters:
        start = datetime.combine(self.date_from, dt_time.min, tzinfo=UTC).timestamp() if self.date_from else None
        end = None
        if self.date_to:
            end = datetime.combine(self.date_to + timedelta(days=1), dt_time.min, tzinfo=UTC).timestamp()
        return history_sessions.ListFilters(
            limit=PAGE_SIZE, offset=(self.page - 1) * PAGE_SIZE, archived=self.archived, order=self.order,
            source=self.source, exclude_sources=() if self.hidden else history_sessions.HIDDEN_SOURCES,
            include_delegates=self.hidden, started_from=start, started_to=end, include_hidden=self.hidden_sessions,
        )


def _notices(caps: Capabilities) -> list[str]:
    """Codes of the lines the Sessions page shows about the file: which agent release wrote it and
    what the panel can and cannot use in it (templates/sessions/partials/_notices.html)."""
    notices = []
    if caps.version == V30_SCHEMA_VERSION:
        notices.append("release_v30" if caps.fts_columns or not caps.fts else "release_v30_upgraded")
    elif caps.version_differs:
        notices.append("newer_schema" if caps.newer else "older_schema")
    if not caps.fts:
        notices.append("no_fts")
    elif not caps.trigram:
        notices.append("no_trigram")
    if caps.cjk == CJK_UNLOADABLE:
        notices.append("cjk_unloadable")
    elif caps.cjk == CJK_STALE:
        notices.append("cjk_stale")
    if caps.fts and caps.trigram and caps.trigram_partial:
        notices.append("trigram_partial")
    if caps.fts and caps.tool_prefix:
        notices.append("tool_prefix")
    if caps.fts and caps.unindexed:
        notices.append("backfill")
    if caps.missing_triggers and caps.fts and not caps.unindexed:
        notices.append("stale_index")
    return notices


def _list_row(row: dict[str, Any], *, masker: SecretMasker, secrets: dict[str, list[str]]) -> dict[str, Any]:
    masked = masker.mask_data({key: row.get(key) for key in ("title", "preview", "source", "model")})
    return {
        "id": row["id"],
        "label": masked.get("title") or masked.get("preview") or "",
        "has_title": bool(row.get("title")),
        "source": masked.get("source"),
        "started": epoch(row.get("started_at")),
        "ended": epoch(row.get("ended_at")),
        "model": masked.get("model"),
        "messages": row.get("message_count") or 0,
        "tokens": (row.get("input_tokens") or 0) + (row.get("output_tokens") or 0),
        "cost": row.get("estimated_cost_usd"),
        "archived": bool(row.get("archived")),
        "pinned": bool(row.get("pinned")),
        "hidden": bool(row.get("hidden")),
        "continued": bool(row.get("_lineage_root_id")),
        "secrets": secrets.get(row["id"], []) + [n for n in secrets.get(row.get("_lineage_root_id") or "", [])
                                                  if n not in secrets.get(row["id"], [])],
    }


@dataclass(frozen=True)
class SessionActivity:
    """What the profiles overview says of a home's history: ``count`` as the session list counts
    by default, ``last_active`` (None: no session yet); ``state`` names a file that cannot be read."""

    count: int
    last_active: datetime | None
    state: str | None = None


def session_activity(*, home: Path) -> SessionActivity:
    try:
        with open_history(home) as history:
            count, latest = history_sessions.activity_summary(history, PageFilters().list_filters())
    except HistoryUnavailable as exc:
        return SessionActivity(count=0, last_active=None, state=None if exc.state == MISSING else exc.state)
    return SessionActivity(count=count, last_active=epoch(latest))


def sessions_page(*, home: Path, filters: PageFilters) -> dict[str, Any]:
    """Everything the list (or the search results) shows; ``state`` names a file that cannot be read."""
    masker = secret_masker(home=home)
    try:
        with open_history(home) as history:
            found = secret_sessions(history, home=home, masker=masker)
            by_session = secrets_by_session(found)
            out: dict[str, Any] = {"state": None, "notices": _notices(history.caps),
                                   "sources": history_sessions.distinct_sources(history), "search": None}
            if filters.q:
                out["search"] = _search(history, filters=filters, masker=masker, secrets=by_session)
                return out
            listing = history_sessions.list_sessions(history, filters.list_filters())
    except HistoryUnavailable as exc:
        return {"state": exc.state, "notices": [], "sources": [], "search": None, "rows": [], "total": 0,
                "pages": 0}
    out["rows"] = [_list_row(r, masker=masker, secrets=by_session) for r in listing["sessions"]]
    out["total"] = listing["total"]
    out["pages"] = max(1, -(-listing["total"] // PAGE_SIZE))
    return out


def _search(history: History, *, filters: PageFilters, masker: SecretMasker,
            secrets: dict[str, list[str]]) -> dict[str, Any]:
    if not history.caps.fts:
        return {"results": [], "unavailable": True, "unparsable": False}
    answer = search_sessions(history, filters.q, limit=SEARCH_LIMIT, include_hidden=filters.hidden_sessions)
    results = []
    hidden = set(history_sessions.HIDDEN_SOURCES)
    summaries = history_sessions.session_summaries(history, (r["session_id"] for r in answer.results))
    for result in mask_search_results(answer.results, masker):
        if filters.source and result["source"] != filters.source:
            continue
        if not filters.hidden and not filters.source and result["source"] in hidden:
            continue
        summary = summaries.get(result["session_id"]) or {}
        if summary.get("hidden") and not filters.hidden_sessions:
            continue
        results.append({
            **result,
            "title": masker.mask(summary.get("title") or ""),
            "pinned": bool(summary.get("pinned")),
            "started": epoch(result["session_started"]),
            "secrets": secrets.get(result["session_id"], []),
        })
    return {"results": results, "unavailable": False, "unparsable": answer.unparsable}


# --- one transcript -------------------------------------------------------------------------------


def _pretty_arguments(arguments: Any) -> str:
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return arguments
    return json.dumps(arguments, indent=2, ensure_ascii=False)


def _tool_calls(value: Any) -> list[dict[str, str]]:
    calls = []
    for item in value or []:
        if not isinstance(item, dict):
            continue
        function = item.get("function") if isinstance(item.get("function"), dict) else item
        calls.append({"name": str(function.get("name") or "?"),
                      "arguments": _pretty_arguments(function.get("arguments", ""))})
    return calls


def _message_view(message: dict[str, Any], *, masker: SecretMasker, hit: int | None) -> dict[str, Any]:
    text = masker.mask(history_sessions.content_text(message.get("content")))
    reasoning = "\n\n".join(str(message[k]) for k in ("reasoning", "reasoning_content") if message.get(k))
    return {
        "id": message["id"],
        "role": message.get("role") or "",
        "time": epoch(message.get("timestamp")),
        "head": text[:LONG_MESSAGE_CHARS],
        "rest": text[LONG_MESSAGE_CHARS:],
        "tool_name": masker.mask(message.get("tool_name") or ""),
        "tool_calls": masker.mask_data(_tool_calls(message.get("tool_calls"))),
        "reasoning": masker.mask(reasoning),
        "active": message.get("active") == 1,
        "compacted": message.get("compacted") == 1,
        "state": message.get("state") or history_sessions.LIVE,
        "hit": message["id"] == hit,
    }


@dataclass
class Transcript:
    session: dict[str, Any]
    messages: list[dict[str, Any]]
    page: int
    pages: int
    total: int
    show_all: bool
    parent: dict[str, Any] | None
    continuation: str | None
    children: list[dict[str, Any]]
    secrets: list[str]
    notices: list[str]


class Redirect(Exception):
    def __init__(self, session_id: str, *, page: int, hit: int, show_all: bool) -> None:
        super().__init__(session_id)
        self.session_id, self.page, self.hit, self.show_all = session_id, page, hit, show_all


def transcript(*, home: Path, session_id: str, page: int, hit: int | None, show_all: bool) -> Transcript | None:
    """One session's page of messages, or None when no session has that id (or unique prefix).
    Raises ``Redirect`` when the hit sits in another session or on another page, and
    ``HistoryUnavailable``."""
    masker = secret_masker(home=home)
    with open_history(home) as history:
        resolved = history_sessions.resolve_session_id(history, session_id)
        if resolved is None:
            return None
        if hit is not None:
            located = history_sessions.transcript_locate(history, hit, show_all=show_all)
            if located is not None:
                owner, shown, before = located
                wants_all = show_all or not shown
                target_page = before // TRANSCRIPT_PAGE_SIZE + 1
                if owner != resolved or target_page != page or wants_all != show_all:
                    raise Redirect(owner, page=target_page, hit=hit, show_all=wants_all)
        row = history_sessions.session_row(history, resolved) or {}
        total = history_sessions.transcript_count(history, resolved, show_all=show_all)
        pages = max(1, -(-total // TRANSCRIPT_PAGE_SIZE))
        page = min(max(1, page), pages)
        messages = history_sessions.transcript_messages(history, resolved, limit=TRANSCRIPT_PAGE_SIZE,
                                                        offset=(page - 1) * TRANSCRIPT_PAGE_SIZE,
                                                        show_all=show_all)
        if len(messages) > TRANSCRIPT_PAGE_SIZE:
            messages = messages[:TRANSCRIPT_PAGE_SIZE]
        parent_id = row.get("parent_session_id")
        parent = None
        if parent_id:
            parent_row = history_sessions.session_row(history, parent_id)
            if parent_row is not None:
                kind = "compression" if history_sessions.compression_parent(history, resolved) == parent_id else (
                    "delegate" if row.get("source") == "subagent" else "branch")
                parent = {"id": parent_id, "title": masker.mask(parent_row.get("title") or ""), "kind": kind}
        continuation = history_sessions.continuation_of(history, resolved)
        children = [
            {"id": r["id"], "title": masker.mask(r["title"] or ""), "source": r["source"]}
            for r in history_sessions.children_of(history, resolved) if r["id"] != continuation
        ]
        found = secret_sessions(history, home=home, masker=masker)
        notices = _notices(history.caps)
    session = masker.mask_data({k: v for k, v in row.items() if k not in ("system_prompt", "model_config")})
    session["started"] = epoch(row.get("started_at"))
    session["ended"] = epoch(row.get("ended_at"))
    return Transcript(
        session=session,
        messages=[_message_view(m, masker=masker, hit=hit) for m in messages],
        page=page, pages=pages, total=total, show_all=show_all, parent=parent, continuation=continuation,
        children=children, secrets=secrets_by_session(found).get(resolved, []), notices=notices,
    )


def export_json(*, home: Path, session_id: str) -> dict[str, Any] | None:
    """The API's export shape (docs/api.md §Session routes), masked."""
    with open_history(home) as history:
        resolved = history_sessions.resolve_session_id(history, session_id)
        if resolved is None:
            return None
        payload = history_sessions.export_session(history, resolved)
    return secret_masker(home=home).mask_data(payload)


def export_markdown(payload: dict[str, Any]) -> str:
    """A readable Markdown transcript of an (already masked) export."""
    lines = [f"# {payload.get('title') or payload.get('id')}", ""]
    for key in ("id", "source", "model", "started_at", "ended_at", "end_reason", "parent_session_id"):
        value = payload.get(key)
        if key in ("started_at", "ended_at") and value is not None:
            when = epoch(value)
            value = when.strftime("%Y-%m-%d %H:%M:%S UTC") if when else value
        if value is not None:
            lines.append(f"- **{key}**: {value}")
    lines.append("")
    for message in payload.get("messages", []):
        when = epoch(message.get("timestamp"))
        stamp = when.strftime("%Y-%m-%d %H:%M:%S") if when else ""
        title = message.get("role") or "?"
        if message.get("tool_name"):
            title += f" ({message['tool_name']})"
        lines += [f"## {title} · {stamp}", ""]
        text = history_sessions.content_text(message.get("content"))
        if text:
            lines += [text, ""]
        for call in _tool_calls(message.get("tool_calls")):
            lines += [f"Tool call: `{call['name']}`", "", "```json", call["arguments"], "```", ""]
    return "\n".join(lines).rstrip() + "\n"


def secrets_in_history(*, home: Path) -> dict[str, Any]:
    """For each stored secret: the sessions holding it (names only, never a value)."""
    masker = secret_masker(home=home)
    try:
        with open_history(home) as history:
            found = secret_sessions(history, home=home, masker=masker)
            summaries = history_sessions.session_summaries(history, (s for v in found.values() for s in v))
    except HistoryUnavailable as exc:
        return {"state": exc.state, "secrets": []}
    rows = []
    for name in masker.names:
        sessions = [{"id": s, "title": masker.mask((summaries.get(s) or {}).get("title") or ""),
                     "started": epoch((summaries.get(s) or {}).get("started_at"))} for s in found.get(name, [])]
        rows.append({"name": name, "sessions": sessions})
    return {"state": None, "secrets": rows}

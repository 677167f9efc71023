"""The read routes of the agent's session history (docs/api.md §Session routes, §Deviations from 0.19.0), as JSON.

Same paths, parameters and shapes as 0.19.0's dashboard; every text is masked (§Deviations from 0.19.0); the
writing methods answer 405 (§Deviations from 0.19.0, through ``api_endpoint``'s method check). A home without
``state.db`` reads as empty and nothing is created; a file that cannot be read answers 503 with
its state, never a 500.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from django.http import HttpRequest, HttpResponse

import provider_schemas
from admin_panel.agent_home import current_home
from admin_panel.api_auth import api_endpoint, api_error, api_json
from admin_panel.forms.query import QueryNumberError, query_int
from admin_panel.selectors import sessions as selectors
from admin_panel.services import sessions as services
from memory_core.history import MISSING, HistoryUnavailable, open_history
from memory_core.history import search as history_search
from memory_core.history import sessions as history_sessions
from memory_core.home import InvalidProfileName, canonical_profile_name, check_profile_name

logger = logging.getLogger(__name__)

TRUE_WORDS = {"1", "on", "t", "true", "y", "yes"}
FALSE_WORDS = {"0", "off", "f", "false", "n", "no"}


class QueryError(Exception):
    """A query parameter that does not parse: the framework's 422 list form (docs/api.md §Session routes)."""

    def __init__(self, item: dict[str, Any]) -> None:
        self.item = item


def _int(request: HttpRequest, name: str, default: int | None) -> int | None:
    """Whole numbers in SQLite's range (docs/request_limits.md); 0.19.0's meaning of negative
    and large values is kept inside it."""
    try:
        return query_int(request.GET, name, default=default)
    except QueryNumberError as exc:
        raise QueryError(exc.item()) from None


def _bool(request: HttpRequest, name: str) -> bool:
    value = request.GET.get(name)
    if value is None:
        return False
    word = value.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise QueryError({"type": "bool_parsing", "loc": ["query", name],
                      "msg": "Input should be a valid boolean, unable to interpret input", "input": value})


def _unprocessable(exc: QueryError) -> HttpResponse:
    return api_json({"detail": [exc.item]}, status=422)


def _profile(request: HttpRequest) -> tuple[Path, str | None] | HttpResponse:
    """The home whose history is read and the canonical profile name to tag answers with (None:
    the panel's own home, untagged). The directory rule is the panel's ``profile_home``."""
    raw = request.GET.get("profile", "")
    home = current_home()
    if raw == "":
        return home, None
    canon = canonical_profile_name(raw)
    try:
        check_profile_name(canon)
    except InvalidProfileName as exc:
        return api_error(exc.detail, 400)
    if canon == "current":  # an ordinary name here, not the panel's "this home"
        target = provider_schemas.root_home(home) / "profiles" / canon
    else:
        target = provider_schemas.profile_home(home=home, profile=canon)
    if not Path(target).is_dir():
        return api_error(f"Profile '{canon}' does not exist.", 404)
    return Path(target), canon


def _unavailable(exc: HistoryUnavailable) -> HttpResponse:
    return api_error(f"Session history unavailable ({exc.state})", 503, state=exc.state)


def _not_found() -> HttpResponse:
    return api_error("Session not found", 404)


@api_endpoint(methods=("GET",))
def sessions_list(request: HttpRequest) -> HttpResponse:
    try:
        limit = _int(request, "limit", 20)
        offset = _int(request, "offset", 0)
        min_messages = _int(request, "min_messages", 0)
        full = _bool(request, "full")
        include_hidden = _bool(request, "include_hidden")
    except QueryError as exc:
        return _unprocessable(exc)
    archived = request.GET.get("archived", "exclude")
    if archived not in history_sessions.ARCHIVED_CHOICES:
        return api_error("archived must be one of: exclude, only, include", 400)
    order = request.GET.get("order", "created")
    if order not in history_sessions.ORDER_CHOICES:
        return api_error("order must be one of: created, recent", 400)
    target = _profile(request)
    if isinstance(target, HttpResponse):
        return target
    home, canon = target
    exclude = request.GET.get("exclude_sources", "")
    filters = history_sessions.ListFilters(
        limit=limit, offset=offset, min_messages=max(0, min_messages), archived=archived, order=order,
        source=request.GET.get("source", ""), exclude_sources=tuple(x for x in exclude.split(",") if x),
        cwd_prefix=request.GET.get("cwd_prefix", ""), full=full, include_hidden=include_hidden,
    )
    try:
        with open_history(home) as history:
            payload = history_sessions.list_sessions(history, filters)
    except HistoryUnavailable as exc:
        if exc.state != MISSING:
            return _unavailable(exc)
        payload = {"sessions": [], "total": 0, "limit": limit, "offset": offset}
    if canon is not None:
        for row in payload["sessions"]:
            row["profile"] = canon
            row["is_default_profile"] = canon == "default"
    return api_json(selectors.secret_masker(home=home).mask_data(payload))


@api_endpoint(methods=("GET",))
def sessions_search(request: HttpRequest) -> HttpResponse:
    try:
        limit = _int(request, "limit", 20)
        include_hidden = _bool(request, "include_hidden")
    except QueryError as exc:
        return _unprocessable(exc)
    q = request.GET.get("q", "")
    if not q.strip():
        return api_json({"results": []})
    target = _profile(request)
    if isinstance(target, HttpResponse):
        return target
    home, _canon = target
    try:
        with open_history(home) as history:
            answer = history_search.search_sessions(history, q, limit=limit or 20, include_hidden=include_hidden)
    except HistoryUnavailable as exc:
        if exc.state == MISSING:
            return api_json({"results": []})
        return _unavailable(exc)
    except Exception:
        logger.exception("Session search failed")
        return api_error("Search failed", 500)
    masker = selectors.secret_masker(home=home)
    return api_json({"results": selectors.mask_search_results(answer.results, masker)})


@api_endpoint(methods=("GET",))
def sessions_stats(request: HttpRequest) -> HttpResponse:
    target = _profile(request)
    if isinstance(target, HttpResponse):
        return target
    home, _canon = target
    try:
        with open_history(home) as history:
            payload = history_sessions.stats(history)
    except HistoryUnavailable as exc:
        if exc.state != MISSING:
            return _unavailable(exc)
        payload = {"total": 0, "active_store": 0, "archived": 0, "messages": 0, "by_source": {}}
    return api_json(payload)


def _read_one(request: HttpRequest, session_id: str, read) -> HttpResponse:
    target = _profile(request)
    if isinstance(target, HttpResponse):
        return target
    home, canon = target
    try:
        with open_history(home) as history:
            resolved = history_sessions.resolve_session_id(history, session_id)
            if resolved is None:
                return _not_found()
            payload = read(history, resolved, canon)
    except HistoryUnavailable as exc:
        if exc.state == MISSING:
            return _not_found()
        return _unavailable(exc)
    return api_json(selectors.secret_masker(home=home).mask_data(payload))


@api_endpoint(methods=("GET",))
def session_detail(request: HttpRequest, session_id: str) -> HttpResponse:
    def read(history, resolved: str, canon: str | None) -> dict[str, Any]:
        row = history_sessions.session_row(history, resolved) or {}
        if canon:
            row["profile"] = canon
        return row

    return _read_one(request, session_id, read)


@api_endpoint(methods=("GET",))
def session_messages(request: HttpRequest, session_id: str) -> HttpResponse:
    try:
        limit = _int(request, "limit", None)
        offset = _int(request, "offset", 0)
    except QueryError as exc:
        return _unprocessable(exc)

    def read(history, resolved: str, canon: str | None) -> dict[str, Any]:
        target = history_sessions.resume_target(history, resolved)
        messages = history_sessions.messages_of(history, target, limit=limit, offset=offset or 0)
        clamped = None if limit is None else min(limit, history_sessions.MESSAGES_MAX_LIMIT)
        return {"session_id": target, "messages": messages,
                "pagination": {"limit": clamped, "offset": offset, "returned": len(messages)}}

    return _read_one(request, session_id, read)


@api_endpoint(methods=("GET",))
def session_export(request: HttpRequest, session_id: str) -> HttpResponse:
    exported: list[str] = []

    def read(history, resolved: str, canon: str | None) -> dict[str, Any]:
        exported.append(resolved)
        return history_sessions.export_session(history, resolved)

    response = _read_one(request, session_id, read)
    if exported and response.status_code == 200:
        home = _profile(request)
        services.record_export(user=request.user, channel="api", home=home[0] if isinstance(home, tuple) else
                               current_home(), session_id=exported[0], fmt="json")
    return response


@api_endpoint(methods=("GET",))
def sessions_no_such_route(request: HttpRequest) -> HttpResponse:
    return api_error("Not Found", 404)

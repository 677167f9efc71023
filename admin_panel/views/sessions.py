"""The Sessions page: the agent's whole history (``state.db``), read-only.

Staff and viewers read; nothing here writes to the agent's home. Exports are audited. Every
text shown went through the home's secret masker (``selectors.sessions``).
"""

from __future__ import annotations

import json
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers

from admin_panel.agent_home import current_home
from admin_panel.event_stream import event_stream
from admin_panel.forms.query import MAX_PAGE, QueryNumberError, clamped_query_int, query_int
from admin_panel.permissions import can_view, viewer_required
from admin_panel.selectors import sessions as selectors
from admin_panel.services import sessions as services
from admin_panel.views.partials import is_partial
from memory_core.history import HistoryUnavailable
from provider_schemas import profile_name


@require_GET
@viewer_required
@vary_on_headers("HX-Request")
def sessions_page(request: HttpRequest) -> HttpResponse:
    home = current_home()
    filters = selectors.PageFilters.from_query(request.GET)
    # Taken before the read: a commit landing during it makes the page fetch the list once more.
    fingerprint = selectors.history_fingerprint(home=home)
    context: dict[str, Any] = {"filters": filters, "profile": profile_name(home), "live_fingerprint": fingerprint,
                               **selectors.sessions_page(home=home, filters=filters)}
    partial = is_partial(request)
    context["partial"] = partial
    return render(request, "sessions/partials/_results.html" if partial else "sessions/list.html", context)


@require_GET
@viewer_required
def sessions_events(request: HttpRequest) -> HttpResponse:
    """Server-sent events carrying the history's fingerprint whenever the agent commits (never content)."""
    home = current_home()
    return event_stream(request, paths=selectors.history_paths(home=home),
                        fingerprint=lambda: selectors.history_fingerprint(home=home), allowed=can_view)


@require_GET
@viewer_required
def session_detail(request: HttpRequest, session_id: str) -> HttpResponse:
    home = current_home()
    page = clamped_query_int(request.GET, "page", default=1, minimum=1, maximum=MAX_PAGE) or 1
    try:
        hit = query_int(request.GET, "hit", default=None, minimum=1)
    except QueryNumberError:  # names no message: dropped, not clamped to another one
        hit = None
    show_all = request.GET.get("all") == "1"
    try:
        transcript = selectors.transcript(home=home, session_id=session_id, page=page, hit=hit, show_all=show_all)
    except selectors.Redirect as move:
        query = {"page": move.page, "hit": move.hit, **({"all": "1"} if move.show_all else {})}
        url = reverse("session_detail", args=[move.session_id])
        return redirect(f"{url}?{urlencode(query)}#m-{move.hit}")
    except HistoryUnavailable as exc:
        return render(request, "sessions/unavailable.html", {"state": exc.state}, status=503)
    if transcript is None:
        raise Http404(_("There is no such session."))
    # The search that led here: its words are marked in the hit (a hit link carries it).
    q = request.GET.get("q", "")[:200] if hit is not None else ""
    return render(request, "sessions/detail.html", {"t": transcript, "hit": hit, "q": q, "profile": profile_name(home)})


@require_GET
@viewer_required
def session_export(request: HttpRequest, session_id: str) -> HttpResponse:
    fmt = request.GET.get("format", "markdown")
    if fmt not in services.FORMAT_NAMES:
        fmt = "markdown"
    home = current_home()
    try:
        payload = selectors.export_json(home=home, session_id=session_id)
    except HistoryUnavailable as exc:
        return render(request, "sessions/unavailable.html", {"state": exc.state}, status=503)
    if payload is None:
        raise Http404(_("There is no such session."))
    if fmt == "json":
        body = json.dumps(payload, ensure_ascii=False, indent=2)
        response = HttpResponse(body, content_type="application/json; charset=utf-8")
        name = f"session-{payload['id']}.json"
    else:
        response = HttpResponse(selectors.export_markdown(payload), content_type="text/markdown; charset=utf-8")
        name = f"session-{payload['id']}.md"
    safe_name = "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in name)
    response["Content-Disposition"] = f'attachment; filename="{safe_name}"'
    response["Cache-Control"] = "no-store"
    # Recorded only once the export exists: a failure above leaves no audit entry for it.
    services.record_export(user=request.user, channel="panel", home=home, session_id=payload["id"], fmt=fmt)
    return response


@require_GET
@viewer_required
def secrets_in_history(request: HttpRequest) -> HttpResponse:
    home = current_home()
    context = selectors.secrets_in_history(home=home)
    profile = profile_name(home)
    context["profile_option"] = f" -p {profile}" if profile not in ("default", "custom") else ""
    return render(request, "sessions/secrets.html", context)

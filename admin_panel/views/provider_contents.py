"""What an external provider remembers: browse, read one item, delete (with undo), clean up copies
left behind by the built-in stores. Reads through ``selectors.provider_contents``, writes through
``services.provider_contents``; every flow works without JavaScript."""

from __future__ import annotations

import time
from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers

from admin_panel.agent_home import current_home
from admin_panel.event_stream import event_stream
from admin_panel.permissions import admin_required, can_change, can_view, viewer_required
from admin_panel.selectors import provider_contents as selectors
from admin_panel.services import provider_contents as services
from memory_core.external.base import UNREACHABLE, ContentsError, Item, NotFound

UNDO_SESSION_KEY = "contents_undo"
UNDO_SECONDS = 15 * 60


def _known_or_404(name: str) -> str:
    if not selectors.is_known(name):
        raise Http404(_("There is no such provider."))
    return name


# What each unreachable provider would need (the facts behind them: memory_core.external.base.UNREACHABLE).
NEEDS = {
    "mem0": gettext_lazy("mem0 keeps memories in the Mem0 cloud service; browsing them needs its API key and "
                         "network access to api.mem0.ai, which this panel does not have."),
    "honcho": gettext_lazy("Honcho keeps its memory on a Honcho server (the cloud service or your own deployment); "
                           "browsing it needs that server running and reachable with its key."),
    "openviking": gettext_lazy("OpenViking keeps its memory in an OpenViking server; browsing it needs that server "
                               "running and reachable from the panel."),
    "retaindb": gettext_lazy("RetainDB keeps memories in its cloud service; browsing them needs its API key and "
                             "network access to the service."),
    "supermemory": gettext_lazy("Supermemory keeps memories in its cloud service; browsing them needs its API key "
                                "and network access to the service."),
}


def _unreachable(request: HttpRequest, name: str) -> HttpResponse:
    return render(request, "contents/unreachable.html", {"name": name, "why": NEEDS.get(name, UNREACHABLE[name])})


def _error_text(exc: ContentsError) -> str:
    texts = {
        "missing": _("There is no store for this provider yet: the agent has not stored anything in it."),
        "busy": _("The agent is writing to its store right now; try again in a moment."),
        "damaged": _("The provider's store is damaged or is not a database."),
        "shape": _("The provider's store is not in the shape its plugin writes."),
        "gone": _("That item is no longer in the provider's store."),
        "clash": _("Another item already holds this number or this text; nothing was restored."),
        "stale": _("This undo no longer applies."),
        "unreachable": _("This provider's store cannot be read from here."),
        "changed": _("It changed since you opened it; nothing was deleted. Here it is as it is now."),
        "unwritable": _("The provider's store could not be changed (permissions or a full disk)."),
        "undeletable": _("Hindsight deletes a memory only with the document it came from, and this memory "
                         "belongs to no document; nothing was deleted."),
    }
    where = getattr(exc, "where", "")
    server = {
        "offline": _("The Hindsight server at %(where)s did not answer, so nothing can be shown or changed. Start "
                     "the server (or correct the API URL in the hindsight settings) and reload this page."),
        "auth": _("The Hindsight server at %(where)s refused the API key, so nothing can be shown or changed. "
                  "Correct the API key in the hindsight settings and reload this page."),
        "auth_missing": _("The Hindsight server at %(where)s asks for an API key and none is set, so nothing can "
                          "be shown or changed. Set the API key in the hindsight settings and reload this page."),
        "server": _("The Hindsight server at %(where)s answered with an error, so nothing can be shown or "
                    "changed. Its own log says why; reload this page once it is fixed."),
    }
    if exc.code in server:
        return str(server[exc.code]) % {"where": where}
    return str(texts.get(exc.code, _("The provider's store could not be read.")))


def _label(item: Item) -> str:
    path = item.details.get("path")
    if path:
        return str(path)
    if item.details.get("memory_id"):  # hindsight: a memory and the document it went with
        return _("memory %(id)s (document %(document)s)") % {"id": str(item.details["memory_id"])[:8],
                                                            "document": item.details.get("document_id", "")}
    return _("fact %(id)s") % {"id": item.id}


def _undo_offer(request: HttpRequest, name: str) -> dict[str, Any] | None:
    offer = request.session.get(UNDO_SESSION_KEY)
    if not isinstance(offer, dict) or offer.get("name") != name or time.time() - offer.get("at", 0) > UNDO_SECONDS:
        return None
    return offer


@require_GET
@viewer_required
def contents_index(request: HttpRequest) -> HttpResponse:
    """Every provider: whether the panel can show what it remembers, and the active one first."""
    home = current_home()
    return render(request, "contents/index.html", {"providers": selectors.overview(home=home)})


@require_GET
@viewer_required
@vary_on_headers("HX-Request")
def contents_page(request: HttpRequest, name: str) -> HttpResponse:
    home = current_home()
    _known_or_404(name)
    if name in UNREACHABLE:
        return _unreachable(request, name)
    query = selectors.query_from(request.GET)
    live = selectors.fingerprint(home=home, name=name)
    page = selectors.contents_page(home=home, name=name, query=query)
    offer = _undo_offer(request, name)
    context = {"name": name, "c": page, "error": _error_text(page.error) if page.error else "",
               "can_change": can_change(request.user), "live_fingerprint": live,
               "undo": offer if can_change(request.user) else None}
    htmx = getattr(request, "htmx", None)
    if htmx and not htmx.history_restore_request:
        return render(request, "contents/partials/_results.html", context)
    status = 503 if page.error and page.error.code in ("busy", "offline", "server") else 200
    return render(request, "contents/page.html", context, status=status)


@require_GET
@viewer_required
def contents_events(request: HttpRequest, name: str) -> HttpResponse:
    home = current_home()
    _known_or_404(name)
    paths = [*selectors.watched_paths(home=home, name=name), home / "memories" / "MEMORY.md",
             home / "memories" / "USER.md"]
    return event_stream(request, paths=paths, fingerprint=lambda: selectors.fingerprint(home=home, name=name),
                        allowed=can_view)


@require_GET
@viewer_required
def contents_item(request: HttpRequest, name: str, item_id: str) -> HttpResponse:
    home = current_home()
    _known_or_404(name)
    if name in UNREACHABLE:
        return _unreachable(request, name)
    try:
        shown = selectors.item_detail(home=home, name=name, item_id=item_id)
    except NotFound:
        raise Http404(_("That item is no longer in the provider's store.")) from None
    except ContentsError as exc:
        return render(request, "contents/page.html", {"name": name, "error": _error_text(exc), "c": None}, status=503)
    return render(request, "contents/item.html", {"name": name, "s": shown, "can_change": can_change(request.user)})


@require_http_methods(["GET", "POST"])
@admin_required
def contents_delete(request: HttpRequest, name: str, item_id: str) -> HttpResponse:
    """GET: exactly what will go, and what goes with it. POST: delete it (undo offered)."""
    home = current_home()
    _known_or_404(name)
    if name in UNREACHABLE:
        return _unreachable(request, name)
    back = reverse("provider_contents", args=[name])
    if request.method == "GET":
        try:
            shown = selectors.item_detail(home=home, name=name, item_id=item_id)
        except NotFound:
            raise Http404(_("That item is no longer in the provider's store.")) from None
        except ContentsError as exc:
            messages.error(request, _error_text(exc))
            return redirect(back)
        return render(request, "contents/delete_confirm.html", {"name": name, "s": shown})
    try:
        removed = services.delete_item(home=home, user=request.user, name=name, item_id=item_id,
                                       expected=request.POST.get("version") or None)
    except ContentsError as exc:
        messages.error(request, _error_text(exc))
        if exc.code == "changed":
            return redirect(reverse("provider_contents_item", args=[name, item_id]))
        return redirect(back)
    if removed.undo is not None:
        request.session[UNDO_SESSION_KEY] = {"at": time.time(), "name": name, "item": _label(removed.item),
                                             "undo": dict(removed.undo)}
    if removed.item.details.get("memory_id"):
        count = removed.item.details.get("memories_deleted")
        messages.success(request, _("Deleted the document %(document)s from %(provider)s, with the %(count)s "
                                    "memories extracted from it.") % {
            "document": removed.item.details.get("document_id", ""), "provider": name,
            "count": count if count is not None else "?"})
        return redirect(back)
    messages.success(request, _("Deleted %(what)s from %(provider)s.") % {"what": _label(removed.item),
                                                                          "provider": name})
    return redirect(back)


@require_POST
@admin_required
def contents_undo(request: HttpRequest, name: str) -> HttpResponse:
    home = current_home()
    _known_or_404(name)
    offer = _undo_offer(request, name)
    request.session.pop(UNDO_SESSION_KEY, None)
    back = reverse("provider_contents", args=[name])
    if offer is None:
        messages.warning(request, _("There is nothing to undo any more."))
        return redirect(back)
    try:
        item = services.restore_item(home=home, user=request.user, name=name, undo=offer["undo"])
    except ContentsError as exc:
        messages.error(request, _error_text(exc))
        return redirect(back)
    messages.success(request, _("Restored %(what)s in %(provider)s.") % {"what": _label(item), "provider": name})
    return redirect(back)


@require_http_methods(["GET", "POST"])
@viewer_required
def contents_left_behind(request: HttpRequest, name: str) -> HttpResponse:
    """Copies whose built-in entry is gone; admins remove the ones they tick (all ticked at first)."""
    home = current_home()
    _known_or_404(name)
    if request.method == "POST" and not can_change(request.user):
        return render(request, "errors/forbidden.html", status=403)
    if name in UNREACHABLE:
        return _unreachable(request, name)
    if request.method == "POST":
        ids = [i for i in request.POST.getlist("item") if i.isdigit()][:1000]
        if not ids:
            messages.warning(request, _("Nothing was selected."))
            return redirect(reverse("provider_contents_left_behind", args=[name]))
        # Checked again now: the list may be old, and a copy whose entry came back must stay.
        try:
            current = selectors.still_left_behind(home=home, name=name, item_ids=ids)
        except ContentsError as exc:
            messages.error(request, _error_text(exc))
            return redirect(reverse("provider_contents_left_behind", args=[name]))
        kept = [i for i in ids if i not in current]
        if kept:
            messages.warning(request, _("Not removed, because by now their entry is in MEMORY.md or USER.md again "
                                        "or they are gone from %(provider)s: %(ids)s.")
                             % {"provider": name, "ids": ", ".join(kept)})
        if not current:
            return redirect(reverse("provider_contents_left_behind", args=[name]))
        outcome = services.delete_items(home=home, user=request.user, name=name, item_ids=current)
        if outcome.removed:
            count = len(outcome.removed)
            messages.success(request, ngettext("Removed %(count)d copy from %(provider)s.",
                                               "Removed %(count)d copies from %(provider)s.", count)
                             % {"count": count, "provider": name})
        for item_id, _why in outcome.failed:
            messages.error(request, _("Item %(id)s was not removed: it is no longer there or the store refused.")
                           % {"id": item_id})
        return redirect(reverse("provider_contents_left_behind", args=[name]))
    try:
        rows, more, known = selectors.left_behind(home=home, name=name)
    except ContentsError as exc:
        return render(request, "contents/page.html", {"name": name, "error": _error_text(exc), "c": None}, status=503)
    return render(request, "contents/left_behind.html", {
        "name": name, "rows": rows, "more": more, "can_change": can_change(request.user),
        "former": [row for row in rows if row.item.id in known],
        "unknown": [row for row in rows if row.item.id not in known]})

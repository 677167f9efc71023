"""The live memory view: both stores as the agent sees them, blocked entries, pending writes, drift.

Thin views: reads through ``admin_panel.selectors.memory``, writes through
``admin_panel.services.memory`` (memory_core underneath, under the store lock). Every page works
without JavaScript; ``memory.js`` adds live updates (the poll below) and opens forms in a dialog
(htmx requests get the form fragment; a finished write answers with ``HX-Redirect``).
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.html import format_html
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from admin_panel.agent_home import current_home
from admin_panel.event_stream import event_stream
from admin_panel.forms.memory import BackupSelectionForm, EntryForm, EntrySelectionForm, PendingActionForm
from admin_panel.localisation import localise_message
from admin_panel.permissions import admin_required, can_change, can_view, viewer_required
from admin_panel.selectors import memory as selectors
from admin_panel.selectors import provider_contents as contents_selectors
from admin_panel.services import memory as services
from admin_panel.services import provider_contents as contents_services
from admin_panel.services.maintenance import record_budget_samples
from admin_panel.services.write_errors import DISK_FULL_STATUS
from memory_core.pending import count_pending, pending_dir

UNDO_SESSION_KEY = "memory_undo"
UNDO_SECONDS = 15 * 60
FINGERPRINT_HEADER = "X-Memory-Fingerprint"

# The live part of each page, re-rendered by the poll when the fingerprint changes.
LIVE_PARTIALS = {
    "page": "memory/partials/_page_live.html",
    "blocked": "memory/partials/_blocked_live.html",
    "pending": "memory/partials/_pending_live.html",
}
LIVE_PAGES = {"page": "memory", "blocked": "memory_blocked", "pending": "memory_pending"}
# The memory page's page of entries per store, in its address (and its poll's): /memory/?memory_page=3,
# and its filter (entries containing a text): /memory/?memory_q=deploy
PAGE_PARAMS = {"memory": "memory_page", "user": "user_page"}
FILTER_PARAMS = {"memory": "memory_q", "user": "user_q"}
MAX_FILTER_CHARS = 200
# Anything else (a 20-digit number, a sign, text) is page 1; a number past the last page is the last.
_PAGE_NUMBER = re.compile(r"[1-9][0-9]{0,5}")


# --- helpers --------------------------------------------------------------------------------------


def _target_or_404(target: str) -> str:
    if not selectors.is_target(target):
        raise Http404(_("There is no such memory store."))
    return target


def _next_url(request: HttpRequest, default: str = "") -> str:
    """Where to go after a write: a same-site path the form carried, else ``default``."""
    candidate = request.POST.get("next") or request.GET.get("next") or ""
    if (
        candidate.startswith("/")
        and not candidate.startswith("//")
        and url_has_allowed_host_and_scheme(candidate, allowed_hosts={request.get_host()})
    ):
        return candidate
    return default or reverse("memory")


def _done(request: HttpRequest, url: str) -> HttpResponse:
    """Finish a write: a redirect, or for htmx (a form in the dialog) a full navigation."""
    if request.htmx:
        return HttpResponseClientRedirect(url)
    return redirect(url)


def _form_status(request: HttpRequest, form: Any, outcome: Any) -> int:
    """400 for a form that does not validate, 409 when the store refused (or the entry changed),
    507 when the disk is full, 200 for showing the form."""
    if request.method != "POST":
        return 200
    if not form.is_valid():
        return 400
    if outcome is not None and getattr(outcome, "disk_full", False):
        return DISK_FULL_STATUS
    return 409 if outcome is not None and not outcome.ok else 200


def _refusal(state: Any, outcome: Any) -> str:
    """What stops writes to this store; a full disk first, since it is why nothing was written."""
    if outcome is not None and getattr(outcome, "disk_full", False):
        return outcome.message
    return services.write_refusal(state)


def _page(request: HttpRequest, template: str, context: dict[str, Any], *, status: int = 200) -> HttpResponse:
    """The whole page, or for htmx just its dialog fragment (``memory/partials/_<name>``)."""
    if request.htmx:
        folder, _slash, name = template.rpartition("/")
        return render(request, f"{folder}/partials/_{name}", {**context, "in_dialog": True})
    return render(request, template, context, status=status)


class EntryLinks:
    """The edit and delete links of entries, built by string joining: a page may list hundreds of
    entries and is re-rendered on every change, and ``reverse`` per entry is a large share of that."""

    _PLACEHOLDER = "0" * selectors.KEY_LENGTH

    def __init__(self, page_url: str) -> None:
        self.next_query = urlencode({"next": page_url})
        self._edit = {
            target: reverse("memory_entry_edit", args=[target, self._PLACEHOLDER]).split(self._PLACEHOLDER)
            for target in ("memory", "user")
        }
        self._delete = reverse("memory_delete_confirm")

    def edit(self, row: selectors.EntryRow) -> str:
        before, after = self._edit[row.target]
        return f"{before}{row.key}{after}?{self.next_query}"

    def delete(self, row: selectors.EntryRow) -> str:
        return f"{self._delete}?{urlencode({'entry': row.ref})}&{self.next_query}"


Listing = tuple[int, str]  # a store's page number and filter text


def _requested_listings(request: HttpRequest, overview: selectors.MemoryOverview) -> dict[str, Listing]:
    """Each store's page of entries and filter from the address; ``show=<ref>`` picks the page
    listing that entry, unfiltered (a link to an entry's anchor keeps working however many
    entries come before it)."""
    listings = {}
    for target in PAGE_PARAMS:
        raw = request.GET.get(PAGE_PARAMS[target], "")
        number = int(raw) if _PAGE_NUMBER.fullmatch(raw) else 1
        query = " ".join(request.GET.get(FILTER_PARAMS[target], "").split())[:MAX_FILTER_CHARS]
        listings[target] = (number, query)
    shown = selectors.parse_ref(request.GET.get("show", ""))
    if shown is not None:
        number = overview.store(shown[0]).page_number_of(shown[1])
        if number is not None:
            listings[shown[0]] = (number, "")
    return listings


def _listing_params(listings: dict[str, Listing]) -> list[tuple[str, str]]:
    params = []
    for target, (number, query) in listings.items():
        if query:
            params.append((FILTER_PARAMS[target], query))
        if number > 1:
            params.append((PAGE_PARAMS[target], str(number)))
    return params


def _paged(request: HttpRequest, overview: selectors.MemoryOverview) -> tuple[selectors.MemoryOverview, str]:
    """The overview showing the requested listing of each store, and the query naming it."""
    listings = _requested_listings(request, overview)
    base = reverse("memory")

    def url_for(target: str, number: int) -> str:
        query = urlencode(_listing_params({**listings, target: (number, listings[target][1])}))
        return f"{base}{'?' if query else ''}{query}#store-{target}"

    def keep_for(target: str) -> tuple[tuple[str, str], ...]:
        return tuple(_listing_params({other: value for other, value in listings.items() if other != target}))

    paged = overview.paged(listings, url_for=url_for, keep_for=keep_for)
    shown = {store.target: (store.page.number, store.page.query) for store in paged.stores if store.page is not None}
    return paged, urlencode(_listing_params(shown))


def _live_context(request: HttpRequest, overview: selectors.MemoryOverview, view: str) -> dict[str, Any]:
    # Links inside the live part come back to this page; the poll renders them too, so the page's
    # address is named explicitly instead of taken from the (poll) request.
    page_url = reverse(LIVE_PAGES[view])
    pages_query = ""
    if view == "page":
        overview, pages_query = _paged(request, overview)
        page_url = f"{page_url}?{pages_query}" if pages_query else page_url
    return {
        "overview": overview,
        "provider_copies": _provider_copies(overview) if view == "page" else {},
        "pending_copies": _pending_copies(current_home(), overview.pending) if view == "pending" else {},
        "can_change": can_change(request.user),
        "live_view": view,
        "page_url": page_url,
        "pages_query": pages_query,
        "entry_links": EntryLinks(page_url),
    }


def _copy_label(provider: str, label: str) -> str:
    return _("fact %(id)s") % {"id": label} if provider == "holographic" else label


def _copy_view(copy: contents_selectors.EntryCopy) -> dict[str, str]:
    label = _copy_label(copy.provider, copy.label)
    return {"provider": copy.provider, "label": label, "can_update": "1" if copy.can_update else "",
            "url": reverse("provider_contents_item", args=[copy.provider, copy.item_id]), "version": copy.version}


def _provider_copies(overview: selectors.MemoryOverview) -> dict[str, dict[str, str]]:
    """Each shown entry's copy in the active provider ("also in holographic, fact 42"), by ref."""
    rows = [row for store in overview.stores for row in store.shown_rows]
    entries: dict[str, list[str]] = {}
    for row in rows:
        entries.setdefault(row.target, []).append(row.text)
    found = contents_selectors.entry_copies(home=current_home(), entries=entries)
    return {row.ref: _copy_view(found[(row.target, row.text)]) for row in rows if (row.target, row.text) in found}


def _pending_copies(home: Path, rows: list[Any]) -> dict[str, dict[str, Any]]:
    """Each staged remove/replace whose entry has a copy in the active provider → the same choice a
    remove or replace made in the panel offers (``_copy_choice.html``), named after the record."""
    views = {}
    for pending_id, found in contents_selectors.pending_copies(home=home, rows=rows).items():
        views[pending_id] = {**_copy_view(found.copy), "copy": found.copy, "entry": found.entry,
                             "target": found.target, "new_text": found.new_text, "removing": found.new_text is None,
                             "field": f"copy_action_{pending_id}", "idp": f"copy-{pending_id}"}
    return views


def _undo_offer(request: HttpRequest) -> dict[str, Any] | None:
    offer = request.session.get(UNDO_SESSION_KEY)
    if not isinstance(offer, dict):
        return None
    if time.time() - float(offer.get("at", 0)) > UNDO_SECONDS:
        request.session.pop(UNDO_SESSION_KEY, None)
        return None
    return {"deleted": len(offer.get("items", [])), **offer}


def _preview(text: str, width: int = 70) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _refusal_reason(error: str) -> str:
    """A short reason for the admin from the store's (agent-facing) refusal text."""
    if error.startswith("Memory at "):
        return _("it does not fit in the budget")
    if error.startswith("Blocked:"):
        return _("the threat scanner blocks it (%(detail)s)") % {"detail": localise_message(error)}
    return localise_message(error)


def _report_readd(request: HttpRequest, report: services.ReaddReport) -> None:
    if report.added:
        messages.success(
            request,
            _("Added back %(count)d of %(total)d entries.")
            % {
                "count": len(report.added),
                "total": len(report.added) + len(report.already_present) + len(report.refused),
            },
        )
    for target, text in report.already_present:
        messages.info(
            request,
            _("Already in %(file)s: “%(entry)s”") % {"file": services.FILE_NAMES[target], "entry": _preview(text)},
        )
    for target, text, why in report.refused:
        messages.warning(
            request,
            _("Not added back to %(file)s: “%(entry)s” — %(reason)s")
            % {"file": services.FILE_NAMES[target], "entry": _preview(text), "reason": _refusal_reason(why)},
        )


# --- pages ----------------------------------------------------------------------------------------


@require_GET
@viewer_required
def memory_page(request: HttpRequest) -> HttpResponse:
    home = current_home()
    overview = selectors.memory_overview(home=home)
    record_budget_samples(home=home, states=[store.state for store in overview.stores])
    context = _live_context(request, overview, "page")
    context["undo"] = _undo_offer(request) if context["can_change"] else None
    return render(request, "memory/page.html", context)


@require_GET
@viewer_required
def memory_blocked(request: HttpRequest) -> HttpResponse:
    overview = selectors.memory_overview(home=current_home())
    context = _live_context(request, overview, "blocked")
    context["nothing_selected"] = request.GET.get("selection") == "none"
    return render(request, "memory/blocked.html", context)


@require_GET
@viewer_required
def memory_pending(request: HttpRequest) -> HttpResponse:
    overview = selectors.memory_overview(home=current_home())
    return render(request, "memory/pending.html", _live_context(request, overview, "pending"))


@require_GET
@viewer_required
def memory_snapshot(request: HttpRequest) -> HttpResponse:
    overview = selectors.memory_overview(home=current_home())
    return render(request, "memory/snapshot.html", {"overview": overview})


@require_GET
@viewer_required
def memory_poll(request: HttpRequest) -> HttpResponse:
    """204 while the stores are unchanged (a few ``stat`` calls, no render), else the live part."""
    view = request.GET.get("view", "page")
    if view not in LIVE_PARTIALS:
        response = HttpResponse(status=400)
    else:
        home = current_home()
        if request.GET.get("fp", "") == selectors.current_fingerprint(home=home):
            response = HttpResponse(status=204)
        else:
            overview = selectors.memory_overview(home=home)
            response = render(request, LIVE_PARTIALS[view], _live_context(request, overview, view))
            response[FINGERPRINT_HEADER] = overview.fingerprint
    # Set by hand rather than with never_cache: this runs twice a second per open tab.
    response["Cache-Control"] = "no-store"
    return response


@require_GET
@viewer_required
def memory_events(request: HttpRequest) -> HttpResponse:
    """Server-sent events carrying the stores' fingerprint whenever it changes (never content)."""
    home = current_home()
    return event_stream(request, paths=selectors.fingerprint_paths(home=home),
                        fingerprint=lambda: selectors.current_fingerprint(home=home), allowed=can_view)


@require_GET
@viewer_required
def memory_pending_events(request: HttpRequest) -> HttpResponse:
    """Server-sent events carrying the number of writes waiting for approval whenever it changes:
    the header's badge on every page (a count, never content)."""
    home = current_home()
    return event_stream(request, paths=(pending_dir(home),), fingerprint=lambda: str(count_pending(home)),
                        allowed=can_view)


# --- adding and editing ---------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
@admin_required
def memory_entry_add(request: HttpRequest, target: str) -> HttpResponse:
    target = _target_or_404(target)
    home = current_home()
    # The form shows the file's name, usage and whether the panel writes it: no threat scan of
    # every entry, which a store of thousands of entries would make slow.
    state = selectors.store_file(home=home, target=target)
    form = EntryForm(request.POST or None)
    outcome = None
    if request.method == "POST" and form.is_valid():
        outcome = services.add_entry(home=home, user=request.user, target=target, content=form.cleaned_data["content"])
        if outcome.ok:
            messages.success(request, outcome.message)
            return _done(request, _next_url(request))
    context = {
        "mode": "add",
        "target": target,
        "state": state,
        "refusal": _refusal(state, outcome),
        "form": form,
        "outcome": outcome,
        "action_url": reverse("memory_entry_add", args=[target]),
        "next": _next_url(request),
    }
    return _page(request, "memory/entry_form.html", context, status=_form_status(request, form, outcome))


@require_http_methods(["GET", "POST"])
@admin_required
def memory_entry_edit(request: HttpRequest, target: str, key: str) -> HttpResponse:
    target = _target_or_404(target)
    if not selectors.is_entry_key(key):
        raise Http404(_("There is no such entry."))
    home = current_home()
    # The form shows the file's name, usage and whether the panel writes it: no threat scan of
    # every entry, which a store of thousands of entries would make slow.
    state = selectors.store_file(home=home, target=target)
    current = selectors.find_entry(home=home, target=target, key=key)
    context: dict[str, Any] = {
        "mode": "edit",
        "target": target,
        "state": state,
        "refusal": services.write_refusal(state),
        "action_url": reverse("memory_entry_edit", args=[target, key]),
        "next": _next_url(request),
        "current": current,
    }
    if current is None:
        context["gone"] = True
        return _page(request, "memory/entry_form.html", context, status=404)
    form = EntryForm(request.POST or None, initial={"content": current})
    copy = contents_selectors.entry_copies(home=home, entries={target: [current]}).get((target, current))
    context["entry_copy"] = _copy_view(copy) if copy is not None else None
    outcome = None
    if request.method == "POST" and form.is_valid():
        outcome = services.edit_entry(
            home=home,
            user=request.user,
            target=target,
            old_content=current,
            new_content=form.cleaned_data["content"],
        )
        if outcome.ok:
            messages.success(request, outcome.message)
            changed = form.cleaned_data["content"].strip() != current.strip()
            if copy is not None and context["entry_copy"] is not None and changed:
                handle_copy(request, home=home, copy=copy, view=context["entry_copy"], old_text=current,
                             new_text=form.cleaned_data["content"])
            return _done(request, _next_url(request))
    context.update(form=form, outcome=outcome, refusal=_refusal(state, outcome))
    # The entry changed between this request's read and the store's lock: nothing was written.
    return _page(request, "memory/entry_form.html", context, status=_form_status(request, form, outcome))


# --- deleting and undo ----------------------------------------------------------------------------


NOTHING_SELECTED = "selection=none"


def _nothing_picked_on_blocked_page(request: HttpRequest, next_url: str) -> bool:
    return (request.method == "GET" and not request.htmx and not request.GET.getlist("entry")
            and next_url == reverse("memory_blocked"))


@require_http_methods(["GET", "POST"])
@admin_required
def memory_delete_confirm(request: HttpRequest) -> HttpResponse:
    """GET: the confirmation page listing exactly what will be deleted. POST: delete it."""
    home = current_home()
    form = EntrySelectionForm(request.POST if request.method == "POST" else request.GET)
    next_url = _next_url(request)
    if not form.is_valid():
        if _nothing_picked_on_blocked_page(request, next_url):
            # Without scripts the button cannot wait for a selection; say it beside the list.
            return redirect(f"{next_url}?{NOTHING_SELECTED}#blocked-bar")
        return _page(request, "memory/delete_confirm.html", {"form": form, "refs": [], "next": next_url}, status=400)
    refs = selectors.resolve_refs(home=home, refs=form.cleaned_data["entry"])
    if request.method == "GET":
        return _page(
            request,
            "memory/delete_confirm.html",
            {
                "form": form,
                "refs": refs,
                "present": [ref for ref in refs if ref.text is not None],
                "gone": [ref for ref in refs if ref.text is None],
                "copies": ref_copies(home, refs),
                "next": next_url,
            },
        )
    copies = ref_copies(home, refs)  # looked up before the delete: the entry is what names its copy
    outcome = services.delete_entries(home=home, user=request.user, refs=refs)
    for level, text in outcome.messages:
        messages.add_message(request, getattr(messages, level.upper()), text)
    wanted = set(request.POST.getlist("also_copy"))
    deleted = set(outcome.deleted)
    picked = [(target, text) for (target, text, ref), _copy in copies.items() if ref in wanted
              and (target, text) in deleted]
    chosen = [copy for (target, text, ref), copy in copies.items() if ref in wanted and (target, text) in deleted]
    done = contents_services.remove_copies(home=home, user=request.user, copies=[c["copy"] for c in chosen],
                                           texts=[text for _target, text in picked])
    report_copies(request, done, chosen)
    if outcome.restorable:
        # Each copy's undo names its entry: the undo puts a copy back only with its entry.
        undos = [{**undo, "entry": list(entry)} for entry, undo in zip(picked, (o.undo for o in done), strict=True)
                 if undo is not None]
        request.session[UNDO_SESSION_KEY] = {"at": time.time(), "deleted": len(outcome.deleted),
                                            "items": [list(item) for item in outcome.restorable], "copies": undos}
    return _done(request, next_url)


def copy_undos(outcomes: list[Any]) -> list[dict[str, Any]]:
    """What an undo needs to reverse the copies a change deleted or updated (kept in the session)."""
    return [outcome.undo for outcome in outcomes if outcome.removed and outcome.undo is not None]


def undo_copies(request: HttpRequest, *, home: Path, undos: Any) -> None:
    """The copies the undone change deleted put back (its updated ones given their old text), one
    line each: a provider that cannot put a deleted item back says so."""
    results = contents_services.undo_copies(home=home, user=request.user,
                                            undos=undos if isinstance(undos, list) else [])
    for result in results:
        view = {"provider": result.provider, "label": _copy_label(result.provider, result.label)}
        if result.ok:
            messages.success(request, _("%(provider)s: its copy (%(label)s) is back as it was too.") % view)
        elif result.why == "impossible":
            messages.warning(request, _("%(provider)s: its copy (%(label)s) cannot be put back: %(provider)s "
                                        "allows no undo of a delete. The entry is back in the built-in store "
                                        "only.") % view)
        else:
            messages.error(request, _("%(provider)s: its copy (%(label)s) was NOT put back (%(why)s); the entry "
                                      "itself is back.") % {**view, "why": _copy_failure(result.why)})


def ref_copies(home: Path, refs: list[selectors.ResolvedRef]) -> dict[tuple[str, str, str], dict[str, Any]]:
    entries: dict[str, list[str]] = {}
    for ref in refs:
        if ref.text is not None:
            entries.setdefault(ref.target, []).append(ref.text)
    found = contents_selectors.entry_copies(home=home, entries=entries)
    return {(ref.target, ref.text, ref.ref): {**_copy_view(found[(ref.target, ref.text)]), "ref": ref.ref,
                                               "copy": found[(ref.target, ref.text)]}
            for ref in refs if ref.text is not None and (ref.target, ref.text) in found}


COPY_ACTIONS = ("update", "delete", "keep")


def handle_copy(request: HttpRequest, *, home: Path, copy: contents_selectors.EntryCopy, view: dict[str, Any],
                old_text: str, new_text: str | None, field: str = "copy_action") -> list[Any]:
    """The replaced (or, with ``new_text`` None, removed) entry's copy, as the person chose in
    ``field``: updated to the new text, deleted, or kept. A form from before the choice existed
    sends only ``also_copy`` (delete when ticked). Returns what was done, for an undo."""
    action = request.POST.get(field, "")
    if action not in COPY_ACTIONS:
        action = "delete" if request.POST.get("also_copy") else "keep"
    if action == "update" and copy.can_update and new_text is not None:
        outcomes = [contents_services.update_copy(home=home, user=request.user, copy=copy, old_text=old_text,
                                                  new_text=new_text)]
    elif action == "delete":
        outcomes = contents_services.remove_copies(home=home, user=request.user, copies=[copy], texts=[old_text])
    else:
        if new_text is None:
            messages.info(request, _("%(provider)s: its copy (%(label)s) was left as it is; it still holds the "
                                     "removed entry's text.") % view)
        else:
            messages.info(request, _("%(provider)s: its copy (%(label)s) was left as it is; it still holds the "
                                     "text before your change.") % view)
        return []
    report_copies(request, outcomes, [view])
    return outcomes


def _copy_failure(why: str) -> str:
    texts = {
        "busy": _("the agent is writing to its store right now"),
        "changed": _("it changed since you opened the form"),
        "clash": _("another item already holds the new text"),
        "unmatched": _("it does not hold the entry's text word for word"),
        "unwritable": _("the store could not be written"),
    }
    return str(texts.get(why, _("the store refused")))


def report_copies(request: HttpRequest, outcomes: list[Any], chosen: list[dict[str, Any]]) -> None:
    """One line per copy, naming the layer: the built-in entry is gone either way (said above)."""
    for outcome, view in zip(outcomes, chosen, strict=True):
        if outcome.action == "update":
            if outcome.removed:
                messages.success(request, _("%(provider)s: its copy (%(label)s) now holds the new text too.") % view)
            elif outcome.why == "gone":
                messages.info(request, _("%(provider)s: its copy (%(label)s) was already gone.") % view)
            else:
                messages.error(request, _("%(provider)s: its copy (%(label)s) was NOT updated (%(why)s); the entry "
                                          "itself is changed. The copy still holds the text before your change: "
                                          "update or delete it from the provider's page.")
                               % {**view, "why": _copy_failure(outcome.why)})
        elif outcome.removed:
            messages.success(request, _("%(provider)s: its copy (%(label)s) was deleted too.") % view)
        elif outcome.why == "gone":
            messages.info(request, _("%(provider)s: its copy (%(label)s) was already gone.") % view)
        elif view["provider"] == "byterover":
            # byterover keeps no left-behind list (its copies are found by text): point at its tree.
            messages.error(request, format_html(
                _("{provider}: its copy ({label}) was NOT deleted (the store refused or changed); the entry "
                  "itself is deleted. The file is still in the context tree: delete it from "
                  "<a href=\"{url}\">what byterover remembers</a>."),
                provider=view["provider"], label=view["label"], url=reverse("provider_contents", args=["byterover"])))
        else:
            messages.error(request, _("%(provider)s: its copy (%(label)s) was NOT deleted (the store refused or "
                                      "changed); the entry itself is deleted. The copy is listed under "
                                      "“Copies left behind”.") % view)


@require_POST
@admin_required
def memory_undo(request: HttpRequest) -> HttpResponse:
    offer = _undo_offer(request)
    request.session.pop(UNDO_SESSION_KEY, None)
    if offer is None:
        messages.warning(request, _("There is nothing to undo any more."))
        return _done(request, _next_url(request))
    items = [
        (str(target), str(text))
        for target, text in offer.get("items", [])
        if selectors.is_target(target) and isinstance(text, str)
    ]
    report = services.readd_entries(home=current_home(), user=request.user, items=items, reason="undo")
    _report_readd(request, report)
    back = {*report.added, *report.already_present}
    undos = offer.get("copies") if isinstance(offer.get("copies"), list) else []
    undo_copies(request, home=current_home(), undos=[u for u in undos if isinstance(u, dict)
                                                     and tuple(u.get("entry") or ()) in back])
    return _done(request, _next_url(request))


@require_POST
@admin_required
def memory_undo_dismiss(request: HttpRequest) -> HttpResponse:
    request.session.pop(UNDO_SESSION_KEY, None)
    return _done(request, _next_url(request))


# --- pending writes -------------------------------------------------------------------------------


@require_POST
@admin_required
def memory_pending_action(request: HttpRequest) -> HttpResponse:
    """Approve or reject pending writes: one (a row's button) or the selected ones."""
    home = current_home()
    next_url = _next_url(request, reverse("memory_pending"))
    data = request.POST.copy()
    row_action = data.get("row_action", "")
    if row_action:
        # A row's own button: "approve:<id>" or "reject:<id>".
        action, _sep, pending_id = row_action.partition(":")
        data.setlist("pending_id", [pending_id])
        data["action"] = action
    form = PendingActionForm(data)
    if not form.is_valid():
        for errors in form.errors.values():
            for error in errors:
                messages.error(request, error)
        if request.htmx:
            return _done(request, next_url)
        # Without JavaScript: the pending list again, with the message, as a 400 (nothing was done).
        overview = selectors.memory_overview(home=home)
        return render(request, "memory/pending.html", _live_context(request, overview, "pending"), status=400)
    ids = form.cleaned_data["pending_id"]
    if form.cleaned_data["action"] == "approve":
        # Looked up before the approval, as a direct remove does: the entry is what names its copy.
        pending_rows, _unreadable = selectors.pending_queue(home=home)
        copies = _pending_copies(home, [row for row in pending_rows if row.id in set(ids)])
        for outcome in services.approve_pending(home=home, user=request.user, ids=ids):
            if outcome.ok:
                messages.success(
                    request,
                    _("Approved and saved %(id)s: %(summary)s")
                    % {"id": outcome.pending_id, "summary": outcome.summary},
                )
                view = copies.get(outcome.pending_id)
                # Only once the entry is really gone from its store (the approval took it out).
                if view is not None and view["entry"] not in contents_selectors.builtin_entries(home=home).get(
                        view["target"], []):
                    handle_copy(request, home=home, copy=view["copy"], view=view, old_text=view["entry"],
                                new_text=view["new_text"], field=view["field"])
            else:
                messages.error(
                    request,
                    _("Could not apply %(id)s; it stays pending. The store said: %(error)s")
                    % {"id": outcome.pending_id, "error": localise_message(outcome.error)},
                )
    else:
        for outcome in services.reject_pending(home=home, user=request.user, ids=ids):
            if outcome.ok:
                messages.success(
                    request, _("Rejected %(id)s: %(summary)s") % {"id": outcome.pending_id, "summary": outcome.summary}
                )
            else:
                messages.error(
                    request,
                    _("Could not reject %(id)s: %(error)s")
                    % {"id": outcome.pending_id, "error": localise_message(outcome.error)},
                )
    return _done(request, next_url)


# --- drift backups --------------------------------------------------------------------------------


def _backup_or_404(*, home: Path, target: str, name: str) -> Any:
    backup = selectors.find_backup(home=home, target=target, name=name)
    if backup is None:
        raise Http404(_("There is no such backup."))
    return backup


@require_GET
@viewer_required
def memory_backups(request: HttpRequest, target: str) -> HttpResponse:
    target = _target_or_404(target)
    home = current_home()
    state = selectors.store_state(home=home, target=target)
    return render(
        request,
        "memory/backups.html",
        {"target": target, "state": state, "backups": selectors.backups(home=home, target=target)},
    )


@require_GET
@viewer_required
def memory_backup_detail(request: HttpRequest, target: str, name: str) -> HttpResponse:
    target = _target_or_404(target)
    home = current_home()
    backup = _backup_or_404(home=home, target=target, name=name)
    detail = selectors.backup_detail(home=home, target=target, backup=backup)
    state = selectors.store_state(home=home, target=target)
    return render(
        request,
        "memory/backup_detail.html",
        {
            "target": target,
            "detail": detail,
            "state": state,
            "refusal": services.write_refusal(state),
            "can_change": can_change(request.user),
        },
    )


@require_http_methods(["GET", "POST"])
@admin_required
def memory_restore(request: HttpRequest, target: str, name: str) -> HttpResponse:
    """GET: confirm which backup entries will be added back. POST: add them (normal add path)."""
    target = _target_or_404(target)
    home = current_home()
    backup = _backup_or_404(home=home, target=target, name=name)
    detail = selectors.backup_detail(home=home, target=target, backup=backup)
    by_key = {entry.key: entry for entry in detail.entries}
    form = BackupSelectionForm(request.POST if request.method == "POST" else request.GET, keys=list(by_key))
    detail_url = reverse("memory_backup_detail", args=[target, name])
    if not form.is_valid():
        return _page(
            request,
            "memory/restore_confirm.html",
            {"form": form, "detail": detail, "target": target, "chosen": [], "back_url": detail_url},
            status=400,
        )
    chosen = [by_key[key] for key in form.cleaned_data["entry"]]
    if request.method == "GET":
        state = selectors.store_state(home=home, target=target)
        return _page(
            request,
            "memory/restore_confirm.html",
            {
                "form": form,
                "detail": detail,
                "target": target,
                "chosen": chosen,
                "back_url": detail_url,
                "refusal": services.write_refusal(state),
            },
        )
    report = services.readd_entries(
        home=home, user=request.user, items=[(target, entry.text) for entry in chosen], reason=f"backup {name}"
    )
    _report_readd(request, report)
    return _done(request, detail_url)

"""The maintenance page of a store: duplicate groups, hygiene findings and the budget history,
and the merge flow (pick, edit, review, confirm) that also deletes or rewrites a single entry.

Thin views: reads through ``admin_panel.selectors.maintenance``, writes through
``admin_panel.services.maintenance``. Works without JavaScript: every step is a plain form.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from admin_panel.agent_home import current_home
from admin_panel.forms.maintenance import AgeForm, MergeForm
from admin_panel.permissions import admin_required, can_change, viewer_required
from admin_panel.selectors import maintenance as selectors
from admin_panel.selectors import memory as memory_selectors
from admin_panel.services import maintenance as services
from admin_panel.services import provider_contents as contents_services
from admin_panel.services.memory import write_refusal
from admin_panel.services.write_errors import DISK_FULL_STATUS
from admin_panel.views.memory import UNDO_SECONDS, copy_undos, handle_copy, ref_copies, report_copies, undo_copies


def _target_or_404(target: str) -> str:
    if not memory_selectors.is_target(target):
        raise Http404(_("There is no such memory store."))
    return target


def _undo_offer(request: HttpRequest, target: str) -> dict[str, Any] | None:
    offer = request.session.get(services.UNDO_SESSION_KEY)
    if not isinstance(offer, dict) or offer.get("target") != target:
        return None
    if time.time() - float(offer.get("at", 0)) > UNDO_SECONDS:
        request.session.pop(services.UNDO_SESSION_KEY, None)
        return None
    return offer


@require_GET
@viewer_required
def memory_maintenance(request: HttpRequest, target: str) -> HttpResponse:
    target = _target_or_404(target)
    home = current_home()
    state = memory_selectors.store_state(home=home, target=target)
    services.record_budget_samples(home=home, states=[state])
    age_form = AgeForm(request.GET if "older_than" in request.GET else None)
    max_age = age_form.cleaned_data.get("older_than") if age_form.is_valid() else None
    view = selectors.maintenance_view(home=home, target=target, state=state, max_age_days=max_age)
    allowed = can_change(request.user)
    return render(
        request,
        "maintenance/page.html",
        {
            "view": view,
            "age_form": age_form,
            "max_age": max_age,
            "target": target,
            "can_change": allowed,
            "refusal": write_refusal(view.state),
            "undo": _undo_offer(request, target) if allowed else None,
            "merge_url": reverse("memory_merge", args=[target]),
        },
    )


def _merge_context(
    request: HttpRequest, *, target: str, form: MergeForm, refs: list[memory_selectors.ResolvedRef]
) -> dict[str, Any]:
    state = memory_selectors.store_state(home=current_home(), target=target)
    return {
        "target": target,
        "state": state,
        "form": form,
        "refs": refs,
        "present": [ref for ref in refs if ref.text is not None],
        "gone": [ref for ref in refs if ref.text is None],
        "refusal": write_refusal(state),
        "page_url": reverse("memory_maintenance", args=[target]),
        "action_url": reverse("memory_merge", args=[target]),
    }


@require_http_methods(["GET", "POST"])
@admin_required
def memory_merge(request: HttpRequest, target: str) -> HttpResponse:
    """GET ``?entry=<ref>&entry=<ref>``: the edit step, prefilled. POST ``step=review``: what the
    store would hold. POST ``step=confirm``: write it (one batch), or refuse with nothing written."""
    target = _target_or_404(target)
    home = current_home()
    data = request.POST if request.method == "POST" else request.GET
    form = MergeForm(data)
    if not form.is_valid() and "entry" in form.errors:
        context = _merge_context(request, target=target, form=form, refs=[])
        return render(request, "maintenance/merge.html", context, status=400)
    picked = form.cleaned_data.get("entry", []) if form.is_valid() else []
    refs = [ref for ref in memory_selectors.resolve_refs(home=home, refs=picked) if ref.target == target]
    context = _merge_context(request, target=target, form=form, refs=refs)
    if not refs:
        return render(request, "maintenance/merge.html", context, status=400)
    originals = [ref.text for ref in refs if ref.text is not None]
    if context["gone"] or context["refusal"]:
        # Something the admin picked changed (or the file cannot be written): show it, write nothing.
        return render(request, "maintenance/merge.html", context, status=409 if request.method == "POST" else 200)
    step = (form.cleaned_data.get("step") if form.is_valid() else "") or "edit"
    if request.method == "GET" or step == "edit":
        text = form.cleaned_data.get("content") if request.method == "POST" else None
        context["text"] = selectors.suggested_text(originals) if text is None else text
        context["step"] = "edit"
        return render(request, "maintenance/merge.html", context)
    merged = form.cleaned_data["content"]
    # The picked entries' copies in the active provider, except one that already holds the result.
    copies = {key: copy for key, copy in ref_copies(home, context["present"]).items()
              if key[1].strip() != merged.strip()}
    rewrite = len(originals) == 1 and bool(merged.strip())
    context.update(copies=copies, rewrite_copy=next(iter(copies.values())) if rewrite and copies else None)
    if step == "review":
        context.update(
            step="review",
            text=merged,
            preview=selectors.merge_preview(state=context["state"], originals=originals, merged=merged),
        )
        return render(request, "maintenance/merge.html", context)
    outcome = services.apply_change(home=home, user=request.user, target=target, originals=originals, merged=merged)
    if outcome.ok:
        messages.success(request, outcome.message)
        done = _follow_copies(request, home=home, copies=copies, rewrite=rewrite, changed=outcome.changed or [],
                              merged=merged)
        if outcome.undo is not None:
            request.session[services.UNDO_SESSION_KEY] = {**outcome.undo, "copies": copy_undos(done)}
        return redirect(context["page_url"])
    context.update(
        step="review",
        text=merged,
        outcome=outcome,
        preview=selectors.merge_preview(state=context["state"], originals=originals, merged=merged)
        if not outcome.gone
        else None,
    )
    return render(request, "maintenance/merge.html", context, status=DISK_FULL_STATUS if outcome.disk_full else 409)


def _follow_copies(request: HttpRequest, *, home: Path, copies: dict[Any, dict[str, Any]], rewrite: bool,
                   changed: list[str], merged: str) -> list[Any]:
    """The provider copies of what the merge removed: a rewrite of one entry updates, deletes or
    keeps its copy as chosen; entries merged away or deleted lose the copies that were ticked.
    Returns what was done to them, which the change's undo reverses."""
    done: list[Any] = []
    if rewrite:
        for (_target, text, _ref), view in copies.items():
            if text in changed:
                done += handle_copy(request, home=home, copy=view["copy"], view=view, old_text=text, new_text=merged)
        return done
    wanted = set(request.POST.getlist("also_copy"))
    picked = [(text, view) for (_target, text, ref), view in copies.items() if ref in wanted and text in changed]
    done = contents_services.remove_copies(home=home, user=request.user, copies=[view["copy"] for _t, view in picked],
                                           texts=[text for text, _view in picked])
    report_copies(request, done, [view for _text, view in picked])
    return done


@require_POST
@admin_required
def memory_maintenance_undo(request: HttpRequest, target: str) -> HttpResponse:
    target = _target_or_404(target)
    offer = _undo_offer(request, target)
    request.session.pop(services.UNDO_SESSION_KEY, None)
    page_url = reverse("memory_maintenance", args=[target])
    if offer is None:
        messages.warning(request, _("There is nothing to undo any more."))
        return redirect(page_url)
    outcome = services.undo_change(home=current_home(), user=request.user, offer=offer)
    (messages.success if outcome.ok else messages.error)(request, outcome.message)
    if outcome.ok:
        undo_copies(request, home=current_home(), undos=offer.get("copies"))
    return redirect(page_url)

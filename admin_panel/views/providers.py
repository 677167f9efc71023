"""Provider pages: the list, one provider's generic form, review-then-save, activation.

Thin views: state comes from ``admin_panel.selectors.providers`` (provider_schemas underneath),
writes go through ``admin_panel.services.providers``. Every page works without JavaScript;
htmx only re-renders single rows (validation when a field is left, ``when`` visibility).
"""

from __future__ import annotations

from functools import wraps
from pathlib import Path
from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST

import provider_schemas
from admin_panel import responses
from admin_panel.agent_home import current_home
from admin_panel.event_stream import event_stream
from admin_panel.forms.declared import Submission, parse_submission
from admin_panel.forms.provider import hidden_summary, provider_form, sections, visibility_flipped
from admin_panel.localisation import (
    localise_entry,
    localise_missing_secrets,
    localise_overview,
    localise_provider_state,
    not_ready_message,
    secret_store_error_message,
)
from admin_panel.permissions import admin_required, can_change, can_view, viewer_required
from admin_panel.selectors import providers as selectors
from admin_panel.services import providers as services
from provider_schemas.profiles import honcho_hosts


def _store_page(request: HttpRequest, reason: str) -> HttpResponse:
    return render(request, "providers/store_unavailable.html", {"reason": reason}, status=503)


def store_errors(view: Any) -> Any:
    """A keyring that cannot be used (locked, no backend) is reported on a page of its own: the
    provider pages cannot say whether secrets are set without it. Nothing is written."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            return view(request, *args, **kwargs)
        except provider_schemas.SecretStoreUnavailable as exc:
            return _store_page(request, secret_store_error_message(exc))

    return wrapper


NEXT_START = gettext_lazy("Changes apply the next time the agent starts; running conversations keep their settings.")


# --- helpers --------------------------------------------------------------------------------------


def _state_or_404(*, home: Path, name: str) -> Any:
    try:
        return localise_provider_state(selectors.provider_state(home=home, name=name))
    except (provider_schemas.InvalidProviderName, provider_schemas.UnknownProvider):
        raise Http404(_("Unknown memory provider.")) from None


def _entry_or_404(*, home: Path, name: str) -> Any:
    try:
        entry = provider_schemas.get_provider(home=home, name=name)
    except provider_schemas.InvalidProviderName:
        raise Http404(_("Unknown memory provider.")) from None
    if entry is None:
        raise Http404(_("Unknown memory provider."))
    return localise_entry(entry)


def _secret_store_label(store: str) -> str:
    return _("the OS keyring") if store == "keyring" else _(".env file")


def _detail_context(
    request: HttpRequest,
    *,
    home: Path,
    state: Any,
    sub: Submission | None = None,
    errors: dict[str, str] | None = None,
    details: dict[str, Any] | None = None,
    conflict: list[str] | None = None,
    notice: str = "",
    fresh_values: bool = False,
) -> dict[str, Any]:
    editable = can_change(request.user) and state.can_save
    store_label = _secret_store_label(selectors.secret_store_for(home=home))
    form = provider_form(
        state,
        sub=sub,
        errors=errors,
        details=details,
        disabled=not editable,
        validate_url=reverse("provider_field", args=[state.name]) if editable else "",
        fresh_values=fresh_values,
        secret_store_label=store_label,
    )
    fields = form.field_groups
    return {
        "state": state,
        "form": form,
        "sections": sections(fields),
        "hidden_summary": hidden_summary(fields),
        "error_fields": [field for field in fields if field.error],
        "editable": editable,
        "can_change": can_change(request.user),
        "conflict": conflict or [],
        "notice": notice,
        "secret_store_label": store_label,
        # Honcho: the host block of every profile, when there is more than one (issue 19).
        "profile_hosts": _profile_hosts(home) if state.host is not None else [],
    }


def _profile_hosts(home: Path) -> list[Any]:
    rows = honcho_hosts(home=home)
    return rows if len(rows) > 1 else []


def _render_detail(request: HttpRequest, context: dict[str, Any], status: int = 200) -> HttpResponse:
    return render(request, "providers/detail.html", context, status=status)


# --- pages ----------------------------------------------------------------------------------------


@require_GET
@viewer_required
@store_errors
def provider_list(request: HttpRequest) -> HttpResponse:
    home = current_home()
    overview = localise_overview(selectors.providers_overview(home=home), home=home)
    return render(
        request,
        "providers/list.html",
        {"overview": overview, "can_change": can_change(request.user)},
    )


@require_http_methods(["GET", "POST"])
@viewer_required
@store_errors
def provider_detail(request: HttpRequest, name: str) -> HttpResponse:
    """The form. A POST here is "Back to the form" from the review page: edits are kept."""
    home = current_home()
    if request.method == "POST" and not can_change(request.user):
        return redirect("provider_detail", name=name)
    state = _state_or_404(home=home, name=name)
    entry = state.entry
    if not entry.has_schema:
        return render(
            request,
            "providers/no_settings.html",
            {
                "entry": entry,
                "can_change": can_change(request.user),
                "active_name": provider_schemas.normalise_active_provider(services.current_active(home=home)),
                "is_builtin": entry.name == provider_schemas.BUILTIN_NAME,
            },
        )
    if request.method == "POST":
        sub = parse_submission(state.fields, request.POST, schema=state.entry.schema)
        notice = ""
        if sub.secret_actions and any(a == "replace" for a in sub.secret_actions.values()):
            notice = _("New secret values are never sent back to the browser: enter them again before saving.")
            for key, action in sub.secret_actions.items():
                if action == "replace":
                    sub.errors[key] = _("Enter the new value again.")
        context = _detail_context(request, home=home, state=state, sub=sub,
                                  errors=sub.errors, notice=notice)
        return _render_detail(request, context)
    context = _detail_context(request, home=home, state=state)
    # Taken right after the read: the stream's first message tells the page whether it is current.
    context["live_fingerprint"] = selectors.files_fingerprint(
        selectors.provider_watch_paths(home=home, name=name, state=state))
    return _render_detail(request, context)


@require_GET
@viewer_required
def provider_events(request: HttpRequest, name: str) -> HttpResponse:
    """Server-sent events carrying the fingerprint of the provider's files whenever it changes."""
    home = current_home()
    state = _state_or_404(home=home, name=name)  # the name guard runs before any path is made
    paths = selectors.provider_watch_paths(home=home, name=name, state=state)
    return event_stream(request, paths=paths, fingerprint=lambda: selectors.files_fingerprint(paths),
                        allowed=can_view)


@require_POST
@admin_required
@store_errors
def provider_field(request: HttpRequest, name: str) -> HttpResponse:
    """htmx: validate the field the user just left and re-render that row (plus any row whose
    visibility flipped, out of band). Nothing is written."""
    home = current_home()
    state = _state_or_404(home=home, name=name)
    key = request.GET.get("key", "")
    if key not in {f.key for f in state.fields}:
        raise Http404(_("Unknown field."))
    sub = parse_submission(state.fields, request.POST, schema=state.entry.schema)
    errors: dict[str, str] = {}
    details: dict[str, Any] = {}
    if key in sub.errors:
        errors[key] = sub.errors[key]
    elif key in sub.value_errors:  # refused by the field's own rules: no plan needed to say so
        problem = sub.value_errors[key]
        errors[key] = problem.text
        details = {key: problem.violation} if problem.violation is not None else {}
    elif key in sub.values or key in sub.clear:
        plan = services.plan_provider_save(
            home=home, name=name, values={key: sub.values[key]} if key in sub.values else {},
            clear=[key] if key in sub.clear else [],
        )
        if key in plan.errors:
            errors[key] = plan.errors[key]
            details = {key: plan.error_details[key]} if key in plan.error_details else {}
    store_label = _secret_store_label(selectors.secret_store_for(home=home))
    fields = provider_form(state, sub=sub, errors=errors, details=details,
                           validate_url=reverse("provider_field", args=[name]),
                           secret_store_label=store_label).field_groups
    return render(
        request,
        "providers/partials/_field_response.html",
        {
            "field": next(field for field in fields if field.key == key),
            "oob_fields": visibility_flipped(fields, key=key, data=request.POST),
            "hidden_summary": hidden_summary(fields),
            "editable": True,
        },
    )


def _form_page(request: HttpRequest, *, home: Path, name: str, state: Any, sub: Submission) -> dict[str, Any]:
    """The callbacks ``responses.form_failure`` answers with: this form again with the user's edits."""

    def show(*, status: int = 200, errors: Any = None, details: Any = None, conflict: Any = None,
             storage_error: str = "", notice: str = "", fresh_values: bool = False) -> HttpResponse:
        shown = state
        if fresh_values:  # after a conflict the rows the user did not change show the files' new values
            shown = _state_or_404(home=home, name=name)
        context = _detail_context(request, home=home, state=shown, sub=sub,
                                  errors=errors, details=details, conflict=conflict,
                                  notice=notice, fresh_values=fresh_values)
        if storage_error:
            context["storage_error"] = storage_error
        return _render_detail(request, context, status=status)

    def fallback(message: str) -> HttpResponse:
        messages.error(request, message)
        return redirect("provider_detail", name=name)

    return {"show": show, "fallback": fallback}


@require_POST
@admin_required
@store_errors
def provider_review(request: HttpRequest, name: str) -> HttpResponse:
    """Validate everything and show exactly what a save would change. Nothing is written."""
    home = current_home()
    state = _state_or_404(home=home, name=name)
    if state.schema is None:
        return redirect("provider_detail", name=name)
    sub = parse_submission(state.fields, request.POST, schema=state.entry.schema)
    fingerprint = request.POST.get("fingerprint", "")
    page = _form_page(request, home=home, name=name, state=state, sub=sub)
    if sub.errors:
        return page["show"](errors=sub.errors, status=400)
    outcome = services.review_provider_changes(home=home, name=name, values=sub.values, clear=sub.clear,
                                               expected_fingerprint=fingerprint or None)
    if not outcome.ok:
        return responses.form_failure(outcome, **page, store_page=lambda reason: _store_page(request, reason))
    plan = outcome.plan
    if not plan.changes:
        context = _detail_context(request, home=home, state=state, sub=sub)
        context["notice"] = _("Nothing to save: no setting differs from what is stored.")
        context["ignored"] = plan.ignored
        return _render_detail(request, context)
    token = ""
    if sub.secret_values:
        token = services.held_secrets.put(user_id=request.user.pk, home=home, name=name, values=sub.secret_values)
    return render(
        request,
        "providers/review.html",
        {
            "state": state,
            "plan": plan,
            "fingerprint": fingerprint,
            "plain_values": sub.plain_values,
            "edited": sub.edited,
            "clear": sub.clear,
            "secret_replace": sorted(sub.secret_values),
            "secret_clear": [key for key, action in sub.secret_actions.items() if action == "clear"],
            "token": token,
            "labels": {f.key: f.label for f in state.fields},
            "secret_store_label": _secret_store_label(selectors.secret_store_for(home=home)),
        },
    )


@require_POST
@admin_required
@store_errors
def provider_save(request: HttpRequest, name: str) -> HttpResponse:
    """Commit the reviewed changes, refusing if anything changed since the form was loaded."""
    home = current_home()
    state = _state_or_404(home=home, name=name)
    # The review page posts the same names as the form; new secret values come from memory.
    sub = parse_submission(state.fields, request.POST, schema=state.entry.schema)
    page = _form_page(request, home=home, name=name, state=state, sub=sub)
    if not _take_held_secrets(request, home=home, name=name, sub=sub):
        keys = [k for k, a in sub.secret_actions.items() if a == "replace"]
        errors = {key: _("Enter the new value again: it is only kept for 15 minutes.") for key in keys}
        return page["show"](errors=errors, notice=_("Nothing was saved."), status=400)
    if sub.errors:
        return page["show"](errors=sub.errors, status=400)
    unconfirmed = [k for k, a in sub.secret_actions.items() if a == "clear" and not request.POST.get(f"confirm:{k}")]
    if unconfirmed:
        labels = ", ".join(f.label for f in state.fields if f.key in unconfirmed)
        return page["fallback"](_("Nothing was saved: confirm clearing %(labels)s first.") % {"labels": labels})
    outcome = services.save_provider_changes(user=request.user, channel="panel", home=home, name=name,
                                             values=sub.values, clear=sub.clear,
                                             expected_fingerprint=request.POST.get("fingerprint") or None)
    if not outcome.ok:
        return responses.form_failure(outcome, **page)
    _saved_messages(request, result=outcome.result, name=name, label=state.label)
    return redirect("provider_detail", name=name)


def _take_held_secrets(request: HttpRequest, *, home: Path, name: str, sub: Submission) -> bool:
    """Put the new secret values kept since the review into ``sub``; False when they are gone
    (expired, restarted, someone else's token) or are not the ones the form replaces."""
    replace_keys = [k for k, a in sub.secret_actions.items() if a == "replace"]
    if not replace_keys:
        return True
    held = services.held_secrets.take(request.POST.get("token", ""), user_id=request.user.pk, home=home, name=name)
    if held is None or set(held) != set(replace_keys):
        return False
    for key in replace_keys:
        sub.errors.pop(key, None)
    sub.values.update(held)
    return True


def _saved_messages(request: HttpRequest, *, result: Any, name: str, label: str) -> None:
    if result.written:
        messages.success(request, _("Saved. Changes apply the next time the agent starts."))
    else:
        messages.info(request, _("Nothing needed writing: the files already hold these values."))
    if not result.active or provider_schemas.normalise_active_provider(result.active) != name:
        messages.info(request, _("%(label)s is not the active provider.") % {"label": label})


# --- activation -----------------------------------------------------------------------------------


def _activation_context(*, home: Path, entry: Any) -> dict[str, Any]:
    active = provider_schemas.normalise_active_provider(services.current_active(home=home))
    replaced_label = ""
    if active and active != entry.name:
        try:
            other = provider_schemas.get_provider(home=home, name=active)
        except provider_schemas.InvalidProviderName:
            other = None
        replaced_label = localise_entry(other).label if other is not None else active
    status = "ready"
    missing: list[dict[str, Any]] = []
    schema_error = None
    if entry.has_schema:
        state = localise_provider_state(selectors.provider_state(home=home, name=entry.name))
        status = state.status
        missing = list(state.missing_secrets)
        schema_error = state.schema_error
    return {
        "entry": entry,
        "active": active,
        "is_active": active == entry.name,
        "replaced": active if active and active != entry.name else "",
        "replaced_label": replaced_label,
        "status": status,
        "missing": missing,
        "schema_error": schema_error,
        "can_activate": status == "ready",
    }


@require_http_methods(["GET", "POST"])
@admin_required
@store_errors
def provider_activate(request: HttpRequest, name: str) -> HttpResponse:
    home = current_home()
    entry = _entry_or_404(home=home, name=name)
    if entry.name == provider_schemas.BUILTIN_NAME:
        return redirect("provider_deactivate")
    context = _activation_context(home=home, entry=entry)
    if request.method == "GET":
        return render(request, "providers/activate_confirm.html", context)
    try:
        services.activate_provider(user=request.user, channel="panel", home=home, name=name)
    except provider_schemas.NotReady as exc:
        context.update(error=not_ready_message(exc), can_activate=False,
                       missing=context["missing"] or localise_missing_secrets(exc.missing_secrets))
        return render(request, "providers/activate_confirm.html", context, status=400)
    except provider_schemas.UnknownProvider:
        raise Http404(_("Unknown memory provider.")) from None
    except (provider_schemas.StorageParseError, provider_schemas.SaveFailed) as exc:
        status, context["error"] = responses.page_failure(exc, home=home)
        return render(request, "providers/activate_confirm.html", context, status=status)
    messages.success(
        request,
        _("%(label)s is now the active memory provider. %(when)s") % {"label": entry.label, "when": NEXT_START},
    )
    return redirect("provider_detail", name=name)


@require_http_methods(["GET", "POST"])
@admin_required
@store_errors
def provider_deactivate(request: HttpRequest) -> HttpResponse:
    home = current_home()
    active = provider_schemas.normalise_active_provider(services.current_active(home=home))
    label = active
    if active:
        try:
            entry = provider_schemas.get_provider(home=home, name=active)
        except provider_schemas.InvalidProviderName:
            entry = None
        label = localise_entry(entry).label if entry is not None else active
    context = {"active": active, "active_label": label}
    if request.method == "GET":
        return render(request, "providers/deactivate_confirm.html", context)
    try:
        services.deactivate_provider(user=request.user, channel="panel", home=home)
    except (provider_schemas.StorageParseError, provider_schemas.SaveFailed) as exc:
        status, context["error"] = responses.page_failure(exc, home=home)
        return render(request, "providers/deactivate_confirm.html", context, status=status)
    message = _("Built-in memory only: no external provider is active. %(when)s") % {"when": NEXT_START}
    messages.success(request, message)
    return redirect("providers")

"""The schema author preview: a provider form rendered from a ``config_schema.py`` as users will
see it, with lint findings, the API payload, the storage map, "Try it" and hot reload.

Staff only, GET included (an author's file may hold anything). The browser names files by choice
id only (``admin_panel.selectors.preview``). Files are loaded with the real loader; pasted text is
only ever evaluated statically. "Try it" plans a save and shows it; nothing is ever written.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

import provider_schemas
from admin_panel.agent_home import current_home
from admin_panel.event_stream import event_stream
from admin_panel.forms.declared import Submission, parse_submission
from admin_panel.forms.provider import hidden_summary, provider_form, sections, visibility_flipped
from admin_panel.localisation import localise_provider_state
from admin_panel.permissions import admin_required, can_change
from admin_panel.selectors import preview as selectors

FINGERPRINT_HEADER = "X-Preview-Fingerprint"
# Form overhead allowed on top of the pasted text before the body is refused unread.
FORM_OVERHEAD_BYTES = 256 * 1024


# --- helpers --------------------------------------------------------------------------------------


def _poll_url(choice: selectors.Choice, *, static: bool) -> str:
    query = {"choice": choice.id}
    if static:
        query["mode"] = selectors.MODE_STATIC
    return f"{reverse('schema_preview_poll')}?{urlencode(query)}"


def _stream_url(choice: selectors.Choice) -> str:
    return f"{reverse('schema_preview_events')}?{urlencode({'choice': choice.id})}"


def _too_big(request: HttpRequest) -> bool:
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return False
    return length > selectors.MAX_SCHEMA_BYTES + FORM_OVERHEAD_BYTES


def _paste_limit_message() -> str:
    return _("The pasted text is larger than %(kb)s KB; a schema never needs that much. Nothing was evaluated.") % {
        "kb": selectors.MAX_SCHEMA_BYTES // 1024
    }


def _secret_store_label(session: selectors.PreviewSession) -> str:
    """Where new secrets go, in the provider page's words."""
    return _("the OS keyring") if session.uses_keyring else _(".env file")


def _fragment_context(
    request: HttpRequest,
    *,
    session: selectors.PreviewSession,
    sub: Submission | None = None,
    errors: dict[str, str] | None = None,
    plan: Any = None,
    try_error: str = "",
    tried: bool = False,
) -> dict[str, Any]:
    """Everything ``preview/partials/_preview.html`` needs. The form is the provider page's own
    (``forms.provider.provider_form``) over the provider page's field states."""
    loaded = session.loaded
    store_label = _secret_store_label(session)
    fields: list[Any] = []
    # The form in the reader's language, as on the provider page; the API payload stays as is.
    shown = localise_provider_state(session.state) if session.state is not None else None
    if shown is not None:
        fields = provider_form(
            shown,
            sub=sub,
            errors=errors,
            details=plan.error_details if plan is not None else None,
            validate_url=reverse("schema_preview_field"),
            secret_store_label=store_label,
        ).field_groups
    labels = {s.key: s.label for s in shown.fields} if shown is not None else {}
    # The storage map names fields as the form does: in the reader's language.
    storage_rows = (
        [selectors.StorageRow(s.key, s.label, s.kind, dict(s.location), s.visible, s.when) for s in shown.fields]
        if shown is not None
        else []
    )
    return {
        "loaded": loaded,
        "session": session,
        "state": shown,
        "sections": sections(fields),
        "hidden_summary": hidden_summary(fields),
        "error_fields": [field for field in fields if field.error],
        "plan": plan,
        "tried": tried,
        "try_error": try_error,
        "labels": labels,
        "storage_rows": storage_rows,
        "editable": True,
        "is_paste": loaded.mode == selectors.MODE_PASTE,
        "is_static": loaded.mode != selectors.MODE_FILE,
        "secret_store_label": store_label,
        "errors_count": sum(1 for f in loaded.findings if f.severity == "error"),
        "warnings_count": sum(1 for f in loaded.findings if f.severity != "error"),
    }


def _page_context(*, home: Path, choice_id: str = "", static: bool = False) -> dict[str, Any]:
    return {
        "groups": selectors.list_choices(home=home),
        "current_id": choice_id,
        "static": static,
        "allowed_dirs": [provider_schemas.display_path(d, home=home) for d in selectors.allowed_dirs()],
    }


def _load_posted(request: HttpRequest, *, home: Path) -> selectors.Loaded | HttpResponse:
    """The schema a form of the preview posted: pasted ``source``, or ``choice`` (+ ``mode``)."""
    if "source" in request.POST:
        source = request.POST.get("source", "")
        if selectors.paste_too_big(source):
            return HttpResponse(_paste_limit_message(), status=413, content_type="text/plain; charset=utf-8")
        return selectors.load_paste(source)
    try:
        choice = selectors.resolve_choice(home=home, choice_id=request.POST.get("choice", ""))
    except selectors.ChoiceRefused as exc:
        return HttpResponse(exc.message, status=404, content_type="text/plain; charset=utf-8")
    return selectors.load_choice(home=home, choice=choice, static=request.POST.get("mode") == selectors.MODE_STATIC)


def _render_preview(
    request: HttpRequest, *, home: Path, context: dict[str, Any], status: int = 200
) -> HttpResponse:
    """The fragment for htmx, else the whole page around it."""
    loaded = context["loaded"]
    if loaded.choice is not None:
        context["poll_url"] = _poll_url(loaded.choice, static=loaded.mode == selectors.MODE_STATIC)
        context["stream_url"] = _stream_url(loaded.choice)
    if request.htmx:
        # htmx swaps only 2xx answers; the fragment itself says what went wrong.
        response = render(request, "preview/partials/_preview.html", context)
    elif loaded.mode == selectors.MODE_PASTE:
        context.update(source=loaded.text)
        response = render(request, "preview/paste.html", context, status=status)
    else:
        assert loaded.choice is not None
        static = loaded.mode == selectors.MODE_STATIC
        context.update(_page_context(home=home, choice_id=loaded.choice.id, static=static))
        response = render(request, "preview/page.html", context, status=status)
    if loaded.fingerprint:
        response[FINGERPRINT_HEADER] = loaded.fingerprint
    return response


# --- pages ----------------------------------------------------------------------------------------


@require_GET
@admin_required
def preview_page(request: HttpRequest) -> HttpResponse:
    """The picker, and the preview of the chosen file (``?choice=<id>[&mode=static]``)."""
    home = current_home()
    choice_id = request.GET.get("choice", "")
    static = request.GET.get("mode") == selectors.MODE_STATIC
    context = _page_context(home=home, choice_id=choice_id, static=static)
    if not choice_id:
        return render(request, "preview/page.html", context)
    try:
        choice = selectors.resolve_choice(home=home, choice_id=choice_id)
    except selectors.ChoiceRefused as exc:
        context["choice_error"] = exc.message
        return render(request, "preview/page.html", context, status=404)
    loaded = selectors.load_choice(home=home, choice=choice, static=static)
    with selectors.preview_session(home=home, loaded=loaded) as session:
        context.update(_fragment_context(request, session=session))
    context["poll_url"] = _poll_url(choice, static=static)
    context["stream_url"] = _stream_url(choice)
    response = render(request, "preview/page.html", context)
    response[FINGERPRINT_HEADER] = loaded.fingerprint
    return response


@require_GET
@admin_required
def preview_poll(request: HttpRequest) -> HttpResponse:
    """Hot reload: 204 while the file's fingerprint equals ``fp``, else the fresh fragment."""
    home = current_home()
    try:
        choice = selectors.resolve_choice(home=home, choice_id=request.GET.get("choice", ""))
    except selectors.ChoiceRefused as exc:
        return HttpResponse(exc.message, status=404, content_type="text/plain; charset=utf-8")
    current = selectors.file_fingerprint(choice)
    if request.GET.get("fp") == current:
        response = HttpResponse(status=204)
        response[FINGERPRINT_HEADER] = current
        return response
    loaded = selectors.load_choice(home=home, choice=choice, static=request.GET.get("mode") == selectors.MODE_STATIC)
    with selectors.preview_session(home=home, loaded=loaded) as session:
        context = _fragment_context(request, session=session)
    context["poll_url"] = _poll_url(choice, static=loaded.mode == selectors.MODE_STATIC)
    context["stream_url"] = _stream_url(choice)
    response = render(request, "preview/partials/_preview.html", context)
    response[FINGERPRINT_HEADER] = loaded.fingerprint
    return response


@require_GET
@admin_required
def preview_events(request: HttpRequest) -> HttpResponse:
    """Server-sent events carrying the chosen file's fingerprint whenever it changes (never content)."""
    home = current_home()
    try:
        choice = selectors.resolve_choice(home=home, choice_id=request.GET.get("choice", ""))
    except selectors.ChoiceRefused as exc:
        return HttpResponse(exc.message, status=404, content_type="text/plain; charset=utf-8")
    return event_stream(request, paths=[os.path.realpath(choice.path)],
                        fingerprint=lambda: selectors.file_fingerprint(choice), allowed=can_change)


@require_http_methods(["GET", "POST"])
@admin_required
def preview_paste(request: HttpRequest) -> HttpResponse:
    """Paste mode: the text is evaluated by the static evaluator, never executed."""
    home = current_home()
    if request.method == "GET":
        return render(request, "preview/paste.html", {"source": ""})
    if _too_big(request):
        # Refused before the body is parsed: nothing of it is read or kept.
        return render(request, "preview/paste.html", {"source": "", "paste_error": _paste_limit_message()}, status=413)
    source = request.POST.get("source", "")
    if selectors.paste_too_big(source):
        return render(
            request, "preview/paste.html", {"source": source, "paste_error": _paste_limit_message()}, status=413
        )
    if not source.strip():
        context = {"source": source, "paste_error": _("Paste the text of a config_schema.py.")}
        return render(request, "preview/paste.html", context, status=400)
    loaded = selectors.load_paste(source)
    with selectors.preview_session(home=home, loaded=loaded) as session:
        context = _fragment_context(request, session=session)
    context["source"] = loaded.text
    return render(request, "preview/paste.html", context, status=200 if loaded.schema is not None else 400)


@require_POST
@admin_required
def preview_try(request: HttpRequest) -> HttpResponse:
    """"Try it": validate the submitted form and show what a save would store where. Nothing is
    written, whatever the schema or the values."""
    home = current_home()
    if _too_big(request):
        return HttpResponse(_paste_limit_message(), status=413, content_type="text/plain; charset=utf-8")
    loaded = _load_posted(request, home=home)
    if isinstance(loaded, HttpResponse):
        return loaded
    status = 200
    with selectors.preview_session(home=home, loaded=loaded) as session:
        if session.state is None:
            context = _fragment_context(request, session=session)
        else:
            sub = parse_submission(session.state.fields, request.POST)
            errors = dict(sub.errors)
            plan = None
            try_error = ""
            if not errors:
                try:
                    plan = session.plan(values=sub.values, clear=sub.clear)
                except provider_schemas.StorageParseError as exc:
                    try_error = exc.detail
                except provider_schemas.SecretStoreUnavailable as exc:
                    try_error = _("The secret store is unavailable (%(reason)s).") % {"reason": exc.reason}
                except (provider_schemas.SchemaLoadError, provider_schemas.UnknownProvider):
                    try_error = _("The schema changed while trying; try again.")
                if plan is not None and plan.errors:
                    errors = dict(plan.errors)
            if errors or try_error:
                status = 400
            context = _fragment_context(
                request, session=session, sub=sub, errors=errors, plan=plan,
                try_error=try_error, tried=True,
            )
    return _render_preview(request, home=home, context=context, status=status)


@require_POST
@admin_required
def preview_field(request: HttpRequest) -> HttpResponse:
    """htmx: re-render the field the user just changed (and rows whose ``when`` flipped), with the
    provider page's row partials. Nothing is written."""
    home = current_home()
    if _too_big(request):
        return HttpResponse(_paste_limit_message(), status=413, content_type="text/plain; charset=utf-8")
    loaded = _load_posted(request, home=home)
    if isinstance(loaded, HttpResponse):
        return loaded
    key = request.GET.get("key", "")
    with selectors.preview_session(home=home, loaded=loaded) as session:
        state = session.state
        if state is None or key not in {f.key for f in state.fields}:
            return HttpResponse(status=204)  # the schema changed under the form: the poll re-renders it
        sub = parse_submission(state.fields, request.POST)
        errors: dict[str, str] = {}
        plan = None
        if key in sub.errors:
            errors[key] = sub.errors[key]
        elif key in sub.values or key in sub.clear:
            try:
                plan = session.plan(
                    values={key: sub.values[key]} if key in sub.values else {},
                    clear=[key] if key in sub.clear else [],
                )
            except (provider_schemas.StorageParseError, provider_schemas.SecretStoreUnavailable):
                plan = None
            if plan is not None and key in plan.errors:
                errors[key] = plan.errors[key]
        details = {key: plan.error_details[key]} if plan is not None and key in plan.error_details else {}
        fields = provider_form(localise_provider_state(state), sub=sub, errors=errors, details=details,
                               validate_url=reverse("schema_preview_field"),
                               secret_store_label=_secret_store_label(session)).field_groups
    return render(
        request,
        "providers/partials/_field_response.html",
        {"field": next(field for field in fields if field.key == key),
         "oob_fields": visibility_flipped(fields, key=key, data=request.POST),
         "hidden_summary": hidden_summary(fields), "editable": True},
    )

"""The audit log: who changed what, filters, exports, and the revert of a settings change
(provider settings or the memory settings).

Viewers and staff see everything here; only staff may revert. Exports respect the filters.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers

import provider_schemas
from admin_panel.forms.query import MAX_PAGE, clamped_query_int
from admin_panel.localisation import localise_message, not_ready_message
from admin_panel.models import AuditEntry
from admin_panel.permissions import admin_required, can_change, role_label, viewer_required
from admin_panel.responses import failure as describe_save_failure
from admin_panel.selectors import audit as selectors
from admin_panel.selectors.accounts import roles_by_username
from admin_panel.services import revert as revert_service
from admin_panel.views.partials import is_partial

logger = logging.getLogger(__name__)

EXPORTS = {
    "jsonl": ("application/x-ndjson; charset=utf-8", "audit-log.jsonl", selectors.jsonl_lines),
    "csv": ("text/csv; charset=utf-8", "audit-log.csv", selectors.csv_lines),
}


@require_GET
@viewer_required
@vary_on_headers("HX-Request")
def audit_list(request: HttpRequest) -> HttpResponse:
    filters = selectors.AuditFilters.from_query(request.GET)
    entries = selectors.filtered_entries(filters=filters)
    fmt = request.GET.get("format", "")
    if fmt:
        if fmt not in EXPORTS:
            return render(
                request,
                "audit/bad_request.html",
                {"message": _("Unknown export format. Use jsonl or csv.")},
                status=400,
            )
        content_type, filename, lines = EXPORTS[fmt]
        response = StreamingHttpResponse(lines(entries.iterator(chunk_size=500)), content_type=content_type)
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        response["Cache-Control"] = "no-store"
        return response
    number = clamped_query_int(request.GET, "page", default=1, minimum=1, maximum=MAX_PAGE)
    page = Paginator(entries, selectors.PAGE_SIZE).get_page(number)
    may_revert = can_change(request.user)
    # Rows recorded before roles were kept show the account's current role.
    roles = roles_by_username({entry.username for entry in page.object_list if entry.user_id and not entry.actor_role})
    context: dict[str, Any] = {
        "filters": filters,
        "choices": selectors.filter_choices(),
        "page_obj": page,
        "rows": [
            {
                "entry": entry,
                "summary": selectors.describe(entry),
                "kind_label": selectors.kind_label(entry.kind),
                "channel_label": selectors.channel_label(entry.channel),
                "role_label": role_label(entry.actor_role or roles.get(entry.username, ""))
                if entry.user_id and (entry.actor_role or entry.username in roles) else "",
                "glance": selectors.glance(entry),
                "revert": may_revert and selectors.revert_reachable(entry),
            }
            for entry in page.object_list
        ],
    }
    partial = is_partial(request)
    context["partial"] = partial
    return render(request, "audit/partials/_results.html" if partial else "audit/list.html", context)


def _revert_status(entry: AuditEntry) -> dict[str, Any]:
    """Whether the entry can be reverted now, and if not, why (read-only: nothing is written)."""
    if not selectors.has_revertible_changes(entry):
        return {"possible": False, "applicable": False, "reason": ""}
    done = selectors.reverted_by(entry)
    if done is not None:
        return {"possible": False, "applicable": True, "reason": "", "reverted_by": done}
    try:
        plan = revert_service.check_revert(entry=entry)
    except revert_service.RevertRefused as exc:
        return {"possible": False, "applicable": True, "reason": localise_message(exc.message)}
    except provider_schemas.ValidationFailed as exc:
        return {"possible": False, "applicable": True, "reason": _revert_error_text(exc, home=Path(entry.home))}
    except Exception as exc:  # a provider that no longer loads, an unreadable file: shown, not raised
        return {"possible": False, "applicable": True, "reason": _revert_error_text(exc, home=Path(entry.home))}
    return {
        "possible": True,
        "applicable": True,
        "reason": "",
        "values": plan.values,
        "clear": plan.clear,
        "not_restored": plan.not_restored,
        "provider_change": getattr(plan, "provider_change", None),
    }


def _revert_error_text(exc: BaseException, *, home: Path) -> str:
    if isinstance(exc, revert_service.RevertRefused):
        return localise_message(exc.message)
    if isinstance(exc, provider_schemas.NotReady):
        return not_ready_message(exc)
    if isinstance(exc, provider_schemas.ValidationFailed):
        problems = "; ".join(localise_message(text) for text in exc.errors.values())
        return _("The old values are not valid any more: %(problems)s.") % {"problems": problems}
    if isinstance(exc, provider_schemas.StorageParseError):
        return localise_message(exc.detail)
    if isinstance(exc, provider_schemas.SchemaLoadError):
        return _("The provider's settings schema does not load (%(type)s: %(message)s); nothing can be reverted.") % {
            "type": exc.type,
            "message": exc.message,
        }
    if isinstance(exc, (provider_schemas.UnknownProvider, provider_schemas.InvalidProviderName)):
        return _("This provider is not installed any more; nothing can be reverted.")
    if isinstance(exc, provider_schemas.SaveFailed):
        return describe_save_failure(exc, home=home)[1]
    if isinstance(exc, provider_schemas.SecretStoreUnavailable):
        return _("The secret store is unavailable: %(reason)s") % {"reason": exc.reason}
    if isinstance(exc, PermissionError):
        return _("The panel may not read or write the provider's files (permission denied).")
    if isinstance(exc, OSError):
        return _("The provider's files could not be read or written (%(error)s).") % {
            "error": exc.strerror or type(exc).__name__
        }
    return _("The revert failed.")


def _detail_context(request: HttpRequest, entry: AuditEntry, **extra: Any) -> dict[str, Any]:
    context: dict[str, Any] = {
        "entry": entry,
        "summary": selectors.describe(entry),
        "kind_label": selectors.kind_label(entry.kind),
        "channel_label": selectors.channel_label(entry.channel),
        "changes": selectors.change_rows(entry),
        "facts": selectors.detail_facts(entry),
        "activation": selectors.activation_change(entry),
        "reverted_entry": selectors.reverted_entry(entry),
        "has_secret_changes": selectors.has_secret_changes(entry),
        "can_change": can_change(request.user),
        "revert": _revert_status(entry),
    }
    context.update(extra)
    return context


@require_GET
@viewer_required
def audit_detail(request: HttpRequest, pk: int) -> HttpResponse:
    entry = get_object_or_404(AuditEntry, pk=pk)
    return render(request, "audit/detail.html", _detail_context(request, entry))


# Refusals that mean "the files are not as this change left them" (409) versus invalid values (400).
_STATUS_FOR = {
    revert_service.RevertRefused: 409,
    provider_schemas.ValidationFailed: 400,
    provider_schemas.NotReady: 409,
    provider_schemas.StorageParseError: 409,
    provider_schemas.SchemaLoadError: 409,
    provider_schemas.UnknownProvider: 404,
    provider_schemas.InvalidProviderName: 404,
    provider_schemas.SecretStoreUnavailable: 503,
    PermissionError: 409,
}


@require_POST
@admin_required
def audit_revert(request: HttpRequest, pk: int) -> HttpResponse:
    entry = get_object_or_404(AuditEntry, pk=pk)
    try:
        outcome = revert_service.revert_entry(entry=entry, user=request.user, channel="panel")
    except (
        revert_service.RevertRefused,
        provider_schemas.ValidationFailed,
        provider_schemas.NotReady,
        provider_schemas.StorageParseError,
        provider_schemas.SchemaLoadError,
        provider_schemas.UnknownProvider,
        provider_schemas.InvalidProviderName,
        provider_schemas.SecretStoreUnavailable,
        provider_schemas.SaveFailed,
        OSError,
    ) as exc:
        status = next((code for cls, code in _STATUS_FOR.items() if isinstance(exc, cls)), 500)
        if isinstance(exc, provider_schemas.SaveFailed):
            status = describe_save_failure(exc, home=Path(entry.home))[0]
        elif isinstance(exc, OSError) and not isinstance(exc, PermissionError):
            status = 500
        if status >= 500:
            logger.exception("Revert of audit entry %s failed", entry.pk)
        context = _detail_context(request, entry, revert_error=_revert_error_text(exc, home=Path(entry.home)))
        return render(request, "audit/detail.html", context, status=status)
    messages.success(
        request,
        _("Reverted. Changes apply the next time the agent starts; running conversations keep their settings."),
    )
    if outcome.skipped_secrets:
        messages.warning(
            request,
            _("Secrets were not reverted (their values are never recorded): %(keys)s.")
            % {"keys": ", ".join(outcome.skipped_secrets)},
        )
    return redirect("audit_detail", pk=outcome.entry.pk)

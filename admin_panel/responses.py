"""The one place that turns a write's outcome (``admin_panel.services.outcomes``) or an engine
error into an answer: the status and words of a failure, the JSON of docs/api.md §Saving a
provider's config, and the page a provider form shows. Views call these and nothing else for a
failed write.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from django.http import HttpResponse
from django.utils.translation import gettext as _

import provider_schemas
from admin_panel.api_auth import api_error, api_json
from admin_panel.localisation import localise_message, not_ready_message, secret_store_error_message
from admin_panel.services import outcomes
from admin_panel.services.outcomes import Outcome, outcome_of
from admin_panel.services.write_errors import DISK_FULL_STATUS, disk_full_text


def failure(exc: BaseException, *, home: Path) -> tuple[int, str]:
    """HTTP status and message for a write that failed and was rolled back (``SaveFailed``, or an
    engine error that wraps an OSError).

    A full disk (or quota) is 507 in words (``write_errors``); permission denied is the admin's to
    fix and answered 409 with the folder named; any other failure (an I/O error) is a server-side
    500, with the same promise that nothing was changed.
    """
    if outcome_of(exc, home=home).kind == outcomes.DISK_FULL:
        return DISK_FULL_STATUS, disk_full_text()
    cause = exc.__cause__ if exc.__cause__ is not None else exc
    if isinstance(cause, PermissionError):
        where = Path(cause.filename) if cause.filename else home
        if where.name.endswith(".tmp"):
            where = where.parent  # a temporary file beside the target: name the folder
        shown = provider_schemas.display_path(where, home=home)
        return 409, _(
            "Nothing was saved: permission denied writing %(path)s. Check the permissions of the agent "
            "home; every change was rolled back."
        ) % {"path": shown}
    return 500, _("Nothing was saved: a write failed and every change was rolled back.")


def failure_text(outcome: Outcome) -> tuple[int, str]:
    """Status and words for any failed outcome (the page's banner, the API's ``detail``)."""
    exc = outcome.error
    home = outcome.home or Path()
    if outcome.kind == outcomes.REFUSED:
        return 409, localise_message(exc.detail)  # type: ignore[union-attr]
    if outcome.kind == outcomes.STORE_UNAVAILABLE:
        return 503, secret_store_error_message(exc)
    if outcome.kind == outcomes.CONFLICT:
        return 409, "; ".join(outcome.changes)
    if outcome.kind == outcomes.INVALID:
        return 400, next(iter(outcome.errors.values()), "")
    if outcome.kind == outcomes.SCHEMA_ERROR:
        return 409, str(exc)
    if outcome.kind == outcomes.UNKNOWN:
        return 404, _("Unknown memory provider.")
    if outcome.kind == outcomes.NOT_READY:
        return 400, not_ready_message(exc)
    assert exc is not None
    return failure(exc, home=home)


# --- JSON (docs/api.md §Saving a provider's config) ------------------------------------------------


def api_outcome(outcome: Outcome, *, name: str) -> HttpResponse:
    """The API's answer to a config PUT, worded exactly as 0.19.0's (English, whatever the
    panel's language)."""
    exc = outcome.error
    if outcome.kind == outcomes.SAVED:
        return api_json(provider_schemas.save_result_payload(outcome.result))
    if outcome.kind == outcomes.INVALID:
        failed = exc if isinstance(exc, provider_schemas.ValidationFailed) else provider_schemas.ValidationFailed(
            outcome.errors, details=outcome.details)
        return api_json(provider_schemas.validation_error_payload(failed), status=400)
    if outcome.kind == outcomes.UNKNOWN:
        return api_error(f"Unknown memory provider: {name}", 404)
    if outcome.kind == outcomes.SCHEMA_ERROR:
        return api_error(exc.detail_for(name), 409, schema_error=exc.as_dict())  # type: ignore[union-attr]
    if outcome.kind == outcomes.REFUSED:
        return api_error(exc.detail, 409, file=exc.file)  # type: ignore[union-attr]
    return api_failure(exc, home=outcome.home or Path())  # type: ignore[arg-type]


def api_failure(exc: BaseException, *, home: Path) -> HttpResponse:
    """An engine error the API answers the same way on every endpoint."""
    if isinstance(exc, provider_schemas.StorageParseError):
        return api_error(exc.detail, 409, file=exc.file)
    if isinstance(exc, provider_schemas.SecretStoreUnavailable):
        return api_error(f"Secret store unavailable: {exc.reason}", 503)
    if isinstance(exc, provider_schemas.ConflictError):
        return api_error(str(exc), 409)
    status, text = failure(exc, home=home)
    return api_error(text if status != 500 else "Internal server error", status)


# --- pages -----------------------------------------------------------------------------------------


def form_failure(outcome: Outcome, *, show: Callable[..., HttpResponse], fallback: Callable[[str], HttpResponse],
                 store_page: Callable[[str], HttpResponse] | None = None) -> HttpResponse:
    """A provider form's page after a failed review or save.

    ``show(errors=…, conflict=…, storage_error=…, status=…)`` re-renders the form with the user's
    edits; ``fallback(message)`` is where a failure that is not about the form goes (a message on
    the reloaded form); ``store_page(reason)`` the page of its own for an unusable keyring.
    """
    if outcome.kind == outcomes.INVALID:
        return show(errors=outcome.errors, details=outcome.details, status=400)
    if outcome.kind == outcomes.CONFLICT:
        return show(conflict=outcome.changes, fresh_values=True, status=409)
    status, text = failure_text(outcome)
    if outcome.kind == outcomes.STORE_UNAVAILABLE:
        if store_page is not None:
            return store_page(text)
        return fallback(_("Nothing was saved. %(problem)s") % {"problem": text})
    return show(storage_error=text, status=status)


def page_failure(exc: BaseException, *, home: Path) -> tuple[int, str]:
    """Status and words for an engine error on a confirmation page (activation)."""
    return failure_text(outcome_of(exc, home=home))




def settings_failure(outcome: Outcome, *, show: Callable[..., HttpResponse],
                     fallback: Callable[[str], HttpResponse]) -> HttpResponse:
    """The memory settings page after a failed save: ``show(errors=…, conflict=…, message=…,
    status=…)`` is the form again with the user's values; ``fallback(message)`` the reloaded page."""
    exc = outcome.error
    if outcome.kind == outcomes.INVALID:
        return show(errors=outcome.errors, status=400)
    if outcome.kind == outcomes.CONFLICT:
        return show(conflict=outcome.changes, status=409)
    if outcome.kind == outcomes.NOT_READY:
        return show(errors={"provider": not_ready_message(exc)}, status=400)
    if outcome.kind == outcomes.UNKNOWN:
        name = getattr(exc, "name", "")
        return show(errors={"provider": _("Unknown memory provider '%(name)s'.") % {"name": name}}, status=400)
    status, text = failure_text(outcome)
    if outcome.kind == outcomes.STORE_UNAVAILABLE:
        return fallback(_("Nothing was saved. %(problem)s") % {"problem": text})
    return show(message=text, status=status)

"""The memory settings page: the ``memory:`` section of ``config.yaml`` and the secret-store choice."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

import provider_schemas
from admin_panel.forms.settings import build_setting_rows, parse_settings
from admin_panel.home import current_home
from admin_panel.localisation import localise_message, not_ready_message
from admin_panel.permissions import can_change, viewer_required
from admin_panel.selectors import providers as selectors
from admin_panel.services import providers as services


def _provider_choices(*, home: Path, current: str) -> list[dict[str, Any]]:
    choices = [{"value": "", "label": _("None: built-in memory only")}]
    names = set()
    for entry in provider_schemas.discover(home=home).providers:
        if entry.name == provider_schemas.BUILTIN_NAME:
            continue
        names.add(entry.name)
        choices.append({"value": entry.name, "label": f"{entry.label} ({entry.name})"})
    if current and current not in names:
        choices.append({"value": current, "label": _("%(name)s (not found)") % {"name": current}})
    return choices


def _context(
    request: HttpRequest,
    *,
    home: Path,
    state: Any,
    edited: dict[str, str] | None = None,
    changed: dict[str, str] | None = None,
    errors: dict[str, str] | None = None,
    conflict: list[str] | None = None,
) -> dict[str, Any]:
    editable = can_change(request.user) and not state.error
    rows = build_setting_rows(state, edited=edited, changed=changed, errors=errors, disabled=not editable)
    current_provider = str(state.values.get("provider") or "")
    return {
        "state": state,
        "rows": rows,
        "error_rows": [row for row in rows if row.error],
        "editable": editable,
        "can_change": can_change(request.user),
        "conflict": conflict or [],
        "provider_choices": _provider_choices(home=home, current=current_provider),
        "secret_store": selectors.secret_store_for(home=home),
        "config_exists": (home / "config.yaml").exists(),
    }


@require_http_methods(["GET", "POST"])
@viewer_required
def memory_settings(request: HttpRequest) -> HttpResponse:
    home = current_home()
    if request.method == "POST":
        if not can_change(request.user):
            return render(request, "errors/forbidden.html", status=403)
        if request.POST.get("action") == "secret_store":
            return _save_secret_store(request, home=home)
        return _save_settings(request, home=home)
    state = provider_schemas.read_memory_settings(home=home)
    return render(request, "settings/memory.html", _context(request, home=home, state=state))


def _save_secret_store(request: HttpRequest, *, home: Path) -> HttpResponse:
    store = request.POST.get("secret_store", "")
    if store not in selectors.SECRET_STORES:
        messages.error(request, _("Choose one of the offered secret stores."))
        return redirect("memory_settings")
    services.set_secret_store(home=home, store=store, user=request.user, channel="panel")
    if store == "keyring":
        messages.success(request, _("New secrets now go to the OS keyring. Start the agent with "
                                    "“python manage.py secrets exec -- hermes …” so it can read them."))
    else:
        messages.success(request, _("New secrets now go to the .env file of the agent's home."))
    return redirect("memory_settings")


def _save_settings(request: HttpRequest, *, home: Path) -> HttpResponse:
    changed, edited = parse_settings(request.POST)
    fingerprint = request.POST.get("fingerprint") or None
    if not changed:
        messages.info(request, _("Nothing to save: no setting was changed."))
        return redirect("memory_settings")
    try:
        services.save_memory_settings(
            user=request.user, channel="panel", home=home, values=changed, expected_fingerprint=fingerprint
        )
    except provider_schemas.ValidationFailed as exc:
        state = provider_schemas.read_memory_settings(home=home)
        context = _context(request, home=home, state=state, edited=edited, errors=exc.errors)
        return render(request, "settings/memory.html", context, status=400)
    except provider_schemas.ConflictError as exc:
        state = provider_schemas.read_memory_settings(home=home)
        context = _context(request, home=home, state=state, edited=edited, changed=changed, conflict=exc.changes)
        return render(request, "settings/memory.html", context, status=409)
    except provider_schemas.NotReady as exc:
        state = provider_schemas.read_memory_settings(home=home)
        errors = {"provider": not_ready_message(exc)}
        context = _context(request, home=home, state=state, edited=edited, errors=errors)
        return render(request, "settings/memory.html", context, status=400)
    except provider_schemas.UnknownProvider as exc:
        state = provider_schemas.read_memory_settings(home=home)
        message = _("Unknown memory provider '%(name)s'.") % {"name": exc.name}
        context = _context(request, home=home, state=state, edited=edited, errors={"provider": message})
        return render(request, "settings/memory.html", context, status=400)
    except provider_schemas.StorageParseError as exc:
        messages.error(request, localise_message(exc.detail))
        return _refused_page(request, home=home, edited=edited, status=409)
    except provider_schemas.SaveFailed as exc:
        status, text = services.describe_save_failure(exc, home=home)
        messages.error(request, text)
        return _refused_page(request, home=home, edited=edited, status=status)
    except provider_schemas.SecretStoreUnavailable as exc:
        messages.error(request, _("Nothing was saved: the secret store is unavailable (%(reason)s).")
                       % {"reason": exc.reason})
        return redirect("memory_settings")
    messages.success(request, _("Saved. Changes apply the next time the agent starts."))
    return redirect("memory_settings")


def _refused_page(request: HttpRequest, *, home: Path, edited: dict[str, str], status: int) -> HttpResponse:
    """The form again with the user's values and the message (added to ``messages``): nothing was
    written, so this is an answer with an error status, not a redirect."""
    state = provider_schemas.read_memory_settings(home=home)
    return render(request, "settings/memory.html", _context(request, home=home, state=state, edited=edited),
                  status=status)

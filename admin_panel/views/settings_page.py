"""The memory settings page: the ``memory:`` section of ``config.yaml`` and the secret-store choice."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

import provider_schemas
from admin_panel import responses
from admin_panel.agent_home import current_home
from admin_panel.event_stream import event_stream
from admin_panel.forms.settings import MemorySettingsForm, settings_form
from admin_panel.localisation import (
    keyring_check_message,
    localise_message,
    secret_store_error_message,
)
from admin_panel.permissions import can_change, can_view, viewer_required
from admin_panel.selectors import providers as selectors
from admin_panel.services import providers as services
from provider_schemas.homes import profile_name
from provider_schemas.saving import secret_moves
from provider_schemas.secret_stores import ENV_FILE, KEYRING
from provider_schemas.secret_stores.probe import check_keyring


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


def _move_offer(*, homes: list[Path], to: str, review: bool) -> dict[str, Any] | None:
    """One direction of the move: the variables each profile would move (names only)."""
    try:
        plans = [secret_moves.plan_move(home=each, to=to, checked=True) for each in homes]
    except (provider_schemas.SecretStoreUnavailable, provider_schemas.StorageParseError):
        return None
    profiles = [{"name": profile_name(plan.home), "names": plan.variables,
                 "shadowed": plan.shadowed, "shadowing_file": plan.shadowing_file}
                for plan in plans if not plan.empty]
    return {"to": to, "profiles": profiles, "count": sum(len(p["names"]) for p in profiles),
            "review": review and bool(profiles)}


def _keyring_context(*, home: Path, review: str = "", all_profiles: bool = False) -> dict[str, Any]:
    """Whether the keyring can be chosen, checked before anyone clicks (and why not), and the
    stored secrets a move would carry into each store, whichever is in use (names only)."""
    check = check_keyring(home=home)
    every_home = secret_moves.every_profile_home(home)
    context: dict[str, Any] = {
        "keyring_usable": check.usable,
        "keyring_problem": "" if check.usable else keyring_check_message(check, with_detail=False),
        "keyring_problem_detail": check.detail,
        "move_offers": [],
        "move_all_profiles": all_profiles and len(every_home) > 1,
        "profile_count": len(every_home),
    }
    if not check.usable:
        return context  # neither direction can read or write the keyring
    homes = every_home if context["move_all_profiles"] else [home]
    offers = [_move_offer(homes=homes, to=to, review=review == to) for to in (KEYRING, ENV_FILE)]
    context["move_offers"] = [offer for offer in offers if offer is not None]
    return context


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
    current_provider = str(state.values.get("provider") or "")
    provider_choices = _provider_choices(home=home, current=current_provider)
    form = settings_form(state, edited=edited, changed=changed, errors=errors, disabled=not editable,
                         choices=provider_choices)
    return {
        "state": state,
        "form": form,
        "error_fields": [each for each in form.field_groups if each.error],
        "editable": editable,
        "can_change": can_change(request.user),
        "conflict": conflict or [],
        "provider_choices": provider_choices,
        "secret_store": selectors.secret_store_for(home=home),
        **_keyring_context(home=home, review=request.GET.get("move", ""),
                           all_profiles=request.GET.get("profiles") == "all"),
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
        if request.POST.get("action") == "move_secrets":
            return _move_secrets(request, home=home)
        return _save_settings(request, home=home)
    fingerprint = selectors.files_fingerprint(_watched(home))  # before the read: a later change shows
    state = provider_schemas.read_memory_settings(home=home)
    context = _context(request, home=home, state=state)
    context["live_fingerprint"] = fingerprint
    return render(request, "settings/memory.html", context)


def _watched(home: Path) -> tuple[Path, ...]:
    """What the page is read from: the memory: section of config.yaml, the secret store's .env."""
    return (Path(home) / "config.yaml", Path(home) / ".env")


@require_GET
@viewer_required
def memory_settings_events(request: HttpRequest) -> HttpResponse:
    """Server-sent events carrying the fingerprint of config.yaml and .env whenever it changes."""
    paths = _watched(current_home())
    return event_stream(request, paths=paths, fingerprint=lambda: selectors.files_fingerprint(paths),
                        allowed=can_view)


def _save_secret_store(request: HttpRequest, *, home: Path) -> HttpResponse:
    store = request.POST.get("secret_store", "")
    if store not in selectors.SECRET_STORES:
        messages.error(request, _("Choose one of the offered secret stores."))
        return redirect("memory_settings")
    try:
        services.set_secret_store(home=home, store=store, user=request.user, channel="panel")
    except provider_schemas.SecretStoreUnavailable as exc:
        messages.error(request, _("The secret store was not changed. %(problem)s")
                       % {"problem": secret_store_error_message(exc)})
        state = provider_schemas.read_memory_settings(home=home)
        return render(request, "settings/memory.html", _context(request, home=home, state=state), status=503)
    if store == "keyring":
        messages.success(request, _("New secrets now go to the OS keyring. Start the agent with "
                                    "“python manage.py secrets exec -- hermes …” so it can read them."))
    else:
        messages.success(request, _("New secrets now go to the .env file of the agent's home."))
    return redirect("memory_settings")


def _move_secrets(request: HttpRequest, *, home: Path) -> HttpResponse:
    to = request.POST.get("to", "")
    if to not in selectors.SECRET_STORES:
        messages.error(request, _("Choose one of the offered secret stores."))
        return redirect("memory_settings")
    all_profiles = request.POST.get("profiles") == "all"
    homes = secret_moves.every_profile_home(home) if all_profiles else [home]
    # The confirmed names per profile: ``variable:<profile>`` fields, one per variable.
    expected = {str(each): request.POST.getlist(f"variable:{profile_name(each)}") for each in homes}
    try:
        plans = services.move_secrets(home=home, to=to, user=request.user, channel="panel",
                                      expected=expected, all_profiles=all_profiles)
    except secret_moves.MoveChanged:
        messages.error(request, _("Nothing was moved: the stored secrets changed since you reviewed the move. "
                                  "Review it again."))
    except provider_schemas.SecretStoreUnavailable as exc:
        messages.error(request, _("Nothing was moved. %(problem)s") % {"problem": secret_store_error_message(exc)})
    except provider_schemas.StorageParseError as exc:
        messages.error(request, _("Nothing was moved. %(problem)s") % {"problem": localise_message(exc.detail)})
    except provider_schemas.ConflictError:
        messages.error(request, _("Nothing was moved: .env changed while moving. Review the move again."))
    except provider_schemas.SaveFailed as exc:
        messages.error(request, responses.failure(exc, home=home)[1])
    else:
        where = _("the OS keyring") if to == KEYRING else _("the .env file")
        names = sorted({name for plan in plans for name in plan.variables})
        count = sum(len(plan.variables) for plan in plans)
        messages.success(request, _("Moved %(count)s stored secrets to %(where)s: %(names)s. New secrets go there "
                                    "too.") % {"count": count, "where": where, "names": ", ".join(names)})
    return redirect(reverse("memory_settings") + "#secret-store")


def _save_settings(request: HttpRequest, *, home: Path) -> HttpResponse:
    changed, edited = MemorySettingsForm(data=request.POST).changes()
    fingerprint = request.POST.get("fingerprint") or None
    if not changed:
        messages.info(request, _("Nothing to save: no setting was changed."))
        return redirect("memory_settings")
    outcome = services.save_memory_settings_changes(user=request.user, channel="panel", home=home,
                                                    values=changed, expected_fingerprint=fingerprint)
    if not outcome.ok:
        return responses.settings_failure(outcome, show=_settings_page(request, home=home, edited=edited,
                                                                       changed=changed),
                                          fallback=lambda message: _with_message(request, message))
    messages.success(request, _("Saved. Changes apply the next time the agent starts."))
    return redirect("memory_settings")


def _settings_page(request: HttpRequest, *, home: Path, edited: dict[str, str], changed: dict[str, str]) -> Any:
    """The form again with the user's values (after a conflict only the changed keys keep theirs);
    nothing was written, so this is an answer with an error status, not a redirect."""

    def show(*, status: int, errors: Any = None, conflict: Any = None, message: str = "") -> HttpResponse:
        if message:
            messages.error(request, message)
        state = provider_schemas.read_memory_settings(home=home)
        context = _context(request, home=home, state=state, edited=edited, changed=changed if conflict else None,
                           errors=errors, conflict=conflict)
        return render(request, "settings/memory.html", context, status=status)

    return show


def _with_message(request: HttpRequest, message: str) -> HttpResponse:
    messages.error(request, message)
    return redirect("memory_settings")

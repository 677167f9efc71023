"""The profiles overview: every profile of the agent side by side, and copying settings between them."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET, require_POST

import provider_schemas
from admin_panel.agent_home import panel_home
from admin_panel.permissions import admin_required, can_change, viewer_required
from admin_panel.selectors.profiles import profiles_overview
from admin_panel.services import profiles as services
from provider_schemas.profiles import ProfileSet, discover_profiles


@require_GET
@viewer_required
def profiles_page(request: HttpRequest) -> HttpResponse:
    overview = profiles_overview(home=panel_home())
    return render(request, "profiles/overview.html", {"overview": overview, "can_change": can_change(request.user)})


def _provider_choices() -> list[dict[str, str]]:
    """Providers with declared settings, as the panel's own home discovers them."""
    return [
        {"value": entry.name, "label": f"{entry.label} ({entry.name})"}
        for entry in provider_schemas.discover(home=panel_home()).providers
        if entry.name != provider_schemas.BUILTIN_NAME and entry.has_schema
    ]


def _copy_form(
    request: HttpRequest, *, found: ProfileSet, chosen: dict[str, Any] | None = None, refused: Any = None,
    status: int = 200,
) -> HttpResponse:
    chosen = chosen or {}
    context = {
        "profiles": found.usable,
        "providers": _provider_choices(),
        "what": chosen.get("what", services.MEMORY),
        "source": chosen.get("source", found.current if found.get(found.current) else "default"),
        "targets": chosen.get("targets", []),
        "refused": refused,
    }
    return render(request, "profiles/copy.html", context, status=status)


def _posted(request: HttpRequest) -> dict[str, Any]:
    return {
        "what": request.POST.get("what", "").strip(),
        "source": request.POST.get("source", "").strip(),
        "targets": [name.strip() for name in request.POST.getlist("target")],
    }


@require_GET
@admin_required
def profiles_copy(request: HttpRequest) -> HttpResponse:
    return _copy_form(request, found=discover_profiles(home=panel_home()))


@require_POST
@admin_required
def profiles_copy_review(request: HttpRequest) -> HttpResponse:
    found = discover_profiles(home=panel_home())
    chosen = _posted(request)
    try:
        plan = services.plan_copy(found=found, **chosen)
    except services.CopyRefused as exc:
        return _copy_form(request, found=found, chosen=chosen, refused=exc, status=400)
    return render(request, "profiles/copy_review.html", {"plan": plan})


@require_POST
@admin_required
def profiles_copy_apply(request: HttpRequest) -> HttpResponse:
    found = discover_profiles(home=panel_home())
    chosen = _posted(request)
    fingerprints = {name: request.POST.get(f"fp:{name}", "") for name in chosen["targets"]}
    try:
        plan, outcomes = services.apply_copy(
            user=request.user, channel="panel", found=found, source_fingerprint=request.POST.get("source_fp", ""),
            target_fingerprints=fingerprints, **chosen,
        )
    except services.CopyRefused as exc:
        return _copy_form(request, found=found, chosen=chosen, refused=exc, status=409)
    status = 200 if all(outcome.status in ("saved", "unchanged") for outcome in outcomes) else 409
    return render(request, "profiles/copy_done.html", {"plan": plan, "outcomes": outcomes}, status=status)

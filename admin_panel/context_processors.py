from __future__ import annotations

from django.http import HttpRequest
from django.urls import NoReverseMatch, reverse
from django.utils.translation import gettext_lazy as _

from admin_panel.agent_home import current_home, panel_home
from admin_panel.permissions import can_change, can_view, role_label, role_of
from admin_panel.profile_choice import base_prefix, plain_path
from admin_panel.selectors.profiles import profile_count
from memory_core.pending import count_pending
from provider_schemas.homes import profile_name
from provider_schemas.profiles import discover_profiles

# (url name, label, who may open it). Only pages the user may open are linked.
# (URL name, label, what the page is for (the overview's cards), who may open it)
_NAV_ITEMS = (
    ("providers", _("Providers"), _("Configure each memory provider's settings and choose the active one."), can_view),
    (
        "memory",
        _("Memory"),
        _("Read, add, edit and delete what the agent remembers; review blocked entries and pending writes."),
        can_view,
    ),
    ("provider_contents_index", _("Provider memory"),
     _("What the external memory providers remember; clean up copies left behind."), can_view),
    (
        "memory_settings",
        _("Settings"),
        _("Turn the built-in memory stores on or off and set their size limits and write approval."),
        can_view,
    ),
    (
        "memory_maintenance",
        _("Maintenance"),
        _("Find duplicates, stale and oversized entries and tidy the memory before it fills up."),
        can_view,
    ),
    ("schema_preview", _("Schema preview"), _("Preview and check a provider's config_schema.py as you write it."),
     can_change),
    ("sessions", _("Sessions"), _("Search and read every conversation the agent has had, read-only."), can_view),
    ("audit", _("Audit"), _("Who changed what, and when; revert a settings change."), can_view),
    ("people", _("People"), _("Invite people as admin or viewer, change their roles and access."), can_change),
    ("profiles", _("Profiles"), _("Every profile of the agent side by side; copy settings from one to others."),
     can_view),
)
# Maintenance is per store; the navigation opens the agent's notes (the user profile is one link away).
_NAV_ARGUMENTS = {"memory_maintenance": {"target": "memory"}}
# Shown only when the agent has more than one profile (see profile_count).
_MULTI_PROFILE_ITEMS = {"profiles"}
# On the overview only: the header keeps one row on a laptop, and these pages are linked from the
# Memory page and from each provider's page.
_OVERVIEW_ONLY_ITEMS = {"provider_contents_index"}


def navigation(request: HttpRequest) -> dict[str, object]:
    # Error pages can render before AuthenticationMiddleware ran (a bad Host header is refused by
    # CommonMiddleware first): no user means no navigation, not a crash into a 500.
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"nav_items": []}
    items = []
    several_profiles: bool | None = None
    for url_name, label, description, allowed in _NAV_ITEMS:
        if not allowed(user):
            continue
        if url_name in _MULTI_PROFILE_ITEMS:
            if several_profiles is None:
                several_profiles = profile_count(home=current_home()) >= 2
            if not several_profiles:
                continue
        try:
            url = reverse(url_name, kwargs=_NAV_ARGUMENTS.get(url_name))
        except NoReverseMatch:
            continue
        items.append(
            {"url": url, "label": label, "description": description, "current": False,
             "beside_switcher": url_name in _MULTI_PROFILE_ITEMS, "in_header": url_name not in _OVERVIEW_ONLY_ITEMS}
        )
    # The longest address the page is under is the current one: Maintenance lives under Memory's.
    current = max((item for item in items if request.path.startswith(str(item["url"]))),
                  key=lambda item: len(str(item["url"])), default=None)
    if current is not None:
        current["current"] = True
    context: dict[str, object] = {"nav_items": items, "user_role_label": role_label(role_of(user))}
    if can_view(user):
        context["pending_badge"] = {"url": reverse("memory_pending"), "count": count_pending(current_home())}
    if several_profiles and can_view(user):
        context["profile_switcher"] = _profile_switcher(request, items)
    if can_view(user):
        context["hermes_home_display"] = str(current_home())
    return context


def _profile_switcher(request: HttpRequest, items: list[dict[str, object]]) -> dict[str, object]:
    """The header's profile choice: a plain GET form to the current area's page with ``profile=``
    (the profile middleware sends it on to that profile's address)."""
    chosen = getattr(request, "panel_profile", None) or profile_name(panel_home())
    area = next((str(item["url"]) for item in items if item["current"] and not item["beside_switcher"]), "")
    options = [profile.name for profile in discover_profiles(home=panel_home(), probe=False).usable]
    overview = next((item for item in items if item["beside_switcher"]), None)
    return {
        "action": base_prefix().rstrip("/") + (plain_path(area) if area else "/"),
        "options": [{"name": name, "selected": name == chosen} for name in options],
        "chosen": chosen,
        "overview": overview,
    }

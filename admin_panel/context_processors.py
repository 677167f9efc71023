from __future__ import annotations

from django.http import HttpRequest
from django.urls import NoReverseMatch, reverse
from django.utils.translation import gettext_lazy as _

from admin_panel.home import current_home
from admin_panel.permissions import can_change, can_view

# (url name, label, who may open it). Only pages the user may open are linked.
_NAV_ITEMS = (
    ("providers", _("Providers"), can_view),
    ("memory", _("Memory"), can_view),
    ("memory_settings", _("Settings"), can_view),
    ("schema_preview", _("Schema preview"), can_change),
    ("audit", _("Audit"), can_view),
)


def navigation(request: HttpRequest) -> dict[str, object]:
    # Error pages can render before AuthenticationMiddleware ran (a bad Host header is refused by
    # CommonMiddleware first): no user means no navigation, not a crash into a 500.
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"nav_items": []}
    items = []
    for url_name, label, allowed in _NAV_ITEMS:
        if not allowed(user):
            continue
        try:
            url = reverse(url_name)
        except NoReverseMatch:
            continue
        items.append({"url": url, "label": label, "current": request.path.startswith(url)})
    context: dict[str, object] = {"nav_items": items}
    if can_view(user):
        context["hermes_home_display"] = str(current_home())
    return context

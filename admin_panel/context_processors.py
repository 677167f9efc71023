from __future__ import annotations

from django.http import HttpRequest
from django.urls import NoReverseMatch, reverse
from django.utils.translation import gettext_lazy as _

from admin_panel.home import hermes_home

# (url name, label). Only routes that exist are linked, so the bar grows with the features.
_NAV_ITEMS = (
    ("providers", _("Providers")),
    ("memory", _("Memory")),
    ("memory_settings", _("Settings")),
    ("schema_preview", _("Schema preview")),
    ("audit", _("Audit")),
)


def navigation(request: HttpRequest) -> dict[str, object]:
    # Error pages can render before AuthenticationMiddleware ran (a bad Host header is refused by
    # CommonMiddleware first): no user means no navigation, not a crash into a 500.
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"nav_items": []}
    items = []
    for url_name, label in _NAV_ITEMS:
        try:
            url = reverse(url_name)
        except NoReverseMatch:
            continue
        items.append({"url": url, "label": label, "current": request.path.startswith(url)})
    context: dict[str, object] = {"nav_items": items}
    if user.is_authenticated:
        context["hermes_home_display"] = str(hermes_home())
    return context

"""Small display helpers for the provider pages. Everything returned is plain text: templates
autoescape it (no ``mark_safe`` anywhere)."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

from django import template
from django.template.loader import render_to_string
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

register = template.Library()


STATUS_BADGES = {
    "ready": ("badge--ok", "Ready"),
    "needs_config": ("badge--warn", "Needs configuration"),
    "schema_error": ("badge--error", "Schema error"),
    "missing": ("badge--error", "Not installed"),
}


@register.filter
def web_link(url: object) -> str:
    """``url`` when it is an http(s) address, else "": a schema's docs_url becomes a link only then
    (a plugin's ``javascript:`` or ``file:`` URL is not followed from the panel)."""
    if not isinstance(url, str):
        return ""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return ""
    return url.strip() if parts.scheme in ("http", "https") and parts.netloc else ""


@register.filter
def status_class(status: str) -> str:
    return STATUS_BADGES.get(status, ("badge--muted", ""))[0]


@register.filter
def status_label(status: str) -> str:
    """The one word for a provider's state, on every page that shows it (providers, a provider,
    the overview, profiles)."""
    labels = {
        "ready": _("Ready"),
        "needs_config": _("Needs configuration"),
        "schema_error": _("Schema error"),
        "missing": _("Not installed"),
    }
    return labels.get(status, status)


@register.filter
def location_text(location: dict[str, Any] | None) -> str:
    """Where a save writes a field, as one line: ``hindsight/config.json · mode``."""
    from admin_panel.forms.provider import location_text as text

    return text(location, {"secret_store": _("secret store · %(variable)s")})


@register.filter
def show_value(value: Any) -> str:
    """A stored value as text for the review table (absent → an em dash)."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    if value == "":
        return _("(empty text)")
    return str(value)


@register.filter
def get_item(mapping: Any, key: str) -> Any:
    try:
        return mapping.get(key)
    except AttributeError:
        return None


# --- cards of the providers page ------------------------------------------------------------------


@register.simple_tag
def provider_card(card: Any, overview: Any) -> SafeString:
    """``providers/partials/_card.html`` for one card of the providers page. The card reads its
    own fields, the overview's ``builtin_usage`` (built-in card only), the language and URLs."""
    return render_to_string("providers/partials/_card.html", {"card": card, "overview": overview})

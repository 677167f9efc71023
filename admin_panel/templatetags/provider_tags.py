"""Small display helpers for the provider pages. Everything returned is plain text: templates
autoescape it (no ``mark_safe`` anywhere)."""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from typing import Any

from django import template
from django.conf import settings
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

register = template.Library()

# Rendered field rows, keyed by every value the partial reads (FieldRow.render_key) and the
# language. The partial is a pure function of its row, so an identical row renders identically;
# a warm provider page then costs a dictionary lookup per field instead of a template render.
_ROW_CACHE_SIZE = 4096
_row_cache: OrderedDict[tuple[Any, ...], SafeString] = OrderedDict()
_row_cache_lock = threading.Lock()


@register.simple_tag
def field_row(row: Any, oob: bool = False) -> SafeString:
    """``providers/partials/_field.html`` for one FieldRow (the output is the template's own,
    autoescaped rendering)."""
    if settings.DEBUG:
        return render_to_string("providers/partials/_field.html", {"row": row, "oob": oob})
    key = (translation.get_language(), row.render_key(oob))
    with _row_cache_lock:
        html = _row_cache.get(key)
        if html is not None:
            _row_cache.move_to_end(key)
            return html
    html = render_to_string("providers/partials/_field.html", {"row": row, "oob": oob})
    with _row_cache_lock:
        _row_cache[key] = html
        while len(_row_cache) > _ROW_CACHE_SIZE:
            _row_cache.popitem(last=False)
    return html

STATUS_BADGES = {
    "ready": ("badge--ok", "Ready"),
    "needs_config": ("badge--warn", "Needs configuration"),
    "schema_error": ("badge--error", "Schema error"),
    "missing": ("badge--error", "Not found"),
}


@register.filter
def status_class(status: str) -> str:
    return STATUS_BADGES.get(status, ("badge--muted", ""))[0]


@register.filter
def status_label(status: str) -> str:
    labels = {
        "ready": _("Ready"),
        "needs_config": _("Needs configuration"),
        "schema_error": _("Schema error"),
        "missing": _("Not found"),
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

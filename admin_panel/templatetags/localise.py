"""``{% load localise %}``: ``{{ message|localise }}`` shows an engine's coded message in the
reader's language (``admin_panel.localisation.localise_message``); other text is looked up whole
in the catalogue or passes unchanged."""

from __future__ import annotations

from django import template

from admin_panel.localisation import localise_message

register = template.Library()


@register.filter(name="localise")
def localise(value: object) -> str:
    return localise_message(value if value is None or isinstance(value, str) else str(value))

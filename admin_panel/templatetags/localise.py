"""``{% load localise %}``: ``{{ message|localise }}`` shows an engine's coded message in the
reader's language (``admin_panel.localisation.localise_message``); other text is looked up whole
in the catalogue or passes unchanged."""

from __future__ import annotations

from django import template

from admin_panel.cjk_text import tidy_cjk_spaces
from admin_panel.localisation import localise_message

register = template.Library()


@register.filter(name="localise")
def localise(value: object) -> str:
    return localise_message(value if value is None or isinstance(value, str) else str(value))


@register.filter(name="cjk_tidy", is_safe=True)
def cjk_tidy(text: str) -> str:
    """``{% filter cjk_tidy %}…{% endfilter %}`` around pieces a template puts side by side with
    English spaces (two sentences, a label and a value): none is left between two Chinese
    characters. Only spaces are removed, so escaped text stays escaped."""
    return tidy_cjk_spaces(text)

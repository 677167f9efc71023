"""Small display helpers for the provider pages. Everything returned is plain text: templates
autoescape it (no ``mark_safe`` anywhere)."""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from django import template
from django.conf import settings
from django.template.loader import render_to_string
from django.urls import get_script_prefix
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


def _cached(
    cache: OrderedDict[tuple[Any, ...], SafeString], size: int, key: tuple[Any, ...], render: Callable[[], SafeString]
) -> SafeString:
    with _row_cache_lock:
        html = cache.get(key)
        if html is not None:
            cache.move_to_end(key)
            return html
    html = render()
    with _row_cache_lock:
        cache[key] = html
        while len(cache) > size:
            cache.popitem(last=False)
    return html


def clear_render_caches() -> None:
    """Forget every reused rendering (rows, forms, cards): the next page renders afresh."""
    with _row_cache_lock:
        for cache in (_row_cache, _sections_cache, _card_cache):
            cache.clear()


@register.simple_tag
def field_row(row: Any, oob: bool = False) -> SafeString:
    """``providers/partials/_field.html`` for one FieldRow (the output is the template's own,
    autoescaped rendering)."""
    if settings.DEBUG:
        return render_to_string("providers/partials/_field.html", {"row": row, "oob": oob})
    key = (translation.get_language(), row.render_key(oob))
    return _cached(
        _row_cache,
        _ROW_CACHE_SIZE,
        key,
        lambda: render_to_string("providers/partials/_field.html", {"row": row, "oob": oob}),
    )


# The whole form body (every section and row) of ``providers/partials/_sections_body.html``, keyed
# the same way: what it reads is the four context values below, the rows' render keys and the
# language. A warm provider page then costs one lookup for its form instead of a loop of row tags.
_SECTIONS_CONTEXT = ("sections", "hidden_summary", "id_prefix", "heading_level")
_SECTIONS_CACHE_SIZE = 128  # whole forms: tens of kilobytes each
_sections_cache: OrderedDict[tuple[Any, ...], SafeString] = OrderedDict()


@register.simple_tag(takes_context=True)
def form_sections(context: template.Context) -> SafeString:
    """``providers/partials/_sections_body.html`` with the sections of the including template."""
    # Only the names the context holds: a missing one must render as the template's "" rather
    # than as "None".
    values = {name: context[name] for name in _SECTIONS_CONTEXT if name in context}

    def render() -> SafeString:
        return render_to_string("providers/partials/_sections_body.html", values)

    if settings.DEBUG:
        return render()
    sections = values.get("sections") or ()
    others = plain_repr([(name, value) for name, value in values.items() if name != "sections"])
    titles = plain_repr([section.title for section in sections])
    if others is None or titles is None:
        return render()
    key = (
        translation.get_language(),
        others,
        tuple(
            (section.title, section.is_compact, tuple(row.render_key(False) for row in section.rows))
            for section in sections
        ),
    )
    return _cached(_sections_cache, _SECTIONS_CACHE_SIZE, key, render)


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

_PLAIN_TYPES = frozenset({str, int, float, bool, type(None)})
_CARD_CACHE_SIZE = 1024
_card_cache: OrderedDict[tuple[Any, ...], SafeString] = OrderedDict()


class _Safe(str):
    """Stands for a SafeString in a key: its repr (``safe'...'``) differs from any plain text's."""

    def __repr__(self) -> str:
        return "safe" + str.__repr__(self)


class _NotPlain(Exception):
    pass


def _canonical(value: Any) -> Any:
    kind = type(value)  # exact types: a SafeString has a str's repr but renders unescaped
    if kind in _PLAIN_TYPES:
        return value
    if kind is SafeString:
        return _Safe(value)
    if kind is list or kind is tuple:
        return kind(_canonical(item) for item in value)
    if kind is dict:
        return {_canonical(k): _canonical(v) for k, v in value.items()}
    raise _NotPlain


def plain_repr(value: Any) -> str | None:
    """An exact text for ``value`` when it is plain data (text, safe text, numbers, None, lists,
    tuples and dicts of them), so equal texts mean equal renderings; None otherwise (an object's
    repr may name only its address, which a later object can reuse)."""
    try:
        return repr(_canonical(value))
    except (_NotPlain, RecursionError):
        return None


@register.simple_tag
def provider_card(card: Any, overview: Any) -> SafeString:
    """``providers/partials/_card.html`` for one card of the providers page. The card reads its
    own fields, the overview's ``builtin_usage`` (built-in card only), the language and URLs."""
    context = {"card": card, "overview": overview}
    if settings.DEBUG:
        return render_to_string("providers/partials/_card.html", context)
    row = plain_repr(card.row)
    files = plain_repr([(state.file_name, state.total_chars, state.limit)
                        for state in getattr(overview, "builtin_usage", ())]) if card.is_builtin else ""
    flags = plain_repr([card.docs_url, card.is_builtin, card.has_settings])
    if row is None or files is None or flags is None:
        return render_to_string("providers/partials/_card.html", context)
    key = (translation.get_language(), get_script_prefix(), row, files, flags)
    return _cached(
        _card_cache, _CARD_CACHE_SIZE, key, lambda: render_to_string("providers/partials/_card.html", context)
    )

"""The rows of a provider's contents list, rendered in Python: the list is the page the bench holds
to its 50 ms goal, and forty rows through the template engine (two URL lookups, a translation and
four filters each) cost as much as the store's query (docs/provider_contents.md §Checks and figures).
The markup is what ``contents/partials/_results.html`` rendered per row; every value is escaped by
``format_html``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from django import template
from django.template.defaultfilters import floatformat, truncatechars
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

register = template.Library()

_ID = "0"  # stands for each row's id in the one URL looked up per list
# What Django's reverse() leaves unquoted in a path argument, except "/" (an id never holds one).
_SAFE = "!$&'()*+,;=~:@"


def _urls(view: str, name: str) -> tuple[str, str]:
    """The URL of ``view`` for item "0", split around the id: one lookup for the whole list."""
    url = reverse(view, args=[name, _ID])
    head, _sep, tail = url.rpartition(f"/{_ID}/")
    return f"{head}/", f"/{tail}"


def _label(name: str, item: Any) -> Any:
    if name == "holographic":
        return item.id
    if name == "hindsight":
        return truncatechars(item.details.get("memory_id", ""), 9)
    return item.details.get("title", "")


def _badges(row: Any) -> SafeString:
    parts = []
    if row.mirror_of == "memory":
        parts.append(format_html('<span class="badge badge--info">{}</span>', _("copy of a MEMORY.md entry")))
    elif row.mirror_of == "user":
        parts.append(format_html('<span class="badge badge--info">{}</span>', _("copy of a USER.md entry")))
    if row.secrets:
        parts.append(format_html('<span class="badge badge--warn">{}</span>', _("holds a stored secret")))
    return format_html_join(" ", "{}", ((part,) for part in parts))


def _named(name: str, item: Any) -> str:
    if name == "holographic":
        return _("fact %(id)s") % {"id": item.id}
    if name == "hindsight":
        return _("memory %(id)s") % {"id": item.details.get("memory_id", "")}
    return str(item.details.get("path", ""))


@register.simple_tag
def contents_rows(name: str, rows: Sequence[Any], can_change: bool) -> SafeString:
    """One ``<tr>`` per shown item, as the list's table has them."""
    item_head, item_tail = _urls("provider_contents_item", name)
    delete_head, delete_tail = _urls("provider_contents_delete", name)
    out = []
    for row in rows:
        item = row.item
        key = quote(str(item.id), safe=_SAFE)
        cells = [
            format_html('<td><a href="{}">{}</a></td>', f"{item_head}{key}{item_tail}", _label(name, item)),
            format_html('<td class="entry-text">{} {}</td>', row.text, _badges(row)),
            format_html("<td>{}</td>", item.group),
        ]
        if name == "holographic":
            cells.append(format_html("<td>{}</td>", floatformat(item.details.get("trust_score"), 2)))
            cells.append(format_html("<td>{}</td>", format_html_join(
                ", ", "{}", ((entity,) for entity in item.details.get("entities") or []))))
        elif name == "hindsight":
            cells.append(format_html('<td class="entry-text">{}</td>', item.details.get("document_id") or "—"))
        if can_change:
            cells.append(format_html(
                '<td><a class="button button--quiet" href="{}">{}<span class="visually-hidden"> {}</span></a></td>',
                f"{delete_head}{key}{delete_tail}", _("Delete"), _named(name, item)))
        out.append(format_html("<tr>\n      {}\n    </tr>", format_html_join("\n      ", "{}", ((c,) for c in cells))))
    return format_html_join("\n    ", "{}", ((tr,) for tr in out))

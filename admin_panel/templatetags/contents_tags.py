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


def _named(name: str, item: Any) -> str:
    if name == "holographic":
        return _("fact %(id)s") % {"id": item.id}
    if name == "hindsight":
        return _("memory %(id)s") % {"id": item.details.get("memory_id", "")}
    return str(item.details.get("path", ""))


def _row_format(name: str, can_change: bool) -> str:
    """One row's markup, its values left as ``format_html`` fields: one call per row."""
    cells = ['<td><a href="{item_url}">{label}</a></td>', '<td class="entry-text">{text} {badges}</td>',
             "<td>{group}</td>"]
    if name == "holographic":
        cells += ["<td>{trust}</td>", "<td>{entities}</td>"]
    elif name == "hindsight":
        cells.append('<td class="entry-text">{document}</td>')
    if can_change:
        cells.append('<td><a class="button button--quiet" href="{delete_url}">{delete}'
                     '<span class="visually-hidden"> {named}</span></a></td>')
    return "<tr>\n      " + "\n      ".join(cells) + "\n    </tr>"


@register.simple_tag
def contents_rows(name: str, rows: Sequence[Any], can_change: bool) -> SafeString:
    """One ``<tr>`` per shown item, as the list's table has them."""
    item_head, item_tail = _urls("provider_contents_item", name)
    delete_head, delete_tail = _urls("provider_contents_delete", name)
    row_format = _row_format(name, can_change)
    mirror = {"memory": format_html('<span class="badge badge--info">{}</span>', _("copy of a MEMORY.md entry")),
              "user": format_html('<span class="badge badge--info">{}</span>', _("copy of a USER.md entry"))}
    secret = format_html('<span class="badge badge--warn">{}</span>', _("holds a stored secret"))
    delete = _("Delete")
    out = []
    for row in rows:
        item = row.item
        key = quote(str(item.id), safe=_SAFE)
        badges = [mirror[row.mirror_of]] if row.mirror_of in mirror else []
        if row.secrets:
            badges.append(secret)
        out.append(format_html(
            row_format, item_url=f"{item_head}{key}{item_tail}", label=_label(name, item), text=row.text,
            badges=format_html_join(" ", "{}", ((badge,) for badge in badges)) if len(badges) > 1 else
            (badges[0] if badges else ""), group=item.group,
            trust=floatformat(item.details.get("trust_score"), 2) if name == "holographic" else "",
            # Joining, then escaping, gives the escaped names joined: ", " holds nothing to escape.
            entities=", ".join(str(e) for e in item.details.get("entities") or []),
            document=item.details.get("document_id") or "—", delete_url=f"{delete_head}{key}{delete_tail}",
            delete=delete, named=_named(name, item)))
    return format_html_join("\n    ", "{}", ((tr,) for tr in out))

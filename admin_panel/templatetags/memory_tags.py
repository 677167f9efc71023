"""Template helpers of the memory view.

Entry texts come from files that anyone (or anything) may have written: every piece is escaped
with :func:`django.utils.html.escape` first and only then joined with the panel's own markup.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django import template
from django.conf import settings
from django.dispatch import receiver
from django.template.loader import render_to_string
from django.utils.autoreload import file_changed
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _

from admin_panel.selectors.sessions import secret_masker
from admin_panel.templatetags.dates import when
from memory_core import caching
from memory_core.caching import KeyedCache
from memory_core.secret_masking import SecretMasker, placeholder
from memory_core.threats import INVISIBLE_CHARS, pattern_label

register = template.Library()


def _escape_visibly(text: str) -> str:
    """Escape ``text`` and show invisible format characters as labelled code points."""
    escaped = escape(text)
    if escaped.isascii():
        return escaped
    pieces = []
    title = escape(_("invisible character"))  # outside the f-string, so makemessages extracts it
    for char in escaped:
        if char in INVISIBLE_CHARS:
            label = f"U+{ord(char):04X}"
            pieces.append(f'<span class="invisible-char" title="{title}">{label}</span>')
        else:
            pieces.append(char)
    return "".join(pieces)


def merged_spans(spans: Iterable[tuple[int | None, int | None]], length: int) -> list[tuple[int, int]]:
    """Clamp, drop unknown or empty spans, and merge overlapping or touching ones."""
    clean = sorted(
        (max(0, start), min(length, end))
        for start, end in spans
        if start is not None and end is not None and min(length, end) > max(0, start)
    )
    merged: list[tuple[int, int]] = []
    for start, end in clean:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _home_masker() -> SecretMasker:
    """The current home's stored secrets (cached a few seconds by the Sessions selectors; a page
    asks once per entry text it shows, so the home is taken as configured, without a disk call)."""
    return secret_masker(home=Path(settings.HERMES_HOME))


@register.filter
def masked(text: Any) -> Any:
    """Entry text with every stored secret's value replaced by ``[secret: ENV_NAME]``: memory is
    shown to viewers too, and a secret the agent memorised is still a secret."""
    if not isinstance(text, str) or not text:
        return text
    masker = _home_masker()
    return masker.mask(text) if masker else text


def _masked_highlights(text: str, spans: list[tuple[int, int]], secrets: list[tuple[int, int, str]]) -> str:
    cuts = sorted({0, len(text), *(edge for span in spans for edge in span),
                   *(edge for start, end, _name in secrets for edge in (start, end))})
    out = []
    for start, end in itertools.pairwise(cuts):
        secret = next(((s, name) for s, e, name in secrets if s <= start < e), None)
        if secret is not None and secret[0] != start:
            continue  # the rest of a secret already shown as its placeholder
        piece = escape(placeholder(secret[1])) if secret is not None else _escape_visibly(text[start:end])
        out.append(f"<mark>{piece}</mark>" if any(s <= start < e for s, e in spans) else piece)
    return "".join(out)


@register.simple_tag
def highlighted_entry(text: str, findings: Sequence[Any]) -> SafeString:
    """The entry text with each matched span in ``<mark>``; everything else escaped; stored
    secrets' values masked."""
    spans = merged_spans(((finding.start, finding.end) for finding in findings), len(text))
    masker = _home_masker()
    secrets = masker.spans(text) if masker else []
    if secrets:
        return mark_safe(_masked_highlights(text, spans, secrets))  # noqa: S308 - built from escaped pieces only
    out = []
    position = 0
    for start, end in spans:
        out.append(_escape_visibly(text[position:start]))
        out.append(f"<mark>{_escape_visibly(text[start:end])}</mark>")
        position = end
    out.append(_escape_visibly(text[position:]))
    return mark_safe("".join(out))  # noqa: S308 - built from escaped pieces only


@register.filter
def thousands(value: Any) -> str:
    """``2200`` -> ``2,200`` (the grouping the agent's own usage line uses)."""
    try:
        return f"{int(value):,}"
    except (TypeError, ValueError):
        return ""


@register.filter
def share(value: Any) -> str:
    """A fraction of the budget as a percentage with one decimal (``0.0264`` -> ``2.6``)."""
    try:
        return f"{float(value) * 100:.1f}"
    except (TypeError, ValueError):
        return ""


# Per-entry labels as filters: a page can list hundreds of entries and is re-rendered on every
# change, and a filter costs far less than a {% blocktranslate %} node.


@register.filter
def characters(count: int) -> str:
    return ngettext("%(count)d character", "%(count)d characters", count) % {"count": count}


@register.filter
def budget_share(fraction: float) -> str:
    return _("%(share)s%% of the budget") % {"share": share(fraction)}


@register.filter
def entry_label(number: int, file_name: str) -> str:
    """Completes "Edit" / "Delete" for screen readers: "entry 3 of MEMORY.md"."""
    return _("entry %(number)s of %(file)s") % {"number": number, "file": file_name}


@register.filter
def write_action(action: str) -> str:
    """A pending write's action in plain words (docs/agent_formats.md §Pending queue); an action
    the panel does not know is shown as the record has it, beside the note that says so."""
    labels = {
        "add": _("Add an entry"),
        "replace": _("Replace an entry"),
        "remove": _("Remove an entry"),
        "batch": _("Several changes"),
    }
    return labels.get(action, action)


@register.filter
def blocked_label(pattern_ids: Sequence[str]) -> str:
    """The entry's badge: what the scanner found, in the short plain names of its findings."""
    return _("Blocked: %(ids)s") % {"ids": _(", ").join(_(pattern_label(pattern_id)) for pattern_id in pattern_ids)}


# Rendered entry items and sources, kept across requests: an item's markup depends only on the
# values in its key (listed where the key is built), and a poll re-renders every entry although
# usually one of them is new. The templates are part of the code: a running ``serve`` never sees
# them change; the development server's reloader does, and then every cache is emptied.
_rendered_entries = KeyedCache("rendered memory entries", size=4096)
_rendered_sources = KeyedCache("rendered entry sources", size=4096)


@receiver(file_changed)
def _forget_renderings(sender: Any, file_path: Path, **kwargs: Any) -> None:
    if Path(file_path).suffix == ".html":
        caching.clear_all()


@register.simple_tag
def entry_source(source: Any) -> SafeString:
    """Where an entry's text came from (``memory/partials/_entry_source.html``), rendered once
    per source and language: the maintenance page shows one per finding."""
    # The relative time ("3 hours ago") is part of the key: it changes while the source does not.
    shown = when(source.at) if source is not None else None
    key = (source.url, shown, source.source, source.actor) if source is not None else None, get_language()
    return _rendered_sources.get_or_compute(
        key, None, lambda: render_to_string("memory/partials/_entry_source.html", {"source": source})
    )


@register.simple_tag(takes_context=True)
def entry_item(context: template.Context, row: Any, store: Any, number: int) -> SafeString:
    """One entry of a store list (``memory/partials/_entry.html``), rendered once per distinct key."""
    can_write = bool(context.get("can_change")) and store.writable
    links = context["entry_links"]
    edit_url = links.edit(row) if can_write else ""
    delete_url = links.delete(row) if can_write else ""
    # Everything the markup depends on. The row's text is in its ref (a digest), and so are its
    # length and scanner findings; no per-user secret (such as a CSRF token) is in an entry item.
    source = row.source
    written = (source.url, source.at, source.actor) if source is not None else None
    copy = (context.get("provider_copies") or {}).get(row.ref)
    shown = masked(row.text)  # the text's digest is in the ref, but masking depends on the secrets
    key = (row.ref, shown, row.view.share_of_budget, store.file_name, number, edit_url, delete_url, written,
           get_language(), tuple(sorted(copy.items())) if copy else None)
    values = {
        "row": row,
        "number": number,
        "file_name": store.file_name,
        "can_write": can_write,
        "edit_url": edit_url,
        "delete_url": delete_url,
        "copy": copy,
    }
    return _rendered_entries.get_or_compute(key, None, lambda: render_to_string("memory/partials/_entry.html", values))


@register.filter
def backup_time(value: Any) -> datetime | None:
    """A file's ``st_mtime`` as an aware UTC datetime."""
    try:
        return datetime.fromtimestamp(float(value), tz=UTC)
    except (TypeError, ValueError, OverflowError, OSError):
        return None


@register.filter
def ref_id(ref: str) -> str:
    """A DOM id fragment for an entry reference (``memory:ab12`` -> ``memory-ab12``)."""
    return ref.replace(":", "-")

"""Template helpers of the Sessions page."""

from __future__ import annotations

import re

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

register = template.Library()

_OPEN, _CLOSE = escape(">>>"), escape("<<<")
_MARKED = re.compile(re.escape(_OPEN) + "(.*?)" + re.escape(_CLOSE), re.DOTALL)


@register.filter
def snippet_marks(text: str | None) -> SafeString:
    """A search snippet, escaped, with its ``>>>hit<<<`` markers as ``<mark>`` (stray markers dropped)."""
    escaped = str(escape(text or ""))
    marked = _MARKED.sub(lambda m: f"<mark>{m.group(1)}</mark>", escaped)
    return mark_safe(marked.replace(_OPEN, "").replace(_CLOSE, ""))  # noqa: S308 - built from escaped text only

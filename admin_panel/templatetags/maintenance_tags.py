"""Template helpers of the maintenance page (escaping as in ``memory_tags``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django import template
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from admin_panel.templatetags.memory_tags import highlighted_entry

register = template.Library()


@dataclass(frozen=True)
class _Span:
    start: int
    end: int


@register.simple_tag
def evidence(findings: Any) -> SafeString:
    """The entry with the evidence spans of its findings (one or several) in ``<mark>``."""
    findings = list(findings) if isinstance(findings, (list, tuple)) else [findings]
    return highlighted_entry(
        findings[0].text, [_Span(start, end) for finding in findings for start, end in finding.spans]
    )


@register.filter
def group_kind(kind: str) -> str:
    labels = {
        "exact": _("Same text"),
        "containment": _("One contains the other"),
        "near": _("Nearly the same"),
    }
    return labels.get(kind, kind)


@register.filter
def percent_of(value: float) -> str:
    return f"{round(value * 100)}%"

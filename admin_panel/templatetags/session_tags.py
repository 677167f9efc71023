"""Template helpers of the Sessions page."""

from __future__ import annotations

import re

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

register = template.Library()

_OPEN, _CLOSE = escape(">>>"), escape("<<<")


@register.filter
def end_reason(reason: str | None) -> str:
    """Why the agent closed a session, in plain words (its own code, from the sessions table of
    docs/agent_formats.md §Session history, is shown on hover)."""
    labels = {
        "cli_close": _("closed in the terminal"),
        "agent_close": _("closed by the agent"),
        "compression": _("continued in a shortened copy"),
        "branched": _("branched into a new session"),
        "cron_complete": _("scheduled task finished"),
        "idle": _("closed after a quiet spell"),
    }
    return labels.get(reason or "", _("another reason"))


# Where a session came from (the sessions table's ``source``): the agent's own words for its
# terminal and its kinds of sessions in plain words; a messaging platform by its name; a source this
# table does not know as the agent wrote it.
_PLATFORM_NAMES = {
    "telegram": "Telegram", "discord": "Discord", "slack": "Slack", "whatsapp": "WhatsApp",
    "signal": "Signal", "matrix": "Matrix", "mattermost": "Mattermost", "homeassistant": "Home Assistant",
    "sms": "SMS", "webhook": "Webhook",
}


@register.filter
def session_source(source: str | None) -> str:
    """A session's source in plain words (its code, from docs/agent_formats.md §Session history, is
    shown on hover where the page has room)."""
    labels = {
        "cli": _("Terminal"),
        "cron": _("Scheduled task"),
        "subagent": _("Subagent"),
        "api": _("API"),
        "api_server": _("API"),
        "email": _("Email"),
    }
    code = source or "cli"
    return labels.get(code) or _PLATFORM_NAMES.get(code, code)


@register.filter
def message_role(role: str | None) -> str:
    """Who wrote a message of a transcript (the messages table's ``role``), in the page's language;
    a role this table does not know is shown as the agent wrote it."""
    labels = {"user": _("User"), "assistant": _("Assistant"), "tool": _("Tool"), "system": _("System")}
    return labels.get(role or "", role or "")


_MARKED = re.compile(re.escape(_OPEN) + "(.*?)" + re.escape(_CLOSE), re.DOTALL)


@register.filter
def snippet_marks(text: str | None) -> SafeString:
    """A search snippet, escaped, with its ``>>>hit<<<`` markers as ``<mark>`` (stray markers dropped)."""
    escaped = str(escape(text or ""))
    marked = _MARKED.sub(lambda m: f"<mark>{m.group(1)}</mark>", escaped)
    return mark_safe(marked.replace(_OPEN, "").replace(_CLOSE, ""))  # noqa: S308 - built from escaped text only


# The words of a search as a person typed them: FTS operators and quotes are not words to mark.
_SEARCH_WORD = re.compile(r"[^\s\"'*()^:+-]+")
_OPERATORS = {"AND", "OR", "NOT", "NEAR"}


def search_words(query: str | None) -> list[str]:
    words = [word for word in _SEARCH_WORD.findall(query or "") if word not in _OPERATORS]
    return sorted(set(words), key=len, reverse=True)[:10]


@register.filter
def search_marks(text: str | None, query: str | None) -> SafeString:
    """A transcript message, escaped, with each word of the search that led to it in ``<mark>``
    (case-insensitive, as the search matched it)."""
    text = text or ""
    words = search_words(query)
    if not words or not text:
        return escape(text)
    pattern = re.compile("|".join(re.escape(word) for word in words), re.IGNORECASE)
    out, position = [], 0
    for found in pattern.finditer(text):
        out.append(str(escape(text[position:found.start()])))
        out.append(f"<mark>{escape(found.group(0))}</mark>")
        position = found.end()
    out.append(str(escape(text[position:])))
    return mark_safe("".join(out))  # noqa: S308 - built from escaped pieces only

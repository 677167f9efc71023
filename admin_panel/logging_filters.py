"""Keep secrets out of log lines.

Two kinds of secret can reach a log line through Django's own request logging: a one-time
link's token (it is part of a URL path) and API tokens or secret values quoted in a message.
The filter rewrites the record's message before any handler formats it.
"""

from __future__ import annotations

import logging
import re

_PATTERNS = (
    # /accounts/first-run/<token>/, /accounts/invitation/<token>/, /accounts/reset/<token>/: each
    # one-time token is a credential until used.
    (re.compile(r"(/accounts/(?:first-run|invitation|reset)/)[^/\s\"']+"), r"\1[redacted]"),
    # Authorization headers and panel tokens quoted in messages.
    (re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]+"), r"\1[redacted]"),
    (re.compile(r"(?i)(x-hermes-session-token[\"']?\s*[:=]\s*[\"']?)[^\s\"',]+"), r"\1[redacted]"),
)


def redact(text: str) -> str:
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


class RedactSecretsFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a broken format string is the logger's problem, not a reason to drop it
            return True
        cleaned = redact(message)
        if cleaned != message:
            record.msg = cleaned
            record.args = None
        return True


class DropNotFoundFilter(logging.Filter):
    """A 404 per request is noise (scanners, stale bookmarks); refusals (403, 400) stay logged."""

    def filter(self, record: logging.LogRecord) -> bool:
        return getattr(record, "status_code", None) != 404

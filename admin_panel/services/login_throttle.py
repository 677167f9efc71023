"""Login throttling: lock out repeated failures per username and per client address.

Counts live in Django's cache (the panel runs as one process). A locked username or address is
refused even with the right password, and the message is the same whether or not the username
exists, so the lockout cannot be used to discover accounts.
"""

from __future__ import annotations

import hashlib
import time

from django.core.cache import cache

WINDOW_SECONDS = 15 * 60
MAX_FAILURES_PER_USERNAME = 5
MAX_FAILURES_PER_ADDRESS = 20


def _key(kind: str, value: str) -> str:
    digest = hashlib.sha256(value.strip().lower().encode("utf-8")).hexdigest()[:32]
    return f"login-failures:{kind}:{digest}"


def _recent(key: str, now: float) -> list[float]:
    return [stamp for stamp in cache.get(key, []) if now - stamp < WINDOW_SECONDS]


def is_locked_out(*, username: str, address: str) -> bool:
    now = time.time()
    return (
        len(_recent(_key("user", username), now)) >= MAX_FAILURES_PER_USERNAME
        or len(_recent(_key("addr", address), now)) >= MAX_FAILURES_PER_ADDRESS
    )


def record_failure(*, username: str, address: str) -> None:
    now = time.time()
    for key in (_key("user", username), _key("addr", address)):
        cache.set(key, [*_recent(key, now), now], timeout=WINDOW_SECONDS)


def clear_failures(*, username: str) -> None:
    cache.delete(_key("user", username))

"""When a page answers with its fragment instead of the whole page."""

from __future__ import annotations

from django.http import HttpRequest


def is_partial(request: HttpRequest) -> bool:
    """An htmx request that swaps part of the page; a history restore (back button after the
    cache was dropped) needs the whole page, so it is not one."""
    htmx = getattr(request, "htmx", None)
    return bool(htmx) and not htmx.history_restore_request

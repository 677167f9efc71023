"""Response headers the whole panel shares."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string

from admin_panel.services.write_errors import DISK_FULL_STATUS, disk_full_text, is_disk_full

# No inline script or style anywhere: htmx is configured (meta htmx-config) not to inject its
# indicator styles, and every page's behaviour lives in static files.
CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        return response


class IdleTimeoutMiddleware:
    """Idle timeout: a signed-in session expires ``SESSION_COOKIE_AGE`` (the idle timeout) after its
    last save. Touching it on activity pushes the expiry forward; at most once a minute, so that
    polling pages do not write the session on every request."""

    TOUCHED_KEY = "panel_last_seen"
    TOUCH_EVERY_SECONDS = 60

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        session = getattr(request, "session", None)
        if session is not None and session.get("_auth_user_id") is not None:
            now = int(time.time())
            seen = session.get(self.TOUCHED_KEY)
            if not isinstance(seen, int) or now - seen >= self.TOUCH_EVERY_SECONDS:
                session[self.TOUCHED_KEY] = now  # marks the session modified: saved with a fresh expiry
        return self.get_response(request)


# Requests slower than this are logged at WARNING (milliseconds; PANEL_SLOW_REQUEST_MS, 0 turns it off).
SLOW_REQUEST_MS = float(os.environ.get("PANEL_SLOW_REQUEST_MS", "500") or 0)
request_logger = logging.getLogger("admin_panel.requests")


class SlowRequestLogMiddleware:
    """One line per request only when it is slow: an operator's journal stays readable under load.

    The time runs until the response object exists; an event stream's open life is not counted.
    Only the method and path are logged (never the query string, which may carry a token).
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        response = self.get_response(request)
        elapsed_ms = (time.perf_counter() - started) * 1000
        if SLOW_REQUEST_MS and elapsed_ms >= SLOW_REQUEST_MS:
            request_logger.warning("Slow request: %s %s took %.0f ms (status %s)", request.method,
                                   request.path, elapsed_ms, response.status_code)
        return response


class DiskFullMiddleware:
    """A write that a full disk (or quota) stopped, on a page that did not answer it itself, gets a
    507 page saying so instead of the generic error page (``services.write_errors``)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not is_disk_full(exception):
            return None
        logging.getLogger(__name__).warning("Write refused, the disk is full: %s %s", request.method, request.path)
        body = render_to_string("disk_full.html", {"message": disk_full_text()}, request=request)
        return HttpResponse(body, status=DISK_FULL_STATUS)

"""Server-sent events that tell a page "what you show may have changed", and nothing else.

A stream sends the page's fingerprint (an opaque hash of ``stat`` results, never content) when it
opens and whenever it changes; the page then fetches the fragment it needs through its usual
route, under that route's own permission checks. Between changes the stream is idle: the
process's change feed wakes it, and a comment every ``HEARTBEAT_SECONDS`` keeps proxies from
closing it (and re-takes the fingerprint, in case a file system delivered no event).

Before each message the stream re-reads the session and the user from the database, so a signed
out, deactivated or demoted account stops receiving on the next wake. Under ASGI (``serve``) the
stream waits on the event loop and ties up no request worker; under WSGI (Django's test server)
it answers once and the browser asks again, like a poll.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterable
from importlib import import_module
from os import PathLike

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib import auth
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.handlers.asgi import ASGIRequest
from django.db import connection
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse

from admin_panel.change_feed import change_feed

HEARTBEAT_SECONDS = 15.0
# The browser's own reconnect delay after a dropped connection (live.js adds its backoff on top).
RETRY_MS = 1000
WSGI_RETRY_MS = 500
END_EVENT = "event: end\ndata: \n\n"

Fingerprint = Callable[[], str]
Allowed = Callable[[AbstractBaseUser | AnonymousUser], bool]


def _message(fingerprint: str) -> str:
    return f"data: {fingerprint}\n\n"


def _still_allowed(session_key: str | None, allowed: Allowed) -> bool:
    """The session and the account as the database has them now, checked as a new request would."""
    if not session_key:
        return False
    probe = HttpRequest()
    probe.session = import_module(settings.SESSION_ENGINE).SessionStore(session_key=session_key)
    try:
        return allowed(auth.get_user(probe))
    finally:
        # A stream's checks run on its own thread, which ends with the stream: connections are
        # kept open for the request threads only (CONN_MAX_AGE), never left behind here.
        connection.close()


def _one_shot(fingerprint: Fingerprint) -> str:
    """Under WSGI a waiting stream would hold a worker thread per tab: send the fingerprint once and
    end; the browser opens the stream again after ``retry`` (a poll, as cheap as the old one)."""
    return f"retry: {WSGI_RETRY_MS}\n" + _message(fingerprint())


async def _async_events(paths: tuple[str, ...], fingerprint: Fingerprint, session_key: str | None,
                        allowed: Allowed) -> AsyncIterator[str]:
    feed = change_feed()
    loop = asyncio.get_running_loop()
    woken = asyncio.Event()
    subscription = feed.subscribe(paths, lambda: loop.call_soon_threadsafe(woken.set))
    check = sync_to_async(_still_allowed)
    try:
        last = fingerprint()
        yield f"retry: {RETRY_MS}\n" + _message(last)
        while True:
            woken_by_feed = True
            try:
                await asyncio.wait_for(woken.wait(), HEARTBEAT_SECONDS)
            except TimeoutError:
                woken_by_feed = False
            woken.clear()
            if feed.closed:
                return
            current = fingerprint()  # stat calls only: cheap enough for the event loop
            if woken_by_feed and current == last:
                continue  # something near the files changed, not what this page shows
            if not await check(session_key, allowed):
                yield END_EVENT
                return
            if current != last:
                last = current
                yield _message(current)
            else:
                yield ": idle\n\n"
    finally:
        feed.unsubscribe(subscription)


def event_stream(request: HttpRequest, *, paths: Iterable[str | PathLike[str]], fingerprint: Fingerprint,
                 allowed: Allowed) -> HttpResponse:
    """The response for a page's change stream. The caller has already checked ``allowed`` for this
    request (the view's permission decorator); ``allowed`` is re-checked before every message."""
    watched = tuple(str(path) for path in paths)
    session_key = request.session.session_key
    content_type = "text/event-stream; charset=utf-8"
    if isinstance(request, ASGIRequest):
        response: HttpResponse = StreamingHttpResponse(_async_events(watched, fingerprint, session_key, allowed),
                                                       content_type=content_type)
    else:
        response = HttpResponse(_one_shot(fingerprint), content_type=content_type)
    response["Cache-Control"] = "no-store"
    # A buffering proxy (nginx) would hold the events back until its buffer fills.
    response["X-Accel-Buffering"] = "no"
    return response

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

Open streams are counted per account and in all (``PANEL_STREAMS_PER_ACCOUNT``,
``PANEL_STREAMS_TOTAL``); past either limit the answer is 429 with a reason and a Retry-After, and
the page polls instead. The database work of every stream (the view, the checks) runs on one
shared thread with one connection (see admin_panel/asgi.py), so an open stream holds a socket and
a coroutine, no thread and no database connection of its own.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections.abc import AsyncIterator, Callable, Iterable
from importlib import import_module
from os import PathLike
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib import auth
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.utils.translation import gettext as _

from admin_panel.change_feed import change_feed

HEARTBEAT_SECONDS = 15.0
# The browser's own reconnect delay after a dropped connection (live.js adds its backoff on top).
RETRY_MS = 1000
WSGI_RETRY_MS = 500
END_EVENT = "event: end\ndata: \n\n"
# A refused stream's page polls meanwhile; this is when it may try a stream again.
RETRY_AFTER_SECONDS = 30

Fingerprint = Callable[[], str]
Allowed = Callable[[AbstractBaseUser | AnonymousUser], bool]


class _Slot:
    """One open stream's place in the counts; given back once, however the stream ends."""

    def __init__(self, slots: _Slots, account: Any) -> None:
        self._slots, self.account, self._released = slots, account, False

    def release(self) -> None:
        self._slots.give_back(self)


class _Slots:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.per_account: dict[Any, int] = {}
        self.total = 0

    def take(self, account: Any, *, per_account: int, total: int) -> _Slot | None:
        with self._lock:
            if self.total >= total or self.per_account.get(account, 0) >= per_account:
                return None
            self.total += 1
            self.per_account[account] = self.per_account.get(account, 0) + 1
            return _Slot(self, account)

    def give_back(self, slot: _Slot) -> None:
        with self._lock:
            if slot._released:
                return
            slot._released = True
            self.total -= 1
            left = self.per_account[slot.account] - 1
            if left:
                self.per_account[slot.account] = left
            else:
                del self.per_account[slot.account]


_slots = _Slots()


class _LimitedStream(StreamingHttpResponse):
    """A stream that gives its slot back when Django closes the response."""

    slot: _Slot | None = None

    def close(self) -> None:
        if self.slot is not None:
            self.slot.release()
        super().close()


def _message(fingerprint: str) -> str:
    return f"data: {fingerprint}\n\n"


def _still_allowed(session_key: str | None, allowed: Allowed) -> bool:
    """The session and the account as the database has them now, checked as a new request would."""
    if not session_key:
        return False
    probe = HttpRequest()
    probe.session = import_module(settings.SESSION_ENGINE).SessionStore(session_key=session_key)
    # On the streams' shared thread, whose connection stays open for the next check (CONN_MAX_AGE).
    return allowed(auth.get_user(probe))


def _one_shot(fingerprint: Fingerprint) -> str:
    """Under WSGI a waiting stream would hold a worker thread per tab: send the fingerprint once and
    end; the browser opens the stream again after ``retry`` (a poll, as cheap as the old one)."""
    return f"retry: {WSGI_RETRY_MS}\n" + _message(fingerprint())


async def _async_events(paths: tuple[str, ...], fingerprint: Fingerprint, session_key: str | None,
                        allowed: Allowed, slot: _Slot) -> AsyncIterator[str]:
    feed = change_feed()
    loop = asyncio.get_running_loop()
    woken = asyncio.Event()
    last = fingerprint()
    # The feed compares the fingerprint itself and wakes this stream only when it moved.
    subscription = feed.subscribe(paths, lambda: loop.call_soon_threadsafe(woken.set),
                                  fingerprint=fingerprint, seen=last)
    check = sync_to_async(_still_allowed)
    try:
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
        slot.release()


def event_stream(request: HttpRequest, *, paths: Iterable[str | PathLike[str]], fingerprint: Fingerprint,
                 allowed: Allowed) -> HttpResponse:
    """The response for a page's change stream. The caller has already checked ``allowed`` for this
    request (the view's permission decorator); ``allowed`` is re-checked before every message."""
    watched = tuple(str(path) for path in paths)
    session_key = request.session.session_key
    content_type = "text/event-stream; charset=utf-8"
    if isinstance(request, ASGIRequest):
        slot = _slots.take(request.user.pk, per_account=settings.PANEL_STREAMS_PER_ACCOUNT,
                           total=settings.PANEL_STREAMS_TOTAL)
        if slot is None:
            return _refused()
        events = _async_events(watched, fingerprint, session_key, allowed, slot)
        # A stream cancelled before its first step never runs its own cleanup: the slot then goes
        # back when the generator is collected (at once, by reference counting).
        weakref.finalize(events, slot.release)
        response: HttpResponse = _LimitedStream(events, content_type=content_type)
        response.slot = slot
    else:
        response = HttpResponse(_one_shot(fingerprint), content_type=content_type)
    response["Cache-Control"] = "no-store"
    # A buffering proxy (nginx) would hold the events back until its buffer fills.
    response["X-Accel-Buffering"] = "no"
    return response


def _refused() -> HttpResponse:
    message = _(
        "Too many live-update connections are open (one per open tab). Live updates are paused on "
        "this page: it checks for changes by itself and tries again later. Closing other tabs of "
        "the panel frees connections."
    )
    response = HttpResponse(message, status=429, content_type="text/plain; charset=utf-8")
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    response["Cache-Control"] = "no-store"
    return response

"""ASGI entry point, served by uvicorn through ``manage.py serve``.

Two Django handlers behind one socket. The pages' event streams (every route ending in
``/events/``) go to Django's ASGI handler: they are async iterators that wait on the event loop,
so an open tab holds a connection, not a thread. Every other request goes to Django's WSGI
handler on a fixed pool of threads, with one hop from the event loop to a thread and one back.

Measured (``bench/panel.py`` over HTTP, py-spy on the server; figures in the README): Django's
ASGI handler makes a new thread per request and several thread hops (signals, body, response
close), about twice the CPU of an ordinary request; a2wsgi, used before, waits on the event loop
for the body, the status line and every chunk, and each of those waits costs a GIL hand-over
between the two threads. Here the body is read on the loop before the hop and a whole
(non-streaming) response comes back in one piece. A streaming response (the audit export) is sent
chunk by chunk from its thread, so its database cursor stays on the thread that opened it.

Bodies (docs/request_bodies.md): the limit of each address (``admin_panel/body_limits.py``)
is checked against Content-Length before anything is read, and counted while a chunked body
arrives; a large or chunked body is read only once its sender showed a valid session or API token
(checked on a pool thread: the only extra hop, taken by large bodies alone). A request runs only
once its whole body arrived: a client that goes away mid-body leaves nothing behind.
"""

from __future__ import annotations

import asyncio
import io
import logging
import os
import sys
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from tempfile import SpooledTemporaryFile
from typing import TYPE_CHECKING, Any

from django.core.asgi import get_asgi_application
from django.core.wsgi import get_wsgi_application

from admin_panel import body_limits
from admin_panel.body_limits import is_stream

if TYPE_CHECKING:
    from django.core.handlers.wsgi import WSGIRequest
    from django.http import HttpResponse

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "admin_panel.settings")

logger = logging.getLogger(__name__)
# A request body larger than this goes to a temporary file instead of memory (as Django's ASGI
# handler does).
BODY_IN_MEMORY_BYTES = 1024 * 1024

Message = dict[str, Any]
StartAndBody = tuple[Message, bytes]


def default_threads() -> int:
    """Threads for ordinary requests, sized for the machine: a request is mostly Python under the
    GIL, so more threads than cores only adds hand-overs; a few more than cores cover the time
    spent waiting on fsync and SQLite locks."""
    return min(16, (os.cpu_count() or 1) + 2)


def wsgi_environ(scope: dict[str, Any], body: Any, content_length: int) -> dict[str, Any]:
    """PEP 3333 environ for an ASGI HTTP scope (header bytes as latin-1, as WSGI wants them)."""
    server_name, server_port = scope.get("server") or ("localhost", 80)
    environ: dict[str, Any] = {
        "REQUEST_METHOD": scope["method"],
        "SCRIPT_NAME": scope.get("root_path", "").encode("utf-8").decode("latin-1"),
        "PATH_INFO": scope["path"].encode("utf-8").decode("latin-1"),
        "QUERY_STRING": scope["query_string"].decode("latin-1"),
        "SERVER_NAME": server_name,
        "SERVER_PORT": str(server_port or 0),
        "SERVER_PROTOCOL": f"HTTP/{scope['http_version']}",
        "CONTENT_LENGTH": str(content_length),
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": scope.get("scheme", "http"),
        "wsgi.input": body,
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
    }
    client = scope.get("client")
    if client:
        environ["REMOTE_ADDR"], environ["REMOTE_PORT"] = client[0], str(client[1])
    for raw_name, raw_value in scope["headers"]:
        name = raw_name.decode("latin-1").upper().replace("-", "_")
        if name == "CONTENT_LENGTH":
            continue  # the length of what was actually received, set above
        key = name if name == "CONTENT_TYPE" else "HTTP_" + name
        value = raw_value.decode("latin-1")
        environ[key] = f"{environ[key]},{value}" if key in environ else value
    return environ


def declared_length(headers: Iterable[tuple[bytes, bytes]]) -> int | None:
    """The body length a request declares: its Content-Length, 0 without one, or None when it is
    not known in advance (chunked, or a length the server should never have let through)."""
    length = 0
    for name, value in headers:
        if name == b"content-length":
            try:
                length = int(value)
            except ValueError:
                return None
        elif name == b"transfer-encoding":
            return None
    return length


class BodyTooLarge(Exception):
    """A chunked body went past its address's limit while it was being read."""


def bare_request(scope: dict[str, Any]) -> WSGIRequest:
    """A Django request for the headers alone (the body is never read through it): its cookies,
    language and path, for answering before the body."""
    from django.core.handlers.wsgi import WSGIRequest

    return WSGIRequest(wsgi_environ(scope, io.BytesIO(), 0))


def too_large(scope: dict[str, Any], limit: int) -> HttpResponse:
    """413 in words, before (or instead of) reading the rest of the body."""
    from django.http import HttpResponse
    from django.template.defaultfilters import filesizeformat
    from django.utils import translation
    from django.utils.translation import gettext as _

    if body_limits.is_api(scope["path"]):
        from admin_panel.api_auth import api_error

        return api_error(f"Request body is too large: this address accepts at most {limit} bytes. "
                         "Nothing was changed.", 413)
    with translation.override(translation.get_language_from_request(bare_request(scope))):
        if limit == 0:
            text = _("This address takes no request body. Nothing was saved.")
        else:
            text = _("The request is too large: this address accepts at most %(limit)s. Nothing was saved.") % {
                "limit": filesizeformat(limit)}
    return HttpResponse(text, status=413, content_type="text/plain; charset=utf-8")


def length_mismatch(scope: dict[str, Any]) -> HttpResponse:
    from django.http import HttpResponse
    from django.utils import translation
    from django.utils.translation import gettext as _

    with translation.override(translation.get_language_from_request(bare_request(scope))):
        text = _("The request body did not match its declared length. Nothing was saved.")
    return HttpResponse(text, status=400, content_type="text/plain; charset=utf-8")


def refusal_before_body(request: WSGIRequest, *, api: bool) -> HttpResponse | None:
    """On the event loop, from the headers alone: an answer for a sender who cannot be signed in
    (no session cookie, no API token) or whose browser change lacks its CSRF cookie; else None."""
    from django.conf import settings

    from admin_panel.api_auth import SAFE_METHODS, presented_token

    token = presented_token(request) if api else None
    if token is None and not request.COOKIES.get(settings.SESSION_COOKIE_NAME):
        return not_signed_in(request, api=api)
    if token is None and request.method not in SAFE_METHODS:
        if not request.COOKIES.get(settings.CSRF_COOKIE_NAME):
            return csrf_refused(request, api=api, reason="CSRF cookie not set.")
        # A JSON body cannot carry the form's token: the API takes it from the header only.
        if api and not request.META.get(settings.CSRF_HEADER_NAME):
            return csrf_refused(request, api=api, reason="CSRF token missing.")
    return None


def not_signed_in(request: WSGIRequest, *, api: bool) -> HttpResponse:
    if api:
        from admin_panel.api_auth import api_error

        return api_error("Unauthorized", 401)
    from django.conf import settings
    from django.contrib.auth.views import redirect_to_login

    return redirect_to_login(request.get_full_path(), settings.LOGIN_URL)


def csrf_refused(request: WSGIRequest, *, api: bool, reason: str) -> HttpResponse:
    from django.http import HttpResponse
    from django.utils import translation
    from django.utils.translation import gettext as _

    if api:
        from admin_panel.api_auth import api_error

        return api_error(f"CSRF Failed: {reason}", 403)
    with translation.override(translation.get_language_from_request(request)):
        text = _("This form could not be checked: the browser sent no security cookie with it. "
                 "Reload the page and send it again; nothing was saved.")
    return HttpResponse(text, status=403, content_type="text/plain; charset=utf-8")


def signed_in(request: WSGIRequest, *, api: bool) -> bool:
    """Whether the request's API token or session belongs to an active account (in a pool thread:
    it reads the panel's database). A check that fails lets the body be read: the size limit
    still holds and Django checks the sender again."""
    from importlib import import_module
    from types import SimpleNamespace

    from django.conf import settings
    from django.contrib.auth import get_user

    from admin_panel.api_auth import _user_for_token, presented_token

    try:
        token = presented_token(request) if api else None
        if token is not None:
            return _user_for_token(token) is not None
        session = import_module(settings.SESSION_ENGINE).SessionStore(
            request.COOKIES.get(settings.SESSION_COOKIE_NAME))
        return bool(get_user(SimpleNamespace(session=session)).is_authenticated)
    except Exception:
        logger.exception("Could not check the sender of a large request body; reading it")
        return True


async def send_whole(send: Any, response: HttpResponse) -> None:
    """Send a Django response built on the loop and close the connection after it: the rest of a
    body that was refused unread is never read."""
    headers = [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in response.items()]
    headers += [(b"content-length", str(len(response.content)).encode()), (b"x-content-type-options", b"nosniff"),
                (b"connection", b"close")]
    await send({"type": "http.response.start", "status": response.status_code, "headers": headers})
    await send({"type": "http.response.body", "body": response.content})


class WsgiOnThreads:
    """An ASGI app that runs a WSGI app on a fixed thread pool, one hop there and one back."""

    def __init__(self, app: Callable[..., Iterable[bytes]], *, threads: int) -> None:
        self.app = app
        self.pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="panel-request")

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        declared = declared_length(scope["headers"])
        limit = body_limits.body_limit(scope["path"])
        if declared is not None and declared > limit:
            await send_whole(send, too_large(scope, limit))
            return
        loop = asyncio.get_running_loop()
        if body_limits.needs_sign_in_first(declared=declared, limit=limit):
            request, api = bare_request(scope), body_limits.is_api(scope["path"])
            refusal = refusal_before_body(request, api=api)
            if refusal is None and not await loop.run_in_executor(self.pool, lambda: signed_in(request, api=api)):
                refusal = not_signed_in(request, api=api)
            if refusal is not None:
                await send_whole(send, refusal)
                return
        body = SpooledTemporaryFile(max_size=BODY_IN_MEMORY_BYTES)  # noqa: SIM115 - closed below
        try:
            try:
                length = await self._read_body(receive, body, limit=limit)
            except BodyTooLarge:
                await send_whole(send, too_large(scope, limit))
                return
            if length is None:
                return  # the client went away before its whole body arrived: nothing runs
            if declared is not None and length != declared:
                await send_whole(send, length_mismatch(scope))
                return
            environ = wsgi_environ(scope, body, length)

            def relay(message: Message) -> None:  # from the request thread, for streaming responses
                asyncio.run_coroutine_threadsafe(send(message), loop).result()

            whole = await loop.run_in_executor(self.pool, self._respond, environ, relay)
            if whole is not None:
                start, content = whole
                await send(start)
                await send({"type": "http.response.body", "body": content})
        finally:
            body.close()

    @staticmethod
    async def _read_body(receive: Any, body: Any, *, limit: int) -> int | None:
        """The body's length once it arrived whole (the last message says no more body), None if
        the client disconnected first; ``BodyTooLarge`` as soon as it passes ``limit``."""
        length = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            if chunk:
                length += len(chunk)
                if length > limit:
                    raise BodyTooLarge
                body.write(chunk)
            if not message.get("more_body", False):
                break
        body.seek(0)
        return length

    def _respond(self, environ: dict[str, Any], relay: Callable[[Message], None]) -> StartAndBody | None:
        """Run the WSGI app (in a pool thread). A whole response is returned to the loop; a
        streaming one is relayed chunk by chunk and ``None`` returned."""
        started: list[Message] = []

        def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> None:
            started[:] = [{
                "type": "http.response.start",
                "status": int(status.split(" ", 1)[0]),
                "headers": [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in headers],
            }]

        result = self.app(environ, start_response)
        try:
            if not getattr(result, "streaming", False):
                content = b"".join(result)
                return started[0], content
            relay(started[0])
            for chunk in result:
                if chunk:
                    relay({"type": "http.response.body", "body": chunk, "more_body": True})
            relay({"type": "http.response.body", "body": b""})
            return None
        finally:
            close = getattr(result, "close", None)
            if close is not None:
                close()  # Django's request_finished: the thread's database connection is tidied here


def build_application(*, threads: int | None = None) -> Any:
    streams = get_asgi_application()
    requests = WsgiOnThreads(get_wsgi_application(), threads=threads or default_threads())

    async def application(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and is_stream(scope["path"]):
            # Django's handler would read (and spool) any body before the view; a stream takes none.
            declared = declared_length(scope["headers"])
            if declared is None or declared > body_limits.STREAM_BODY_BYTES:
                await send_whole(send, too_large(scope, body_limits.STREAM_BODY_BYTES))
                return
            # handle(), not __call__: outside a ThreadSensitiveContext every stream's few database
            # calls share one thread and its one connection, instead of a thread and a connection
            # per open stream (threads, memory and SQLite file descriptors by the thousand).
            await streams.handle(scope, receive, send)
        elif scope["type"] == "http":
            await requests(scope, receive, send)

    return application


def __getattr__(name: str) -> Any:
    """``application`` for an outside ASGI server (``uvicorn admin_panel.asgi:application``),
    built on first use: ``serve`` builds its own with its thread count, and building a second
    one at import would load both middleware chains (and WhiteNoise's walk of the static files)
    twice in every start (docs/performance.md, "The start, second pass")."""
    if name == "application":
        built = globals()["application"] = build_application()
        return built
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

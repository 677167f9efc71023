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
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from tempfile import SpooledTemporaryFile
from typing import Any

from django.core.asgi import get_asgi_application
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "admin_panel.settings")

STREAM_SUFFIX = "/events/"
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


class WsgiOnThreads:
    """An ASGI app that runs a WSGI app on a fixed thread pool, one hop there and one back."""

    def __init__(self, app: Callable[..., Iterable[bytes]], *, threads: int) -> None:
        self.app = app
        self.pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="panel-request")

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        body = SpooledTemporaryFile(max_size=BODY_IN_MEMORY_BYTES)  # noqa: SIM115 - closed below
        try:
            length = await self._read_body(receive, body)
            environ = wsgi_environ(scope, body, length)
            loop = asyncio.get_running_loop()

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
    async def _read_body(receive: Any, body: Any) -> int:
        length = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                break
            chunk = message.get("body", b"")
            if chunk:
                body.write(chunk)
                length += len(chunk)
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
        if scope["type"] == "http" and scope["path"].endswith(STREAM_SUFFIX):
            # handle(), not __call__: outside a ThreadSensitiveContext every stream's few database
            # calls share one thread and its one connection, instead of a thread and a connection
            # per open stream (threads, memory and SQLite file descriptors by the thousand).
            await streams.handle(scope, receive, send)
        elif scope["type"] == "http":
            await requests(scope, receive, send)

    return application


application = build_application()

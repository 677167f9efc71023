"""ASGI entry point, served by uvicorn through ``manage.py serve``.

Two Django handlers behind one socket. The pages' event streams (every route ending in
``/events/``) go to Django's ASGI handler: they are async iterators that wait on the event loop,
so an open tab holds a connection, not a thread. Every other request goes to Django's WSGI
handler on a fixed pool of threads (a2wsgi): measured with ``bench/load.py``, Django's ASGI
handler costs about twice the CPU per ordinary request (a new thread and several thread hops for
each), which halved the panel's throughput on a 2-core machine.
"""

from __future__ import annotations

import os
from typing import Any

from a2wsgi import WSGIMiddleware
from django.core.asgi import get_asgi_application
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "admin_panel.settings")

STREAM_SUFFIX = "/events/"


def build_application(*, threads: int = 8) -> Any:
    streams = get_asgi_application()
    requests = WSGIMiddleware(get_wsgi_application(), workers=threads)

    async def application(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"].endswith(STREAM_SUFFIX):
            await streams(scope, receive, send)
        else:
            await requests(scope, receive, send)

    return application


application = build_application()

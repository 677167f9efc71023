"""ASGI entry point, served by uvicorn through ``manage.py serve``.

Ordinary views stay synchronous (Django runs each request in a thread); the pages' event streams
are async iterators, so an open stream waits on the event loop instead of holding a worker.
"""

from __future__ import annotations

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "admin_panel.settings")

application = get_asgi_application()

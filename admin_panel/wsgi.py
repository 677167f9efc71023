"""WSGI entry point, for WSGI servers (``manage.py serve`` uses the ASGI one, ``admin_panel.asgi``)."""

from __future__ import annotations

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "admin_panel.settings")

application = get_wsgi_application()

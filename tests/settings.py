"""Test settings: the real settings, pointed at a throwaway home before they load."""

from __future__ import annotations

import os
import tempfile

_root = tempfile.mkdtemp(prefix="memory-panel-tests-")
os.environ["HERMES_HOME"] = os.path.join(_root, "hermes")
os.environ["PANEL_DATA_DIR"] = os.path.join(_root, "panel")
# Playwright's sync API runs an event loop in the test thread; the ORM calls made by fixtures
# from that thread are still synchronous.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

from admin_panel.settings import *  # noqa: E402,F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast logins in tests

# The test database is a file in WAL mode, as the panel's own is. Django's default for SQLite, an
# in-memory database with a shared cache, locks whole tables: a request reading while the budget
# sampler's thread writes failed at once with "database table is locked", which the panel's
# file-backed WAL database never does (readers do not wait for the writer there).
DATABASES["default"]["TEST"] = {"NAME": os.path.join(_root, "test-panel.sqlite3")}  # noqa: F405

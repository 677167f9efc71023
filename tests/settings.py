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

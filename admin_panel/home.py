"""The HERMES_HOME a request or command works on."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings


def current_home() -> Path:
    """The configured home, created on first use (read at call time so tests can override it)."""
    home = Path(settings.HERMES_HOME)
    home.mkdir(parents=True, exist_ok=True)
    return home

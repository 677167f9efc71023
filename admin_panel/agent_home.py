"""The agent home (HERMES_HOME) a request or command works on: the panel's own, or the profile a
request chose. Not to be confused with views/home.py, the panel's home page."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from django.conf import settings

# The home of the profile a request chose (set by ProfileMiddleware); None: the panel's own home.
_chosen_home: ContextVar[Path | None] = ContextVar("panel_chosen_home", default=None)


def panel_home() -> Path:
    """The home the panel was started on, whatever profile a request chose."""
    return Path(settings.HERMES_HOME)


def current_home() -> Path:
    """The chosen profile's home, else the configured one, created on first use (read at call time
    so tests can override it)."""
    home = _chosen_home.get() or panel_home()
    home.mkdir(parents=True, exist_ok=True)
    return home


@contextmanager
def working_on(home: Path) -> Iterator[None]:
    """Make ``home`` what :func:`current_home` answers for the code run inside (one request)."""
    token = _chosen_home.set(Path(home))
    try:
        yield
    finally:
        _chosen_home.reset(token)

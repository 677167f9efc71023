"""Routes name their views lazily (admin_panel/routes/lazy.py): the URL conf and the reverse table
load no view module, and every named view loads as the plain function view it stands for."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.urls import URLPattern, URLResolver, get_resolver

from admin_panel.routes.lazy import LazyView, ViewModule

pytestmark = pytest.mark.django_db


def _patterns(resolver: URLResolver) -> list[URLPattern]:
    found: list[URLPattern] = []
    for entry in resolver.url_patterns:
        found += _patterns(entry) if isinstance(entry, URLResolver) else [entry]
    return found


def test_it_names_every_function_view_lazily():
    lazy = [p for p in _patterns(get_resolver()) if isinstance(p.callback, LazyView)]
    eager = [p.lookup_str for p in _patterns(get_resolver()) if not isinstance(p.callback, LazyView)]
    assert len(lazy) > 80
    # Only Django's and the panel's class-based views (and the icon's redirect) are named directly.
    assert all(hasattr(p.callback, "view_class") or "set_language" in p.lookup_str for p in _patterns(get_resolver())
               if p.lookup_str in eager)


def test_it_loads_every_routed_view_with_the_name_the_reverse_table_gave_it():
    for pattern in _patterns(get_resolver()):
        if not isinstance(pattern.callback, LazyView):
            continue
        view = pattern.callback.load()
        assert callable(view) and not isinstance(view, LazyView)
        # The lookup string Django computed before loading is the real view's.
        assert pattern.lookup_str == f"{view.__module__}.{view.__qualname__}", pattern.lookup_str
        assert not hasattr(view, "view_class")


def test_it_answers_a_middleware_s_attribute_read_with_the_real_view_s():
    first_run = ViewModule("admin_panel.views.first_run")
    # LoginRequiredMiddleware reads this before the view runs: the public page must stay public.
    assert first_run.choose_first_account.login_required is False
    memory = ViewModule("admin_panel.views.memory")
    assert not hasattr(memory.memory_page, "login_required")  # signed-in only, as the real view
    from admin_panel.views import memory as loaded

    assert memory.memory_page.load() is loaded.memory_page
    assert memory.memory_page is memory.memory_page  # one proxy per name


def test_it_answers_view_class_as_absent_without_importing():
    view = LazyView("tests.foundation.no_such_views_module", "page")
    assert not hasattr(view, "view_class")
    with pytest.raises(ModuleNotFoundError):
        view.load()


def test_it_refuses_a_coroutine_view_when_it_loads():
    with pytest.raises(ImproperlyConfigured, match="coroutine"):
        LazyView("tests.foundation.test_lazy_views", "coroutine_view").load()


def test_it_refuses_a_class_based_view_when_it_loads():
    with pytest.raises(ImproperlyConfigured, match="class-based"):
        LazyView("django.contrib.auth.views", "LoginView").load()


async def coroutine_view(request):  # the refused kind, for the test above
    return None


def test_it_loads_no_view_module_for_the_url_conf_and_the_reverse_table():
    """In a fresh interpreter: the system checks' load of the URL conf and a reverse (what
    ``serve`` does before its first page) import no view module; resolving and calling a route's
    view imports its module."""
    script = textwrap.dedent("""
        import json, sys
        import django
        django.setup()
        from django.core import checks
        from django.urls import resolve, reverse
        checks.run_checks(tags=["urls"])
        reverse("memory")
        before = sorted(m for m in sys.modules if m.startswith("admin_panel.views."))
        match = resolve("/memory/")
        getattr(match.func, "csrf_exempt", False)
        after = sorted(m for m in sys.modules if m.startswith("admin_panel.views."))
        print(json.dumps([before, after]))
    """)
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "admin_panel.settings"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=180,
                          check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    before, after = json.loads(done.stdout.strip().splitlines()[-1])
    # Only the sign-in page's class-based view is named directly, so only its module is loaded.
    assert before == ["admin_panel.views.login"]
    assert "admin_panel.views.memory" in after

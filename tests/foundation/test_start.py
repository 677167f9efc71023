"""What a fresh ``serve`` does once to start faster (docs/performance.md, "The start, second
pass"): the collector paused by manage.py is back on after the warm-up, and the ASGI
application is built once."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import textwrap

import pytest

from admin_panel.management.commands import serve

pytestmark = pytest.mark.django_db


@pytest.fixture
def paused_collector():
    gc.disable()
    yield
    gc.unfreeze()
    gc.enable()


def test_it_turns_the_collector_back_on_with_the_start_s_objects_frozen(paused_collector):
    serve.warm_up()
    assert gc.isenabled()
    assert gc.get_freeze_count() > 1000


def test_it_turns_the_collector_back_on_when_the_warm_up_fails(paused_collector, monkeypatch, caplog):
    def broken(name):
        raise OSError("template folder gone")

    monkeypatch.setattr("django.template.loader.get_template", broken)
    serve.warm_up()
    assert gc.isenabled()
    assert "The start-up warm-up failed" in caplog.text


def _fresh_python(script: str, *argv: str) -> str:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "admin_panel.settings"}
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(script), *argv], capture_output=True, text=True,
                          env=env, timeout=180, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip().splitlines()[-1]


def test_it_builds_the_asgi_application_for_an_outside_server_on_first_use():
    built = json.loads(_fresh_python("""
        import json
        import django
        django.setup()
        import admin_panel.asgi as entry
        before = "application" in vars(entry)
        first = entry.application
        print(json.dumps([before, callable(first), first is entry.application]))
    """))
    assert built == [False, True, True]


@pytest.mark.parametrize(("command", "paused"), [("serve", True), ("check", False)])
def test_it_pauses_the_collector_for_serve_s_start_alone(command, paused):
    seen = json.loads(_fresh_python("""
        import gc, json, sys
        import django
        from django.core.management import BaseCommand
        seen = []
        BaseCommand.execute = lambda self, *args, **options: seen.append(gc.isenabled())
        sys.argv = ["manage.py", sys.argv[1]]
        import manage
        manage.main()
        print(json.dumps(seen))
    """, command))
    assert seen == [not paused]


def test_it_leaves_a_collector_it_did_not_pause_unfrozen():
    before = gc.get_freeze_count()
    serve.warm_up()
    assert gc.isenabled()
    assert gc.get_freeze_count() == before

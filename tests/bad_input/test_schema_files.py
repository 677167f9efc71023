"""User plugins whose ``config_schema.py`` is hostile or broken: raising at import, exiting,
looping forever, binding the wrong types, huge. Each is reported as a schema error (the API's
``schema_error``, a 409 for saves, the error in place of the form), within a time limit, and
the other providers keep working."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.bad_input.helpers import api_put, assert_refused, assert_unchanged, others_still_work, snapshot

pytestmark = pytest.mark.django_db

HEADER = "from plugins.memory.config_schema import KIND_TEXT, ProviderConfigSchema, ProviderField\n"
GOOD_TAIL = ('CONFIG_SCHEMA = ProviderConfigSchema(name="{name}", label="Bad", storage="json_file", '
             'storage_path="bad.json", fields=(ProviderField("url", "URL", kind=KIND_TEXT),))\n')
CASES = {
    "raises": (HEADER + "raise RuntimeError('the schema exploded')\n", "RuntimeError", "the schema exploded"),
    "exits": (HEADER + "import sys\nsys.exit(3)\n", "SystemExit", ""),
    "syntax_error": (HEADER + "CONFIG_SCHEMA = ProviderConfigSchema(\n", "SyntaxError", ""),
    "import_error": ("import no_such_module_anywhere\n", "ModuleNotFoundError", "no_such_module_anywhere"),
    "no_config_schema": (HEADER + "SOMETHING_ELSE = 1\n", "TypeError", "CONFIG_SCHEMA"),
    "config_schema_a_string": (HEADER + "CONFIG_SCHEMA = 'hello'\n", "TypeError", "str"),
    "fields_of_strings": (HEADER + 'CONFIG_SCHEMA = ProviderConfigSchema(name="{name}", label="Bad", '
                          'fields=("url", "token"))\n', "", ""),
    "wrong_name": (HEADER + GOOD_TAIL.replace("{name}", "someone_else"), "ValueError", "someone_else"),
    "bad_kind": (HEADER + 'CONFIG_SCHEMA = ProviderConfigSchema(name="{name}", label="Bad", '
                 'fields=(ProviderField("url", "URL", kind="colour"),))\n', "ValueError", "colour"),
    "recursion": (HEADER + "def f():\n    return f()\nf()\n", "RecursionError", ""),
    "not_utf8": (HEADER.encode() + b"X = '\xff'\n", "SyntaxError", ""),
}
NAME = "badplug"


def _install(home: Path, source: str | bytes, name: str = NAME) -> Path:
    plugin = home / "plugins" / name
    plugin.mkdir(parents=True, exist_ok=True)
    (plugin / "__init__.py").write_text("from agent import register_memory_provider\n")
    path = plugin / "config_schema.py"
    if isinstance(source, str):
        path.write_text(source.replace("{name}", name), encoding="utf-8")
    else:
        path.write_bytes(source)
    return path


@pytest.fixture(params=sorted(CASES))
def case(request, home):
    source, error_type, message = CASES[request.param]
    _install(home, source)
    return request.param, error_type, message


def test_it_reports_the_load_error_in_the_api(owner_client, home, case):
    _name, error_type, message = case

    listing = owner_client.get("/api/memory")
    config = owner_client.get(f"/api/memory/providers/{NAME}/config")

    row = next(r for r in listing.json()["providers"] if r["name"] == NAME)
    assert listing.status_code == 200 and config.status_code == 200
    assert row["status"] == "schema_error"
    error = config.json()["schema_error"]
    assert error["path"] == f"plugins/{NAME}/config_schema.py"
    if error_type:
        assert error["type"] == error_type
    assert message in error["message"]
    assert config.json()["fields"] == []


def test_it_refuses_a_save_with_409_and_writes_nothing(owner_client, home, case):
    before = snapshot(home)

    response = api_put(owner_client, f"/api/memory/providers/{NAME}/config", {"values": {"url": "http://x"}})
    activation = api_put(owner_client, "/api/memory/provider", {"provider": NAME})

    assert_refused(response, f"Config schema for '{NAME}' failed to load", statuses=(409,))
    assert "schema_error" in response.json()
    assert_refused(activation, "schema error", statuses=(400,))
    assert_unchanged(home, before)
    others_still_work(owner_client, home)


def test_it_shows_the_error_in_place_of_the_form(owner_client, home, case):
    _name, error_type, _message = case

    page = owner_client.get(f"/providers/{NAME}/")
    listing = owner_client.get("/providers/")

    assert page.status_code == 200 and listing.status_code == 200
    html = page.content.decode()
    assert "Fix the file and reload" in html
    assert error_type in html


def test_it_loads_the_file_again_once_it_is_fixed(owner_client, home):
    path = _install(home, CASES["raises"][0])
    assert owner_client.get(f"/api/memory/providers/{NAME}/config").json()["schema_error"]

    path.write_text(HEADER + GOOD_TAIL.replace("{name}", NAME) + "# fixed\n")

    payload = owner_client.get(f"/api/memory/providers/{NAME}/config").json()
    assert payload.get("schema_error") is None
    assert [f["key"] for f in payload["fields"]] == ["url"]


def test_it_reports_a_huge_schema_file_by_its_size(owner_client, home):
    padding = "# " + "x" * 98 + "\n"
    _install(home, HEADER + padding * 40_000 + GOOD_TAIL)  # about 4 MB

    config = owner_client.get(f"/api/memory/providers/{NAME}/config")
    response = api_put(owner_client, f"/api/memory/providers/{NAME}/config", {"values": {"url": "http://x"}})

    assert config.status_code == 200
    assert "larger than" in config.json()["schema_error"]["message"]
    assert_refused(response, "failed to load", statuses=(409,))


def test_it_stops_a_schema_that_loops_forever_within_the_load_time_limit(tmp_path):
    """A real server: the endless loop must not take the request (or the panel) down with it."""
    from tests.faults.panel import prepare_panel, serve

    home, data = tmp_path / "home", tmp_path / "data"
    token = prepare_panel(home=home, data_dir=data)
    _install(home, HEADER + "while True:\n    pass\n" + GOOD_TAIL)
    headers = {"Authorization": f"Bearer {token}"}

    def get(path: str, timeout: float) -> dict:
        request = urllib.request.Request(f"{base}{path}", headers=headers)
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return json.loads(answer.read())

    with serve(home=home, data_dir=data) as server:
        base = f"http://127.0.0.1:{server.port}"
        # Without the load time limit this request would never be answered (urlopen's timeout
        # then fails the test); how long the limit takes is not this test's business.
        config = get(f"/api/memory/providers/{NAME}/config", timeout=180)
        listing = get("/api/memory", timeout=180)
        other = get("/api/memory/providers/hindsight/config", timeout=180)

    assert config["schema_error"]["type"] == "TimeoutError"
    assert "took longer than" in config["schema_error"]["message"]
    assert next(r for r in listing["providers"] if r["name"] == NAME)["status"] == "schema_error"
    assert other["name"] == "hindsight" and other["fields"]

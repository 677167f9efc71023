"""No debug page or traceback ever reaches a browser, DEBUG is off unless asked for, and secret
values never reach a log line."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.test import Client

from admin_panel.logging_filters import RedactSecretsFilter
from tests.serving import child_env, running_server

pytestmark = pytest.mark.django_db

REPO = Path(__file__).resolve().parent.parent.parent
MARKER = "MARKER-secret-9f3b2c71"
TRACE_WORDS = ("Traceback", "RuntimeError", "File \"", "exploded-on-purpose", "django.", "site-packages")


def _debug_value(**env: str) -> str:
    script = "import django; django.setup(); from django.conf import settings; print(settings.DEBUG)"
    result = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=120,
                            env=child_env(**env))
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_it_runs_with_debug_off_unless_panel_debug_is_set(tmp_path):
    base = {"HERMES_HOME": str(tmp_path / "home"), "PANEL_DATA_DIR": str(tmp_path / "data")}
    environment = {k: v for k, v in child_env().items() if k != "PANEL_DEBUG"}

    assert "PANEL_DEBUG" not in environment
    assert _debug_value(**base, PANEL_DEBUG="") == "False"
    assert _debug_value(**base, PANEL_DEBUG="0") == "False"
    assert _debug_value(**base, PANEL_DEBUG="1") == "True"


def test_it_renders_the_plain_500_page_when_a_page_fails(owner, home, monkeypatch):
    from admin_panel.selectors import audit as audit_selectors

    def explode(**_kwargs):
        raise RuntimeError("exploded-on-purpose " + MARKER)

    monkeypatch.setattr(audit_selectors, "filtered_entries", explode)
    client = Client(raise_request_exception=False)
    client.force_login(owner)

    response = client.get("/audit/")

    body = response.content.decode()
    assert response.status_code == 500
    assert "Something went wrong" in body
    assert MARKER not in body
    for word in TRACE_WORDS:
        assert word not in body


def test_it_answers_a_failing_api_call_with_json_and_no_traceback(owner, home, monkeypatch):
    import provider_schemas

    def explode(**_kwargs):
        raise RuntimeError("exploded-on-purpose " + MARKER)

    monkeypatch.setattr(provider_schemas, "provider_list_payload", explode)
    client = Client(raise_request_exception=False)
    client.force_login(owner)

    response = client.get("/api/memory")

    assert response.status_code == 500
    assert response.json() == {"detail": "Internal server error"}


def test_it_never_serves_a_debug_page_from_a_real_server(tmp_path):
    with running_server(hermes_home=tmp_path / "home", data_dir=tmp_path / "data") as server:
        server.wait_until_listening()
        base = f"http://127.0.0.1:{server.port}"
        answers = []
        for path, headers in (("/no-such-page/", {}), ("/accounts/login/", {"Host": "evil.example"}),
                              ("/static/admin_panel/css/missing.css", {}), ("/api/memory", {})):
            request = urllib.request.Request(base + path, headers=headers)
            try:
                with urllib.request.urlopen(request) as response:
                    answers.append((response.status, response.read().decode()))
            except urllib.error.HTTPError as error:
                answers.append((error.code, error.read().decode()))

    assert [status for status, _body in answers] == [404, 400, 404, 401]
    for _status, body in answers:
        for word in ("Traceback", "DEBUG = True", "You're seeing this error", "technical_500", "URLconf"):
            assert word not in body


# --- logs --------------------------------------------------------------------------------------------


def test_it_keeps_secret_values_out_of_every_log_record_during_saves(owner_client, owner, home, caplog):
    from admin_panel.models import ApiToken, token_digest

    token = "tok-" + MARKER
    ApiToken.objects.create(name="t", token_digest=token_digest(token), user=owner)
    (home / "honcho.json").write_text("{}")  # keep Honcho's file (and its lock) inside the test home
    api = Client(HTTP_AUTHORIZATION=f"Bearer {token}", raise_request_exception=False)
    caplog.set_level(logging.DEBUG)

    api.put("/api/memory/providers/hindsight/config", json.dumps({"values": {"api_key": MARKER}}),
            content_type="application/json")
    api.put("/api/memory/providers/hindsight/config",
            json.dumps({"values": {"api_key": MARKER + "\nsecond line", "recall_budget": "ultra"}}),
            content_type="application/json")
    api.put("/api/memory/providers/honcho/config", json.dumps({"values": {"apiKey": MARKER}, "clear": ["apiKey"]}),
            content_type="application/json")
    Client(HTTP_X_HERMES_SESSION_TOKEN="wrong-" + MARKER).get("/api/memory")
    owner_client.post("/providers/hindsight/review/", {"api_key": MARKER, "api_key__action": "replace"})

    logged = "\n".join(f"{r.name} {r.getMessage()} {r.exc_text or ''}" for r in caplog.records)
    assert MARKER not in logged
    assert MARKER not in "".join(str(r.args) for r in caplog.records)


def test_it_redacts_tokens_that_reach_a_log_line():
    record = logging.LogRecord("django.request", logging.WARNING, __file__, 1,
                               "Bad request %s with Authorization: Bearer %s and X-Hermes-Session-Token: %s",
                               ("/accounts/first-run/abcDEF123/", MARKER, MARKER), None)

    RedactSecretsFilter().filter(record)

    assert MARKER not in record.getMessage()
    assert "abcDEF123" not in record.getMessage()


def test_it_keeps_secrets_out_of_a_real_servers_output(tmp_path):
    from tests.faults.panel import prepare_panel

    home, data = tmp_path / "home", tmp_path / "data"
    token = prepare_panel(home=home, data_dir=data)
    with running_server(hermes_home=home, data_dir=data) as server:
        server.wait_until_listening()
        base = f"http://127.0.0.1:{server.port}"
        bodies = [
            {"values": {"api_key": MARKER}},
            {"values": {"api_key": MARKER + "\u0000", "bank_id": "x\u0000y"}},
            {"values": {"api_key": MARKER}, "clear": ["api_key"]},
        ]
        for body in bodies:
            request = urllib.request.Request(f"{base}/api/memory/providers/hindsight/config", method="PUT",
                                             data=json.dumps(body).encode(),
                                             headers={"Authorization": f"Bearer {token}",
                                                      "Content-Type": "application/json"})
            try:
                urllib.request.urlopen(request).close()
            except urllib.error.HTTPError as error:
                error.close()
        for header in ({"Authorization": f"Bearer {MARKER}"}, {"X-Hermes-Session-Token": MARKER}):
            try:
                urllib.request.urlopen(urllib.request.Request(f"{base}/api/memory", headers=header)).close()
            except urllib.error.HTTPError as error:
                error.close()
        output = server.output

    assert MARKER not in output
    assert token not in output

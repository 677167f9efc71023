"""The JSON API of docs/api.md, against real files in a temporary agent home."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import yaml
from django.core.management import call_command

from admin_panel.models import AuditEntry, SecretWrite
from tests.providers_ui.helpers import snapshot_files, user_plugin, write

pytestmark = pytest.mark.django_db

CONFIG = "/api/memory/providers/{}/config"


def put(client, url: str, body, **extra):
    data = body if isinstance(body, str) else json.dumps(body)
    return client.put(url, data=data, content_type="application/json", **extra)


@pytest.fixture
def token(owner) -> str:
    out = io.StringIO()
    call_command("api_token", "create", "--user", owner.username, stdout=out, stderr=io.StringIO())
    return out.getvalue().strip()


# --- listing ----------------------------------------------------------------------------------------


def test_it_lists_every_provider_with_status_active_and_shadowed_plugins(owner_client, home):
    write(home / "config.yaml", "memory:\n  provider: gone\n")
    user_plugin(home, "honcho", None)  # shadowed by the bundled one
    user_plugin(home, "broken", "CONFIG_SCHEMA = (\n")

    body = owner_client.get("/api/memory").json()

    rows = {row["name"]: row for row in body["providers"]}
    assert body["active"] == "gone"
    assert rows["gone"]["status"] == "missing"
    assert rows["hindsight"]["status"] == "needs_config"
    assert rows["hindsight"]["missing_secrets"] == [
        {"key": "api_key", "label": "API key", "env_key": "HINDSIGHT_API_KEY"}
    ]
    assert rows["holographic"]["status"] == "ready"
    assert rows["broken"]["status"] == "schema_error"
    assert rows["broken"]["schema_error"]["type"] == "SyntaxError"
    assert body["shadowed"] == [{"name": "honcho", "path": "plugins/honcho", "shadowed_by": "bundled"}]
    assert body["builtin_files"] == {"memory": 0, "user": 0}


# --- the name guard -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "detail"),
    [
        ("%2E%2E", "Unknown memory provider: .."),
        (".hindsight", "Unknown memory provider: .hindsight"),
        ("hind.sight", "Unknown memory provider: hind.sight"),
        ("%20hindsight", "Unknown memory provider:  hindsight"),
    ],
)
def test_it_answers_404_for_invalid_names_before_touching_any_path(owner_client, home, monkeypatch, path, detail):
    def no_disk(*args, **kwargs):
        raise AssertionError("the name guard must run before any file access")

    monkeypatch.setattr("admin_panel.views.api.current_home", no_disk)
    monkeypatch.setattr("provider_schemas.loading.discovery.get_provider", no_disk)
    for response in (owner_client.get(CONFIG.format(path)), put(owner_client, CONFIG.format(path), {"values": {}})):
        assert response.status_code == 404
        assert response.json() == {"detail": detail}


def test_it_answers_json_404_for_a_name_with_a_slash(owner_client, home):
    response = owner_client.get("/api/memory/providers/..%2F..%2Fetc/config")

    assert response.status_code == 404
    assert response.json() == {"detail": "Not Found"}


# --- GET config --------------------------------------------------------------------------------------


def test_it_gets_the_declared_payload_in_the_spec_key_order(owner_client, home):
    write(home / "hindsight" / "config.json", json.dumps({"mode": "local_external", "budget": "high"}))
    write(home / ".env", "HINDSIGHT_API_KEY=hs-not-shown-111\n")

    response = owner_client.get(CONFIG.format("hindsight") + "?surface=declared")

    body = response.json()
    assert response.status_code == 200
    assert "hs-not-shown-111" not in response.content.decode()
    fields = {f["key"]: f for f in body["fields"]}
    assert list(body["fields"][0])[:11] == [
        "key", "label", "kind", "description", "info", "placeholder", "inline", "group", "options", "value", "is_set",
    ]
    assert fields["mode"]["value"] == "local_external" and fields["mode"]["source"] == "stored"
    assert fields["recall_budget"]["source"] == "alias" and fields["recall_budget"]["stored_key"] == "budget"
    assert fields["api_key"]["value"] == "" and fields["api_key"]["is_set"] is True
    assert fields["api_key"]["stores"] == ["env_file"]
    assert "llm_provider" not in fields
    hidden = {"key": "llm_provider", "label": "LLM provider", "when": {"mode": "local_embedded"}, "is_set": False}
    assert hidden in body["hidden_fields"]


def test_it_gets_the_empty_payload_for_names_without_a_schema_and_reports_schema_errors(owner_client, home):
    user_plugin(home, "mytool", "from plugins.memory.config_schema import ProviderConfigSchema\nCONFIG_SCHEMA = 5\n")

    assert owner_client.get(CONFIG.format("nothing-here")).json() == {
        "name": "nothing-here", "label": "nothing-here", "docs_url": "", "fields": []
    }
    broken = owner_client.get(CONFIG.format("mytool")).json()
    assert broken["fields"] == []
    assert broken["schema_error"]["type"] == "TypeError"
    assert broken["schema_error"]["path"] == "plugins/mytool/config_schema.py"


# --- PUT config --------------------------------------------------------------------------------------


def test_it_saves_every_kind_natively_and_never_activates(owner_client, home):
    response = put(
        owner_client,
        CONFIG.format("hindsight"),
        {
            "values": {
                "mode": "local_external",  # select
                "api_url": "  http://127.0.0.1:8888  ",  # text, stripped
                "timeout": "12.0",  # number: integral stays an int
                "recall_max_tokens": 2048,
                "auto_recall": "off",  # bool
                "recall_tags": ["project:hermes"],  # json
                "api_key": "hs-api-secret-1",  # secret
                "not_a_field": 1,
                "llm_model": "hidden-now",
            }
        },
    )

    assert response.status_code == 200, response.content
    body = response.json()
    assert body["ok"] is True and body["active"] == ""
    assert sorted(body["written"]) == [".env", "hindsight/config.json"]
    assert body["ignored"] == {"unknown": ["not_a_field"], "hidden": ["llm_model"]}
    stored = json.loads((home / "hindsight" / "config.json").read_text())
    assert stored == {
        "mode": "local_external",
        "api_url": "http://127.0.0.1:8888",
        "timeout": 12,
        "recall_max_tokens": 2048,
        "auto_recall": False,
        "recall_tags": ["project:hermes"],
    }
    assert isinstance(stored["timeout"], int)
    assert "HINDSIGHT_API_KEY=hs-api-secret-1" in (home / ".env").read_text()
    assert not (home / "config.yaml").exists()  # the declared PUT never activates
    assert SecretWrite.objects.filter(variable="HINDSIGHT_API_KEY").exists()
    entry = AuditEntry.objects.get(kind=AuditEntry.Kind.PROVIDER_SETTINGS)
    assert entry.channel == "api"
    assert {"key": "api_key", "secret": "set", "store": ".env"} in entry.details["changes"]
    assert "hs-api-secret-1" not in json.dumps(entry.details)


def test_it_rejects_invalid_values_of_every_kind_at_once_and_writes_nothing(owner_client, home):
    write(home / ".env", "# keep me\nOTHER=1\n")
    write(home / "hindsight" / "config.json", '{"mode": "cloud"}')
    before = snapshot_files(home)

    response = put(
        owner_client,
        CONFIG.format("hindsight"),
        {
            "values": {
                "api_key": "hs-new-secret-2",
                "recall_budget": "ultra",
                "timeout": "12x",
                "recall_max_tokens": "inf",
                "auto_retain": "maybe",
                "recall_tags": "[1,",
                "bank_id": "a\u0000b",
            },
            "clear": ["bank_mission"],
        },
    )

    assert response.status_code == 400
    errors = response.json()["errors"]
    assert errors == {
        "timeout": "Invalid number for 'timeout'",
        "bank_id": "'bank_id' must not contain line breaks or NUL characters",
        "recall_budget": "Invalid value for 'recall_budget'",
        "recall_max_tokens": "Invalid number for 'recall_max_tokens'",
        "recall_tags": "Invalid JSON for 'recall_tags'",
        "auto_retain": "Invalid boolean for 'auto_retain'",
    }
    assert response.json()["detail"] == "Invalid number for 'timeout'"
    assert snapshot_files(home) == before
    assert not AuditEntry.objects.exists()


def test_it_clears_a_secret_only_when_asked_and_keeps_it_on_blank(owner_client, home):
    write(home / ".env", "HINDSIGHT_API_KEY=hs-old\nOTHER=1\n")
    write(home / "hindsight" / "config.json", '{"api_url": "http://x"}')

    kept = put(owner_client, CONFIG.format("hindsight"), {"values": {"api_key": "   "}})
    assert kept.json()["written"] == []
    assert "HINDSIGHT_API_KEY=hs-old" in (home / ".env").read_text()

    cleared = put(owner_client, CONFIG.format("hindsight"), {"values": {}, "clear": ["api_key", "api_url"]})

    assert cleared.status_code == 200
    assert (home / ".env").read_text() == "OTHER=1\n"
    assert json.loads((home / "hindsight" / "config.json").read_text()) == {}
    api_key = next(f for f in owner_client.get(CONFIG.format("hindsight")).json()["fields"] if f["key"] == "api_key")
    assert api_key["is_set"] is False and api_key["stores"] == []


def test_it_refuses_to_overwrite_an_unparseable_file(owner_client, home):
    write(home / "mem0.json", "{bad json")

    response = put(owner_client, CONFIG.format("mem0"), {"values": {"agent_id": "a1"}})

    assert response.status_code == 409
    assert response.json()["file"] == "mem0.json"
    assert response.json()["detail"].startswith("Cannot save: mem0.json is not valid JSON (line 1, column 2")
    assert (home / "mem0.json").read_text() == "{bad json"


def test_it_answers_404_for_a_put_without_schema_and_409_for_a_broken_schema(owner_client, home):
    user_plugin(home, "mytool", "CONFIG_SCHEMA = undefined_name\n")

    assert put(owner_client, CONFIG.format("nothing"), {"values": {}}).status_code == 404
    broken = put(owner_client, CONFIG.format("mytool"), {"values": {}})
    assert broken.status_code == 409
    assert broken.json()["detail"].startswith("Config schema for 'mytool' failed to load: NameError")
    assert broken.json()["schema_error"]["line"] == 1


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        ("{", "The request body is not valid JSON: expecting property name enclosed in double quotes at line 1, "
              "column 2."),
        ({"values": ["mode", "cloud"]}, "'values' must be an object"),
        ({"values": {}, "clear": "api_key"}, "'clear' must be a list of strings"),
    ],
)
def test_it_answers_422_for_malformed_bodies(owner_client, home, body, detail):
    response = put(owner_client, CONFIG.format("hindsight"), body)

    assert response.status_code == 422
    assert response.json() == {"detail": detail}


# --- activation ---------------------------------------------------------------------------------------


def test_it_activates_only_through_the_activation_endpoint_and_only_when_ready(owner_client, home):
    write(home / "config.yaml", "# my comment\nmodel: x\nmemory:\n  memory_enabled: true\n")

    refused = put(owner_client, "/api/memory/provider", {"provider": "hindsight"})
    assert refused.status_code == 400
    assert refused.json()["missing_secrets"] == [{"key": "api_key", "label": "API key", "env_key": "HINDSIGHT_API_KEY"}]

    assert put(owner_client, CONFIG.format("hindsight"), {"values": {"api_key": "hs-3"}}).status_code == 200
    assert "provider" not in yaml.safe_load((home / "config.yaml").read_text())["memory"]

    activated = put(owner_client, "/api/memory/provider", {"provider": "hindsight"})
    assert activated.json() == {"ok": True, "active": "hindsight"}
    text = (home / "config.yaml").read_text()
    assert yaml.safe_load(text)["memory"] == {"memory_enabled": True, "provider": "hindsight"}
    assert "# my comment" in text and "model: x" in text

    assert put(owner_client, "/api/memory/provider", {"provider": "Built-In"}).json() == {"ok": True, "active": ""}
    assert put(owner_client, "/api/memory/provider", {"provider": "nope"}).json() == {
        "detail": "Unknown memory provider 'nope'."
    }
    kinds = list(AuditEntry.objects.filter(kind=AuditEntry.Kind.ACTIVATION).values_list("details", flat=True))
    assert {"old": "", "new": "hindsight"} in kinds and {"old": "hindsight", "new": ""} in kinds


# --- authentication and profiles ------------------------------------------------------------------------


def test_it_accepts_the_token_header_and_bearer_and_refuses_everything_else(client, home, token):
    assert client.get("/api/memory").status_code == 401
    assert client.get("/api/memory", HTTP_X_HERMES_SESSION_TOKEN=token).status_code == 200
    response = put(client, "/api/memory/provider", {"provider": "holographic"}, HTTP_AUTHORIZATION=f"Bearer {token}")
    assert response.json() == {"ok": True, "active": "holographic"}
    assert client.get("/api/memory", HTTP_X_HERMES_SESSION_TOKEN="wrong").status_code == 401


def test_it_requires_the_csrf_token_for_session_writes(owner, home):
    from django.test import Client

    browser = Client(enforce_csrf_checks=True)
    browser.force_login(owner)

    assert browser.get("/api/memory").status_code == 200
    refused = put(browser, CONFIG.format("hindsight"), {"values": {"mode": "cloud"}})
    assert refused.status_code == 403
    assert not (home / "hindsight").exists()


def test_it_lets_viewers_read_but_not_write(viewer_client, home):
    assert viewer_client.get(CONFIG.format("hindsight")).status_code == 200
    assert put(viewer_client, CONFIG.format("hindsight"), {"values": {"mode": "cloud"}}).status_code == 403


def test_it_works_on_another_profile_and_checks_the_profile_name(owner_client, home, settings):
    root = Path(settings.HERMES_HOME)
    (root / "profiles" / "work").mkdir(parents=True)

    saved = put(owner_client, CONFIG.format("mem0") + "?profile=work", {"values": {"agent_id": "w1"}})

    assert saved.status_code == 200
    assert json.loads((root / "profiles" / "work" / "mem0.json").read_text()) == {"agent_id": "w1"}
    assert not (root / "mem0.json").exists()
    bad = owner_client.get(CONFIG.format("mem0") + "?profile=Bad!")
    assert bad.status_code == 400
    assert bad.json()["detail"] == "Invalid profile name 'Bad!'. Must match [a-z0-9][a-z0-9_-]{0,63}"
    missing = owner_client.get(CONFIG.format("mem0") + "?profile=nope")
    assert missing.status_code == 404 and missing.json() == {"detail": "Profile 'nope' does not exist."}


def test_it_refuses_a_reserved_profile_name_even_when_its_folder_exists(owner_client, home, settings):
    root = Path(settings.HERMES_HOME)
    (root / "profiles" / "sudo").mkdir(parents=True)

    read = owner_client.get(CONFIG.format("mem0") + "?profile=sudo")
    written = put(owner_client, CONFIG.format("mem0") + "?profile=sudo", {"values": {"agent_id": "s"}})

    reserved = (
        "Profile name 'sudo' is reserved — it collides with either the Hermes installation itself or a common"
        " system binary.  Pick a different name."
    )
    assert read.status_code == 400 and read.json() == {"detail": reserved}
    assert written.status_code == 400 and written.json() == {"detail": reserved}
    assert owner_client.get("/api/memory?profile=hermes").status_code == 400
    assert not (root / "profiles" / "sudo" / "mem0.json").exists()


# --- keyring unavailable, config.yaml unparseable -------------------------------------------------------


@pytest.fixture
def locked_keyring(home):
    import keyring

    from admin_panel.services.providers import set_secret_store
    from tests.keyrings import DictKeyring, LockedKeyring

    previous = keyring.get_keyring()
    keyring.set_keyring(DictKeyring())
    set_secret_store(home=home, store="keyring")  # chosen while usable, locked since
    keyring.set_keyring(LockedKeyring())
    yield
    keyring.set_keyring(previous)


def test_it_refuses_saves_with_503_while_the_selected_keyring_is_unavailable(owner_client, home, locked_keyring):
    write(home / ".env", "OTHER=1\n")
    before = snapshot_files(home)

    got = owner_client.get(CONFIG.format("hindsight"))
    saved = put(owner_client, CONFIG.format("hindsight"), {"values": {"api_key": "hs-9", "mode": "cloud"}})
    page = owner_client.get("/providers/hindsight/")

    # Reading still works, with a warning: the keyring's secrets cannot be seen.
    assert got.status_code == 200
    assert "keyring_unavailable" in [w["code"] for w in got.json()["warnings"]]
    assert saved.status_code == 503 and saved.json()["detail"].startswith("Secret store unavailable:")
    assert page.status_code == 200 and "KeyringLocked" in page.content.decode()
    assert snapshot_files(home) == before


def test_it_refuses_activation_while_config_yaml_does_not_parse(owner_client, home):
    write(home / "config.yaml", "memory: [oops\n")

    response = put(owner_client, "/api/memory/provider", {"provider": "holographic"})

    assert response.status_code == 409
    assert response.json()["file"] == "config.yaml"
    assert (home / "config.yaml").read_text() == "memory: [oops\n"

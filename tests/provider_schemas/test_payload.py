"""The JSON payloads of docs/api.md, key order included."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from provider_schemas import (
    BodyError,
    ValidationFailed,
    no_schema_payload,
    parse_put_body,
    provider_config_payload,
    provider_list_payload,
    read_provider,
    save_provider,
    save_result_payload,
    validation_error_payload,
)

from .conftest import install_plugin

FIELD_KEYS = [
    "key", "label", "kind", "description", "info", "placeholder", "inline", "group", "options", "value", "is_set",
    "default", "source", "stored_key", "fallback_location", "location", "env_key", "required", "when", "warnings",
]  # fmt: skip
TOP_KEYS = ["name", "label", "docs_url", "origin", "path", "active", "storage", "missing_secrets", "fields",
            "hidden_fields", "warnings"]  # fmt: skip


def test_it_builds_the_b4_payload_in_the_specified_key_order(agent_home: Path, plugin) -> None:
    plugin("jsonprov")
    (agent_home / "jsonprov.json").write_text(json.dumps({"old_budget": "high"}), encoding="utf-8")
    (agent_home / ".env").write_text("JSONPROV_API_KEY=hidden-value\n", encoding="utf-8")
    payload = provider_config_payload(
        read_provider(home=agent_home, name="jsonprov", set_at={"JSONPROV_API_KEY": "2026-01-15T09:30:00Z"})
    )
    assert list(payload) == TOP_KEYS
    assert payload["origin"] == "user" and payload["path"] == "plugins/jsonprov/config_schema.py"
    by_key = {f["key"]: f for f in payload["fields"]}
    assert list(by_key["budget"]) == FIELD_KEYS
    assert list(by_key["api_key"]) == [*FIELD_KEYS, "stores", "set_at"]
    assert (by_key["budget"]["value"], by_key["budget"]["source"], by_key["budget"]["stored_key"]) == (
        "high",
        "alias",
        "old_budget",
    )
    assert by_key["api_key"]["value"] == "" and by_key["api_key"]["stores"] == ["env_file"]
    assert by_key["api_key"]["set_at"] == "2026-01-15T09:30:00Z"
    assert "url" not in by_key
    assert payload["hidden_fields"] == [{"key": "url", "label": "URL", "when": {"mode": "local"}, "is_set": False}]
    assert payload["storage"] == {"kind": "json_file", "file": "jsonprov.json", "exists": True, "error": None}
    assert "hidden-value" not in json.dumps(payload)


def test_it_adds_the_honcho_host_and_storage_path_for_yaml(agent_home: Path, plugin) -> None:
    plugin("hostprov")
    plugin("yamlprov")
    host = provider_config_payload(read_provider(home=agent_home, name="hostprov"))
    assert list(host)[-1] == "host"
    assert host["host"] == {"key": "hermes", "reason": "profile", "file": "~/.honcho/config.json"}
    workspace = next(f for f in host["fields"] if f["key"] == "workspace")
    assert workspace["location"] == {
        "store": "honcho_host_block",
        "file": "~/.honcho/config.json",
        "path": "hosts.hermes.workspace",
    }
    yaml_payload = provider_config_payload(read_provider(home=agent_home, name="yamlprov"))
    assert yaml_payload["storage"] == {
        "kind": "config_yaml",
        "file": "config.yaml",
        "path": "plugins.yaml-prov",
        "exists": False,
        "error": None,
    }
    auto = next(f for f in yaml_payload["fields"] if f["key"] == "auto")
    assert auto["location"] == {"store": "config_yaml", "file": "config.yaml", "path": "plugins.yaml-prov.auto"}


def test_it_answers_no_schema_and_schema_errors_with_the_empty_payload(agent_home: Path) -> None:
    assert provider_config_payload(read_provider(home=agent_home, name="builtin")) == no_schema_payload("builtin")
    install_plugin(agent_home, "broken", source="x = (\n")
    payload = provider_config_payload(read_provider(home=agent_home, name="broken"))
    assert list(payload) == ["name", "label", "docs_url", "fields", "schema_error"]
    assert (
        payload["schema_error"]["type"] == "SyntaxError"
        and payload["schema_error"]["path"] == "plugins/broken/config_schema.py"
    )


def test_it_builds_the_b3_list_with_status_missing_rows_and_shadowed_plugins(agent_home: Path, plugin) -> None:
    plugin("jsonprov")
    install_plugin(agent_home, "honcho", source="CONFIG_SCHEMA = None\n")
    (agent_home / "memories").mkdir()
    (agent_home / "memories" / "MEMORY.md").write_text("x" * 12, encoding="utf-8")
    (agent_home / "config.yaml").write_text("memory:\n  provider: gone\n", encoding="utf-8")
    payload = provider_list_payload(home=agent_home)
    assert list(payload) == ["active", "providers", "shadowed", "builtin_files"]
    assert payload["active"] == "gone"
    rows = {r["name"]: r for r in payload["providers"]}
    assert [r["name"] for r in payload["providers"]] == sorted(rows)
    assert "builtin" not in rows
    assert list(rows["jsonprov"]) == [
        "name", "label", "description", "origin", "path", "available", "configured", "status", "active",
        "missing_secrets", "schema_error", "setup",
    ]  # fmt: skip
    assert (rows["jsonprov"]["status"], rows["jsonprov"]["available"], rows["jsonprov"]["path"]) == (
        "needs_config",
        False,
        "plugins/jsonprov",
    )
    assert rows["holographic"]["status"] == "ready" and rows["holographic"]["setup"]["dependencies_installed"] is None
    assert rows["gone"]["status"] == "missing" and rows["gone"]["description"] == "Configured provider was not found."
    assert payload["shadowed"] == [{"name": "honcho", "path": "plugins/honcho", "shadowed_by": "bundled"}]
    assert payload["builtin_files"] == {"memory": 12, "user": 0}


@pytest.mark.parametrize(
    ("body", "text"),
    [
        ([1], "Request body must be a JSON object"),
        ({"values": ["mode", "cloud"]}, "'values' must be an object"),
        ({"clear": "api_key"}, "'clear' must be a list of strings"),
        ({"clear": [1]}, "'clear' must be a list of strings"),
    ],
)
def test_it_rejects_malformed_bodies_with_the_422_text(body: object, text: str) -> None:
    with pytest.raises(BodyError) as caught:
        parse_put_body(body)
    assert caught.value.text == text


def test_it_parses_a_body_with_defaults() -> None:
    assert parse_put_body({}) == ({}, [])
    assert parse_put_body({"values": {"a": None}, "clear": ["b"]}) == ({"a": None}, ["b"])


def test_it_builds_the_b5_bodies(agent_home: Path, plugin) -> None:
    plugin("jsonprov")
    result = save_provider(home=agent_home, name="jsonprov", values={"note": "n", "x": 1})
    assert save_result_payload(result) == {
        "ok": True,
        "written": ["jsonprov.json"],
        "ignored": {"unknown": ["x"], "hidden": []},
        "active": "",
    }
    with pytest.raises(ValidationFailed) as caught:
        save_provider(home=agent_home, name="jsonprov", values={"enabled": "maybe", "limit": "x"})
    assert validation_error_payload(caught.value) == {
        "detail": "Invalid boolean for 'enabled'",
        "errors": {"enabled": "Invalid boolean for 'enabled'", "limit": "Invalid number for 'limit'"},
    }

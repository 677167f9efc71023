"""Reading a provider: precedence and sources, is_set, when, requirements, warnings (docs/agent_formats.md §Reading
provider values, §Provider secrets)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from provider_schemas import UnknownProvider, read_provider


def fields(state) -> dict:
    return {f.key: f for f in state.fields}


def write_json(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


def test_it_shows_defaults_on_a_fresh_home_without_calling_them_set(agent_home: Path, plugin) -> None:
    plugin("jsonprov")
    state = read_provider(home=agent_home, name="jsonprov")
    f = fields(state)
    assert (f["mode"].value, f["mode"].source, f["mode"].is_set) == ("cloud", "default", False)
    assert (f["enabled"].value, f["limit"].value, f["tags"].value) == ("true", "10", "")
    assert state.storage.as_dict() == {"kind": "json_file", "file": "jsonprov.json", "exists": False, "error": None}
    assert f["mode"].location == {"store": "json_file", "file": "jsonprov.json", "key": "mode"}
    assert f["api_key"].location == {"store": "secret", "variable": "JSONPROV_API_KEY"}


def test_it_resolves_env_override_before_stored_before_alias_before_env_fallback_before_default(
    agent_home: Path, plugin
) -> None:
    plugin("jsonprov")
    write_json(agent_home / "jsonprov.json", {"mode": "local", "limit": 5, "old_budget": "high", "enabled": False})
    (agent_home / ".env").write_text("JSONPROV_LIMIT=50\nJSONPROV_URL=http://fallback\n", encoding="utf-8")
    f = fields(read_provider(home=agent_home, name="jsonprov"))
    assert (f["limit"].value, f["limit"].source, f["limit"].is_set) == ("50", "env_override", True)
    assert f["limit"].source_badge == "overridden by .env JSONPROV_LIMIT"
    assert [w.code for w in f["limit"].warnings] == ["env_override_shadows_value"]
    assert (f["mode"].value, f["mode"].source, f["mode"].stored_key) == ("local", "stored", "mode")
    assert (f["budget"].value, f["budget"].source, f["budget"].stored_key) == ("high", "alias", "old_budget")
    assert f["budget"].source_badge == "legacy key old_budget"
    assert (f["url"].value, f["url"].source, f["url"].is_set) == ("http://fallback", "env_fallback", False)
    assert (f["enabled"].value, f["enabled"].source) == ("false", "stored")
    assert (f["note"].source, f["note"].is_set) == ("default", False)


def test_it_counts_a_stored_false_zero_or_empty_string_as_a_value(agent_home: Path, plugin) -> None:
    plugin("jsonprov")
    write_json(agent_home / "jsonprov.json", {"limit": 0, "note": "", "enabled": False, "tags": None})
    f = fields(read_provider(home=agent_home, name="jsonprov"))
    assert (f["limit"].value, f["limit"].is_set) == ("0", True)
    assert (f["note"].value, f["note"].is_set) == ("", True)
    assert f["enabled"].is_set
    assert not f["tags"].is_set  # null is not a value


def test_it_reads_seed_env_only_while_no_storage_file_exists(agent_home: Path, plugin) -> None:
    plugin("jsonprov")
    (agent_home / ".env").write_text("JSONPROV_MODE=local\n", encoding="utf-8")
    state = read_provider(home=agent_home, name="jsonprov")
    assert (fields(state)["mode"].value, fields(state)["mode"].source) == ("local", "seed_env")
    assert "seed_env_will_be_frozen" in [w.code for w in state.warnings]
    write_json(agent_home / "jsonprov.json", {})
    mode = fields(read_provider(home=agent_home, name="jsonprov"))["mode"]
    assert (mode.value, mode.source) == ("cloud", "default")


def test_it_reads_a_storage_fallback_while_the_primary_file_is_absent(
    agent_home: Path, user_home: Path, plugin
) -> None:
    plugin("jsonprov")
    write_json(user_home / ".jsonprov" / "legacy.json", {"mode": "local", "apiKey": "file-secret"})
    (agent_home / ".env").write_text("JSONPROV_MODE=cloud\n", encoding="utf-8")
    state = read_provider(home=agent_home, name="jsonprov")
    f = fields(state)
    assert (f["mode"].value, f["mode"].source, f["mode"].fallback_location) == (
        "local",
        "stored",
        "~/.jsonprov/legacy.json",
    )
    assert f["mode"].is_set
    assert f["api_key"].is_set and f["api_key"].stores == ["file:~/.jsonprov/legacy.json#apiKey"]
    assert "legacy_file_will_be_hidden" in [w.code for w in state.warnings]
    write_json(agent_home / "jsonprov.json", {"budget": "low"})
    mode = fields(read_provider(home=agent_home, name="jsonprov"))["mode"]
    assert (mode.value, mode.fallback_location) == ("cloud", None)


def test_it_keeps_a_stored_select_value_outside_the_options_as_a_disabled_option(agent_home: Path, plugin) -> None:
    plugin("jsonprov")
    write_json(agent_home / "jsonprov.json", {"budget": "ultra"})
    budget = fields(read_provider(home=agent_home, name="jsonprov"))["budget"]
    assert budget.value == "ultra"
    assert budget.options[-1] == {
        "value": "ultra",
        "label": "ultra",
        "description": "Stored value not offered by this schema",
        "disabled": True,
    }


def test_it_evaluates_when_on_effective_values_from_any_source(agent_home: Path, plugin) -> None:
    plugin("jsonprov")
    state = read_provider(home=agent_home, name="jsonprov")
    assert [f.key for f in state.hidden_fields] == ["url"]
    assert state.hidden_summary() == [{"key": "url", "label": "URL", "when": {"mode": "local"}, "is_set": False}]
    (agent_home / ".env").write_text("JSONPROV_MODE=local\n", encoding="utf-8")  # a seed_env value counts too
    assert read_provider(home=agent_home, name="jsonprov").hidden_fields == []


def test_it_requires_a_secret_only_while_visible_and_its_condition_holds(agent_home: Path, plugin) -> None:
    plugin("jsonprov")
    state = read_provider(home=agent_home, name="jsonprov")
    assert state.status == "needs_config"
    assert state.missing_secrets == [{"key": "api_key", "label": "API key", "env_key": "JSONPROV_API_KEY"}]
    write_json(agent_home / "jsonprov.json", {"mode": "local"})
    state = read_provider(home=agent_home, name="jsonprov")
    assert (state.status, state.missing_secrets, fields(state)["api_key"].required) == ("ready", [], False)


def test_it_waives_a_requirement_while_a_required_unless_field_has_a_value(agent_home: Path, plugin) -> None:
    plugin("hostprov")
    assert read_provider(home=agent_home, name="hostprov").status == "needs_config"
    (agent_home / ".env").write_text("HOSTPROV_BASE_URL=http://127.0.0.1:7777\n", encoding="utf-8")
    assert read_provider(home=agent_home, name="hostprov").status == "ready"


def test_it_reports_where_a_secret_is_set_without_its_value(agent_home: Path, plugin, dict_keyring) -> None:
    plugin("jsonprov")
    (agent_home / ".env").write_text("JSONPROV_API_KEY=env-secret-1\n", encoding="utf-8")
    write_json(agent_home / "jsonprov.json", {"apiKey": "file-secret-2"})
    from provider_schemas import keyring_service

    dict_keyring.set_password(keyring_service(agent_home), "JSONPROV_API_KEY", "ring-secret-3")
    state = read_provider(
        home=agent_home, name="jsonprov", secret_store="keyring", set_at={"JSONPROV_API_KEY": "2026-01-15T09:30:00Z"}
    )
    key = fields(state)["api_key"]
    assert key.value == "" and key.is_set and key.source is None
    assert key.stores == ["env_file", "keyring", "file:jsonprov.json#apiKey"]
    assert key.set_at == "2026-01-15T09:30:00Z"
    assert {w.code for w in key.warnings} == {"file_slot_shadows_secret", "secret_in_env_and_keyring"}
    assert "secret" not in repr(state.fingerprint)
    assert not any("secret-" in w.message for w in key.warnings)
    env_only = fields(read_provider(home=agent_home, name="jsonprov"))["api_key"]
    assert env_only.stores == ["env_file", "file:jsonprov.json#apiKey"]  # the keyring is consulted only when selected


def test_it_warns_about_a_bool_stored_as_text(agent_home: Path, plugin) -> None:
    plugin("jsonprov")
    write_json(agent_home / "jsonprov.json", {"enabled": "false"})
    enabled = fields(read_provider(home=agent_home, name="jsonprov"))["enabled"]
    assert enabled.value == "false"
    assert [w.code for w in enabled.warnings] == ["string_bool"]


def test_it_shows_an_unparseable_file_as_a_banner_with_unknown_values(agent_home: Path, plugin) -> None:
    plugin("jsonprov")
    (agent_home / "jsonprov.json").write_text('{"mode": "local",\n  "x": }', encoding="utf-8")
    state = read_provider(home=agent_home, name="jsonprov")
    assert state.storage.error == (
        "jsonprov.json is not valid JSON (line 2, column 8: Expecting value). Fix or remove the file first."
    )
    assert fields(state)["mode"].value == "" and fields(state)["mode"].source is None
    assert not state.can_save


def test_it_warns_about_a_bom_in_a_json_file(agent_home: Path, plugin) -> None:
    plugin("jsonprov")
    (agent_home / "jsonprov.json").write_bytes(b'\xef\xbb\xbf{"mode": "local"}')
    state = read_provider(home=agent_home, name="jsonprov")
    assert fields(state)["mode"].value == "local"
    assert "bom" in [w.code for w in state.warnings]


def test_it_reads_env_file_fields_from_env_only(agent_home: Path, plugin) -> None:
    plugin("envprov")
    (agent_home / ".env").write_text("ENVPROV_BASE_URL=http://x\nENVPROV_FLAG=yes\nENVPROV_COUNT=\n", encoding="utf-8")
    f = fields(read_provider(home=agent_home, name="envprov"))
    assert (f["base_url"].value, f["base_url"].source, f["base_url"].is_set) == ("http://x", "stored", True)
    assert f["base_url"].location == {"store": "env_file", "file": ".env", "variable": "ENVPROV_BASE_URL"}
    assert f["base_url"].env_key == "ENVPROV_BASE_URL"
    assert (f["flag"].value, f["flag"].warnings) == ("true", [])
    assert (f["count"].value, f["count"].is_set) == ("", True)  # present but empty: the plugin sees ""


def test_it_fingerprints_what_a_save_depends_on(agent_home: Path, plugin) -> None:
    plugin("jsonprov")
    first = read_provider(home=agent_home, name="jsonprov").fingerprint
    assert read_provider(home=agent_home, name="jsonprov").fingerprint == first
    write_json(agent_home / "jsonprov.json", {"note": "hi"})
    assert read_provider(home=agent_home, name="jsonprov").fingerprint != first


def test_it_raises_unknown_provider_for_a_name_that_is_not_discovered(agent_home: Path) -> None:
    with pytest.raises(UnknownProvider):
        read_provider(home=agent_home, name="nothing-here")


def test_it_returns_an_empty_state_for_a_provider_without_a_schema(agent_home: Path) -> None:
    state = read_provider(home=agent_home, name="builtin")
    assert (state.schema, state.fields, state.status) == (None, [], "ready")


def test_it_warns_about_keys_a_bundled_plugin_ignores(agent_home: Path) -> None:
    write_json(agent_home / "hindsight" / "config.json", {"apiUrl": "http://x", "banks": {"hermes": {"bankId": "b"}}})
    codes = [w.code for w in read_provider(home=agent_home, name="hindsight").warnings]
    assert codes.count("ignored_by_plugin") == 1 and "legacy_banks" in codes
    (agent_home / "config.yaml").write_text("memory:\n  openviking:\n    endpoint: http://x\n", encoding="utf-8")
    messages = [w.message for w in read_provider(home=agent_home, name="openviking").warnings]
    assert any("memory.openviking.endpoint is ignored by the plugin" in m for m in messages)
    (agent_home / "config.yaml").write_text("memory:\n  retaindb:\n    project: p\n", encoding="utf-8")
    messages = [w.message for w in read_provider(home=agent_home, name="retaindb").warnings]
    assert messages == ["config.yaml memory.retaindb.project is ignored by the plugin; it reads .env only."]


def test_it_says_when_openviking_cannot_start_and_checks_its_cli_profile(agent_home: Path, user_home: Path) -> None:
    codes = [w.code for w in read_provider(home=agent_home, name="openviking").warnings]
    assert "not_available" in codes
    (agent_home / "config.yaml").write_text("memory:\n  openviking:\n    use_ovcli_config: true\n", encoding="utf-8")
    codes = [w.code for w in read_provider(home=agent_home, name="openviking").warnings]
    assert "not_available" not in codes and "cli_profile_missing" in codes
    write_json(user_home / ".openviking" / "ovcli.conf", [])
    codes = [w.code for w in read_provider(home=agent_home, name="openviking").warnings]
    assert "cli_profile_invalid" in codes


def test_it_fills_placeholders_only_known_per_home(tmp_path: Path, user_home: Path) -> None:
    coder = tmp_path / "root" / "profiles" / "coder"
    coder.mkdir(parents=True)
    project = {f.key: f for f in read_provider(home=coder, name="retaindb").fields}["project"]
    assert project.placeholder == "hermes-coder"
    honcho = {f.key: f for f in read_provider(home=coder, name="honcho").fields}
    assert honcho["workspace"].placeholder == "hermes_coder"

"""The save service: validate everything first, then write all-or-nothing (docs/agent_formats.md §Saving provider
values, §Provider secrets, §Provider storage)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from keyring.backend import KeyringBackend
from keyring.errors import KeyringError

from provider_schemas import (
    ConflictError,
    SaveFailed,
    SecretStoreUnavailable,
    UnknownProvider,
    ValidationFailed,
    commit_save,
    keyring_service,
    plan_save,
    read_provider,
    save_provider,
)

from .conftest import install_plugin


def snapshot(*paths: Path) -> dict[str, bytes | None]:
    return {str(p): (p.read_bytes() if p.exists() else None) for p in paths}


def leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.rglob("*.tmp"))


def fields(home: Path, name: str, **kw) -> dict:
    return {f.key: f for f in read_provider(home=home, name=name, **kw).fields}


# --- validation ----------------------------------------------------------------------------------


def test_it_collects_every_error_in_declaration_order_and_writes_nothing(agent_home: Path, plugin) -> None:
    plugin("jsonprov")
    with pytest.raises(ValidationFailed) as caught:
        save_provider(
            home=agent_home,
            name="jsonprov",
            values={"tags": "{bad", "api_key": "sk-new-secret", "enabled": "maybe", "budget": "ultra", "limit": "12x"},
        )
    assert caught.value.errors == {
        "budget": "Invalid value for 'budget'",
        "enabled": "Invalid boolean for 'enabled'",
        "limit": "Invalid number for 'limit'",
        "tags": "Invalid JSON for 'tags'",
    }
    assert caught.value.detail == "Invalid value for 'budget'"
    assert not (agent_home / ".env").exists() and not (agent_home / "jsonprov.json").exists()


def test_it_refuses_a_key_that_is_both_set_and_cleared(agent_home: Path, plugin) -> None:
    plugin("jsonprov")
    with pytest.raises(ValidationFailed) as caught:
        save_provider(home=agent_home, name="jsonprov", values={"note": "x"}, clear=["note"])
    assert caught.value.errors == {"note": "'note' cannot be both set and cleared"}


def test_it_treats_a_blank_value_with_clear_as_a_clear(agent_home: Path, plugin) -> None:
    plugin("jsonprov")
    (agent_home / ".env").write_text("JSONPROV_API_KEY=old\n", encoding="utf-8")
    result = save_provider(home=agent_home, name="jsonprov", values={"api_key": ""}, clear=["api_key"])
    assert result.secrets_cleared == ["JSONPROV_API_KEY"]
    assert (agent_home / ".env").read_text(encoding="utf-8") == ""


def test_it_ignores_unknown_and_hidden_keys_and_reports_them(agent_home: Path, plugin) -> None:
    plugin("jsonprov")
    result = save_provider(home=agent_home, name="jsonprov", values={"url": "http://hidden", "nope": 1, "note": "n"})
    assert result.ignored == {"unknown": ["nope"], "hidden": ["url"]}
    assert json.loads((agent_home / "jsonprov.json").read_text(encoding="utf-8")) == {"note": "n"}


def test_it_computes_visibility_on_the_prospective_values(agent_home: Path, plugin) -> None:
    plugin("jsonprov")
    result = save_provider(home=agent_home, name="jsonprov", values={"mode": "local", "url": "http://127.0.0.1:1"})
    assert result.ignored == {"unknown": [], "hidden": []}
    assert json.loads((agent_home / "jsonprov.json").read_text(encoding="utf-8")) == {
        "mode": "local",
        "url": "http://127.0.0.1:1",
    }


def test_it_never_validates_or_writes_a_field_hidden_by_the_save(agent_home: Path, plugin) -> None:
    plugin("jsonprov")
    (agent_home / "jsonprov.json").write_text(json.dumps({"mode": "local", "url": "keep"}), encoding="utf-8")
    result = save_provider(home=agent_home, name="jsonprov", values={"mode": "cloud", "url": "\x00bad"}, clear=[])
    assert result.ignored["hidden"] == ["url"]
    assert json.loads((agent_home / "jsonprov.json").read_text(encoding="utf-8")) == {"mode": "cloud", "url": "keep"}


def test_it_answers_a_provider_without_schema_as_unknown(agent_home: Path) -> None:
    install_plugin(agent_home, "plain")
    with pytest.raises(UnknownProvider) as caught:
        save_provider(home=agent_home, name="plain", values={"a": 1})
    assert caught.value.reason == "no_schema"


# --- secrets -------------------------------------------------------------------------------------


def test_it_keeps_a_secret_on_blank_and_replaces_it_on_a_value(agent_home: Path, plugin) -> None:
    plugin("jsonprov")
    env = agent_home / ".env"
    env.write_text("# keep\nJSONPROV_API_KEY=old-secret\n", encoding="utf-8")
    assert save_provider(home=agent_home, name="jsonprov", values={"api_key": "  "}).written == []
    assert env.read_text(encoding="utf-8") == "# keep\nJSONPROV_API_KEY=old-secret\n"
    result = save_provider(home=agent_home, name="jsonprov", values={"api_key": "new secret"})
    assert (result.written, result.secrets_set) == ([".env"], ["JSONPROV_API_KEY"])
    assert env.read_text(encoding="utf-8") == '# keep\nJSONPROV_API_KEY="new secret"\n'
    assert [c.kind for c in result.changes] == ["secret_replace"]
    assert all(c.old is None and c.new is None for c in result.changes)


def test_it_removes_file_slots_that_would_shadow_a_replaced_secret(agent_home: Path, plugin) -> None:
    plugin("jsonprov")
    (agent_home / "jsonprov.json").write_text(
        json.dumps({"apiKey": "file-key", "api_key": "x", "note": "n"}), encoding="utf-8"
    )
    save_provider(home=agent_home, name="jsonprov", values={"api_key": "env-key"})
    assert json.loads((agent_home / "jsonprov.json").read_text(encoding="utf-8")) == {"note": "n"}
    assert fields(agent_home, "jsonprov")["api_key"].stores == ["env_file"]


def test_it_clears_a_secret_from_env_and_file_slots(agent_home: Path, plugin) -> None:
    plugin("jsonprov")
    (agent_home / ".env").write_text("A=1\nJSONPROV_API_KEY=one\nexport JSONPROV_API_KEY=two\n", encoding="utf-8")
    (agent_home / "jsonprov.json").write_text(json.dumps({"apiKey": "three"}), encoding="utf-8")
    result = save_provider(home=agent_home, name="jsonprov", values={}, clear=["api_key"])
    assert sorted(result.written) == [".env", "jsonprov.json"]
    assert result.secrets_cleared == ["JSONPROV_API_KEY"]
    assert (agent_home / ".env").read_text(encoding="utf-8") == "A=1\n"
    key = fields(agent_home, "jsonprov")["api_key"]
    assert (key.is_set, key.stores) == (False, [])


def test_it_refuses_a_secret_without_env_key(agent_home: Path) -> None:
    install_plugin(
        agent_home,
        "nokey",
        source=(
            "from plugins.memory.config_schema import KIND_SECRET, ProviderConfigSchema, ProviderField\n"
            "CONFIG_SCHEMA = ProviderConfigSchema(name='nokey', label='N',\n"
            "    fields=(ProviderField('token', 'Token', kind=KIND_SECRET),))\n"
        ),
    )
    token = fields(agent_home, "nokey")["token"]
    assert token.read_only_reason == "This secret has no env_key; the panel cannot store it."
    with pytest.raises(ValidationFailed) as caught:
        save_provider(home=agent_home, name="nokey", values={"token": "t"})
    assert caught.value.errors == {"token": "'token' has no env_key; the panel cannot store it"}


def test_it_stores_secrets_in_the_keyring_and_removes_the_env_line(agent_home: Path, plugin, dict_keyring) -> None:
    plugin("jsonprov")
    (agent_home / ".env").write_text("OTHER=1\nJSONPROV_API_KEY=plain-text\n", encoding="utf-8")
    result = save_provider(home=agent_home, name="jsonprov", values={"api_key": "ring-secret"}, secret_store="keyring")
    assert sorted(result.written) == [".env", "keyring"]
    assert dict_keyring.get_password(keyring_service(agent_home), "JSONPROV_API_KEY") == "ring-secret"
    assert (agent_home / ".env").read_text(encoding="utf-8") == "OTHER=1\n"
    assert fields(agent_home, "jsonprov", secret_store="keyring")["api_key"].stores == ["keyring"]
    result = save_provider(home=agent_home, name="jsonprov", values={}, clear=["api_key"], secret_store="keyring")
    assert result.written == ["keyring"]
    assert dict_keyring.get_password(keyring_service(agent_home), "JSONPROV_API_KEY") is None


class BrokenKeyring(KeyringBackend):
    priority = 1  # type: ignore[assignment]

    def get_password(self, service: str, username: str) -> str | None:
        raise KeyringError("no D-Bus session")

    def set_password(self, service: str, username: str, password: str) -> None:
        raise KeyringError(f"cannot store {password}")

    def delete_password(self, service: str, username: str) -> None:
        raise KeyringError("no D-Bus session")


def test_it_reports_an_unavailable_keyring_without_writing(agent_home: Path, plugin) -> None:
    import keyring

    plugin("jsonprov")
    previous = keyring.get_keyring()
    keyring.set_keyring(BrokenKeyring())
    try:
        with pytest.raises(SecretStoreUnavailable) as caught:
            save_provider(home=agent_home, name="jsonprov", values={"api_key": "sk-x"}, secret_store="keyring")
    finally:
        keyring.set_keyring(previous)
    assert caught.value.check.detail == "KeyringError: no D-Bus session"
    assert "no D-Bus session" in caught.value.reason
    assert not (agent_home / ".env").exists()


class FailingSetKeyring(KeyringBackend):
    """Reads work, writes fail: the failure happens after the files were renamed."""

    priority = 1  # type: ignore[assignment]

    def get_password(self, service: str, username: str) -> str | None:
        return None

    def set_password(self, service: str, username: str, password: str) -> None:
        raise KeyringError(f"locked while storing {password}")

    def delete_password(self, service: str, username: str) -> None:
        raise KeyringError("locked")


def test_it_rolls_back_files_when_the_keyring_fails_after_them(agent_home: Path, plugin) -> None:
    import keyring

    plugin("jsonprov")
    (agent_home / ".env").write_text("JSONPROV_API_KEY=old\n", encoding="utf-8")
    before = snapshot(agent_home / ".env", agent_home / "jsonprov.json")
    previous = keyring.get_keyring()
    keyring.set_keyring(FailingSetKeyring())
    try:
        with pytest.raises(SecretStoreUnavailable) as caught:
            save_provider(
                home=agent_home, name="jsonprov", values={"note": "n", "api_key": "sk-secret-9"}, secret_store="keyring"
            )
    finally:
        keyring.set_keyring(previous)
    assert "sk-secret-9" not in str(caught.value)
    assert snapshot(agent_home / ".env", agent_home / "jsonprov.json") == before
    assert leftovers(agent_home) == []


# --- all-or-nothing ------------------------------------------------------------------------------


def test_it_rolls_back_every_file_when_the_second_rename_fails(agent_home: Path, plugin, monkeypatch) -> None:
    plugin("jsonprov")
    (agent_home / ".env").write_text("# mine\nJSONPROV_API_KEY=old\n", encoding="utf-8")
    (agent_home / "jsonprov.json").write_text(json.dumps({"note": "before"}), encoding="utf-8")
    os.chmod(agent_home / ".env", 0o640)
    before = snapshot(agent_home / ".env", agent_home / "jsonprov.json")
    real_replace = os.replace
    calls = {"n": 0}

    def flaky_replace(src, dst):
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError(28, "No space left on device")
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", flaky_replace)
    with pytest.raises(SaveFailed) as caught:
        save_provider(home=agent_home, name="jsonprov", values={"note": "after", "api_key": "sk-new-77"})
    monkeypatch.setattr(os, "replace", real_replace)
    assert "sk-new-77" not in str(caught.value)
    assert calls["n"] >= 3  # the rollback renamed the first file back
    assert snapshot(agent_home / ".env", agent_home / "jsonprov.json") == before
    assert oct((agent_home / ".env").stat().st_mode & 0o777) == oct(0o640)
    assert leftovers(agent_home) == []


def test_it_removes_a_file_and_directory_it_created_when_a_later_write_fails(
    agent_home: Path, plugin, monkeypatch
) -> None:
    plugin("yamlprov")
    real_replace = os.replace
    calls = {"n": 0}

    def flaky_replace(src, dst):
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError(5, "I/O error")
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", flaky_replace)
    with pytest.raises(SaveFailed):
        save_provider(home=agent_home, name="yamlprov", values={"level": "1", "endpoint": "http://e"})
    assert sorted(p.name for p in agent_home.iterdir()) == ["panel", "plugins"]


# --- plans, conflicts ----------------------------------------------------------------------------


def test_it_plans_without_writing_and_keeps_secret_values_out_of_the_plan(agent_home: Path, plugin) -> None:
    plugin("jsonprov")
    plan = plan_save(home=agent_home, name="jsonprov", values={"note": "n", "api_key": "sk-very-secret"})
    assert plan.ok and plan.files == ["jsonprov.json", ".env"]
    assert [(c.location, c.key, c.kind) for c in plan.changes] == [
        (".env", "JSONPROV_API_KEY", "secret_set"),
        ("jsonprov.json", "note", "set"),
    ]
    assert "sk-very-secret" not in repr(plan) and "sk-very-secret" not in repr(plan.changes)
    assert sorted(agent_home.iterdir()) == [agent_home / "panel", agent_home / "plugins"]
    result = commit_save(plan)
    assert sorted(result.written) == [".env", "jsonprov.json"]
    assert (agent_home / ".env").read_text(encoding="utf-8") == "JSONPROV_API_KEY=sk-very-secret\n"


def test_it_refuses_to_commit_a_plan_when_the_files_changed_since(agent_home: Path, plugin) -> None:
    plugin("jsonprov")
    plan = plan_save(home=agent_home, name="jsonprov", values={"note": "mine"})
    (agent_home / "jsonprov.json").write_text(json.dumps({"note": "theirs"}), encoding="utf-8")
    with pytest.raises(ConflictError) as caught:
        commit_save(plan)
    assert caught.value.changes == [
        "jsonprov.json changed since the form was loaded",
        "Note (note) changed since the form was loaded",
    ]
    assert json.loads((agent_home / "jsonprov.json").read_text(encoding="utf-8")) == {"note": "theirs"}


def test_it_refuses_a_save_against_a_stale_fingerprint_naming_what_changed(agent_home: Path, plugin) -> None:
    plugin("jsonprov")
    rendered = read_provider(home=agent_home, name="jsonprov").fingerprint
    (agent_home / ".env").write_text("JSONPROV_API_KEY=someone-else\n", encoding="utf-8")
    plan = plan_save(home=agent_home, name="jsonprov", values={"note": "x"}, expected_fingerprint=rendered)
    assert plan.conflict == ["API key (api_key) changed since the form was loaded"]
    with pytest.raises(ConflictError):
        save_provider(home=agent_home, name="jsonprov", values={"note": "x"}, expected_fingerprint=rendered)
    assert not (agent_home / "jsonprov.json").exists()
    fresh = read_provider(home=agent_home, name="jsonprov").fingerprint
    assert save_provider(home=agent_home, name="jsonprov", values={"note": "x"}, expected_fingerprint=fresh).written


def test_it_treats_a_malformed_fingerprint_as_out_of_date(agent_home: Path, plugin) -> None:
    plugin("jsonprov")
    plan = plan_save(home=agent_home, name="jsonprov", values={"note": "x"}, expected_fingerprint="garbage")
    assert plan.conflict == ["The form is out of date; reload it."]


# --- honcho secrets ------------------------------------------------------------------------------


def test_it_mirrors_a_honcho_key_into_the_host_block_with_the_env_store(agent_home: Path, plugin) -> None:
    plugin("hostprov")
    path = agent_home / "honcho.json"
    path.write_text(json.dumps({"apiKey": "root-key", "hosts": {"hermes": {"apiKey": "old"}}}), encoding="utf-8")
    save_provider(home=agent_home, name="hostprov", values={"apiKey": "new-key"})
    assert json.loads(path.read_text(encoding="utf-8")) == {
        "apiKey": "root-key",
        "hosts": {"hermes": {"apiKey": "new-key"}},
    }
    assert (agent_home / ".env").read_text(encoding="utf-8") == "HOSTPROV_API_KEY=new-key\n"
    assert [w.code for w in fields(agent_home, "hostprov")["apiKey"].warnings] == [
        "file_slot_shadows_secret"
    ]  # the root copy


def test_it_never_touches_an_oauth_token_in_the_host_block(agent_home: Path, plugin) -> None:
    plugin("hostprov")
    path = agent_home / "honcho.json"
    block = {"apiKey": "hch-at-token", "oauth": {"refresh": "r"}}
    path.write_text(json.dumps({"hosts": {"hermes": block}}), encoding="utf-8")
    save_provider(home=agent_home, name="hostprov", values={"apiKey": "k2"})
    save_provider(home=agent_home, name="hostprov", values={}, clear=["apiKey"])
    assert json.loads(path.read_text(encoding="utf-8")) == {"hosts": {"hermes": block}}
    key = fields(agent_home, "hostprov")["apiKey"]
    assert "oauth_token" in [w.code for w in key.warnings]


def test_it_moves_a_honcho_key_out_of_the_host_block_with_the_keyring_store(
    agent_home: Path, plugin, dict_keyring
) -> None:
    plugin("hostprov")
    path = agent_home / "honcho.json"
    path.write_text(
        json.dumps({"apiKey": "root-key", "hosts": {"hermes": {"apiKey": "old", "workspace": "w"}}}), encoding="utf-8"
    )
    result = save_provider(home=agent_home, name="hostprov", values={"apiKey": "ring"}, secret_store="keyring")
    assert json.loads(path.read_text(encoding="utf-8")) == {
        "apiKey": "root-key",
        "hosts": {"hermes": {"workspace": "w"}},
    }
    assert "root_secret_wins" in [w.code for w in result.warnings]
    assert dict_keyring.get_password(keyring_service(agent_home), "HOSTPROV_API_KEY") == "ring"


def test_it_reads_with_an_unavailable_keyring_and_says_so(agent_home: Path, plugin) -> None:
    import keyring

    plugin("jsonprov")
    previous = keyring.get_keyring()
    keyring.set_keyring(BrokenKeyring())
    try:
        state = read_provider(home=agent_home, name="jsonprov", secret_store="keyring")
    finally:
        keyring.set_keyring(previous)
    notice = next(w for w in state.warnings if w.code == "keyring_unavailable")
    assert "no D-Bus session" in notice.message
    assert state.missing_secrets[0]["env_key"] == "JSONPROV_API_KEY"

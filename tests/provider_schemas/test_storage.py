"""Every storage backend: a save then a fresh read, unknown content preserved, files as docs/agent_formats.md §Provider
storage says."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
import yaml

from provider_schemas import StorageParseError, plan_save, read_provider, save_provider


def values(state) -> dict[str, str]:
    return {f.key: f.value for f in state.fields if not f.is_secret}


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# --- json_file / flat_json ------------------------------------------------------------------------


def test_it_round_trips_a_json_file_keeping_unknown_keys(agent_home: Path, plugin) -> None:
    plugin("jsonprov")
    path = agent_home / "jsonprov.json"
    path.write_text(json.dumps({"extra": {"nested": [1, 2]}, "mode": "cloud", "ünï": "kept"}), encoding="utf-8")
    result = save_provider(
        home=agent_home,
        name="jsonprov",
        values={"mode": "local", "url": "http://127.0.0.1:9", "limit": "12.0", "tags": '["a", "b"]', "enabled": False},
    )
    assert result.written == ["jsonprov.json"]
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data == {
        "extra": {"nested": [1, 2]},
        "mode": "local",
        "ünï": "kept",
        "url": "http://127.0.0.1:9",
        "enabled": False,
        "limit": 12,
        "tags": ["a", "b"],
    }
    assert '"ünï": "kept"' in path.read_text(encoding="utf-8")  # non-ASCII kept literally
    assert path.read_text(encoding="utf-8").startswith('{\n  "extra"')  # 2-space indent
    assert mode_of(path) == 0o600
    fresh = values(read_provider(home=agent_home, name="jsonprov"))
    assert (fresh["mode"], fresh["url"], fresh["limit"], fresh["tags"], fresh["enabled"]) == (
        "local", "http://127.0.0.1:9", "12", '["a", "b"]', "false"
    )  # fmt: skip


def test_it_creates_a_flat_json_file_with_its_directory(agent_home: Path, plugin) -> None:
    plugin("flatprov")
    save_provider(home=agent_home, name="flatprov", values={"title": "  Hello  ", "size": "1e3"})
    path = agent_home / "flatprov" / "config.json"
    assert json.loads(path.read_text(encoding="utf-8")) == {"title": "Hello", "size": 1000}
    assert mode_of(path) == 0o600
    assert values(read_provider(home=agent_home, name="flatprov"))["title"] == "Hello"


def test_it_does_not_rewrite_or_create_a_file_when_nothing_changes(agent_home: Path, plugin) -> None:
    plugin("flatprov")
    assert save_provider(home=agent_home, name="flatprov", values={"title": ""}).written == []
    assert not (agent_home / "flatprov").exists()
    save_provider(home=agent_home, name="flatprov", values={"title": "x"})
    path = agent_home / "flatprov" / "config.json"
    before = path.stat().st_mtime_ns
    assert save_provider(home=agent_home, name="flatprov", values={"title": "x", "size": ""}).written == []
    assert path.stat().st_mtime_ns == before


def test_it_removes_the_key_and_every_alias_on_clear(agent_home: Path, plugin) -> None:
    plugin("jsonprov")
    path = agent_home / "jsonprov.json"
    path.write_text(json.dumps({"budget": "low", "old_budget": "high", "other": 1}), encoding="utf-8")
    save_provider(home=agent_home, name="jsonprov", values={}, clear=["budget"])
    assert json.loads(path.read_text(encoding="utf-8")) == {"other": 1}
    budget = {f.key: f for f in read_provider(home=agent_home, name="jsonprov").fields}["budget"]
    assert (budget.value, budget.source) == ("mid", "default")


def test_it_writes_a_new_value_under_the_key_and_leaves_aliases(agent_home: Path, plugin) -> None:
    plugin("jsonprov")
    path = agent_home / "jsonprov.json"
    path.write_text(json.dumps({"old_budget": "high"}), encoding="utf-8")
    save_provider(home=agent_home, name="jsonprov", values={"budget": "low"})
    assert json.loads(path.read_text(encoding="utf-8")) == {"old_budget": "high", "budget": "low"}


def test_it_drops_a_bom_it_found_when_it_writes(agent_home: Path, plugin) -> None:
    plugin("jsonprov")
    path = agent_home / "jsonprov.json"
    path.write_bytes(b'\xef\xbb\xbf{"mode": "cloud"}')
    save_provider(home=agent_home, name="jsonprov", values={"note": "n"})
    assert not path.read_bytes().startswith(b"\xef\xbb\xbf")
    assert json.loads(path.read_bytes()) == {"mode": "cloud", "note": "n"}


# --- first creation ------------------------------------------------------------------------------


def test_it_copies_a_legacy_fallback_file_into_a_new_primary_file(agent_home: Path, user_home: Path, plugin) -> None:
    plugin("jsonprov")
    legacy = user_home / ".jsonprov" / "legacy.json"
    legacy.parent.mkdir()
    legacy.write_text(json.dumps({"mode": "local", "url": "http://old", "custom": True}), encoding="utf-8")
    plan = plan_save(home=agent_home, name="jsonprov", values={"note": "new"})
    assert "legacy_file_will_be_hidden" in [w.code for w in plan.warnings]
    assert [c.kind for c in plan.changes] == ["copy", "copy", "copy", "set"]
    save_provider(home=agent_home, name="jsonprov", values={"note": "new"})
    assert json.loads((agent_home / "jsonprov.json").read_text(encoding="utf-8")) == {
        "mode": "local", "url": "http://old", "custom": True, "note": "new"
    }  # fmt: skip
    assert json.loads(legacy.read_text(encoding="utf-8"))["url"] == "http://old"  # never written


def test_it_freezes_seed_env_values_into_a_new_file(agent_home: Path, plugin) -> None:
    plugin("jsonprov")
    (agent_home / ".env").write_text("JSONPROV_MODE=local\n", encoding="utf-8")
    plan = plan_save(home=agent_home, name="jsonprov", values={"note": "n"})
    assert "seed_env_will_be_frozen" in [w.code for w in plan.warnings]
    save_provider(home=agent_home, name="jsonprov", values={"note": "n"})
    assert json.loads((agent_home / "jsonprov.json").read_text(encoding="utf-8")) == {"mode": "local", "note": "n"}
    mode = {f.key: f for f in read_provider(home=agent_home, name="jsonprov").fields}["mode"]
    assert (mode.value, mode.source) == ("local", "stored")


def test_it_does_not_seed_a_field_the_save_submits(agent_home: Path, plugin) -> None:
    plugin("jsonprov")
    (agent_home / ".env").write_text("JSONPROV_MODE=local\n", encoding="utf-8")
    save_provider(home=agent_home, name="jsonprov", values={"mode": "cloud"})
    assert json.loads((agent_home / "jsonprov.json").read_text(encoding="utf-8")) == {"mode": "cloud"}


def test_it_does_not_create_the_file_for_a_secret_only_save(agent_home: Path, plugin) -> None:
    plugin("jsonprov")
    (agent_home / ".env").write_text("JSONPROV_MODE=local\n", encoding="utf-8")
    result = save_provider(home=agent_home, name="jsonprov", values={"api_key": "sk-1"})
    assert result.written == [".env"]
    assert not (agent_home / "jsonprov.json").exists()


# --- config_yaml ---------------------------------------------------------------------------------

CONFIG = """\
# The agent's configuration
_config_version: 33
model: gpt-x   # keep this comment
memory:
  provider: ''
  memory_enabled: true
plugins:
  other: {a: 1}
  yaml-prov:
    auto: true   # inline comment survives
    unknown_key: [1, 2]
toolsets:
- web
- files
"""


def test_it_round_trips_a_config_yaml_section_keeping_comments_and_other_keys(agent_home: Path, plugin) -> None:
    plugin("yamlprov")
    path = agent_home / "config.yaml"
    path.write_text(CONFIG, encoding="utf-8")
    os.chmod(path, 0o644)
    result = save_provider(
        home=agent_home,
        name="yamlprov",
        values={"auto": "off", "level": "2", "name": "yes", "endpoint": "http://127.0.0.1:1933"},
    )
    assert sorted(result.written) == [".env", "config.yaml"]
    text = path.read_text(encoding="utf-8")
    for kept in (
        "# The agent's configuration",
        "model: gpt-x   # keep this comment",
        "other: {a: 1}",
        "- web",
        "unknown_key: [1, 2]",
    ):
        assert kept in text
    loaded = yaml.safe_load(text)
    assert loaded["plugins"]["yaml-prov"] == {"auto": False, "unknown_key": [1, 2], "level": 2, "name": "yes"}
    assert loaded["model"] == "gpt-x" and loaded["toolsets"] == ["web", "files"]
    assert mode_of(path) == 0o644  # an existing config.yaml keeps its mode
    assert (agent_home / ".env").read_text(encoding="utf-8") == "YAMLPROV_ENDPOINT=http://127.0.0.1:1933\n"
    fresh = values(read_provider(home=agent_home, name="yamlprov"))
    assert (fresh["auto"], fresh["level"], fresh["name"], fresh["endpoint"]) == (
        "false",
        "2",
        "yes",
        "http://127.0.0.1:1933",
    )


def test_it_keeps_the_rest_of_config_yaml_byte_for_byte_in_either_list_style(agent_home: Path, plugin) -> None:
    plugin("yamlprov")
    path = agent_home / "config.yaml"
    for head in ("toolsets:\n- web   # first\n- files\n", "toolsets:\n  - web   # first\n  - files\n"):
        original = f"# mine\n{head}model:\n  name: 'gpt-x'\n  temperature: 0.2\n"
        path.write_text(original, encoding="utf-8")
        save_provider(home=agent_home, name="yamlprov", values={"name": "n", "level": "1"})
        text = path.read_text(encoding="utf-8")
        assert text.startswith(original)
        assert yaml.safe_load(text)["plugins"] == {"yaml-prov": {"level": 1, "name": "n"}}


def test_it_creates_config_yaml_with_the_config_version_and_mode_0600(agent_home: Path, plugin) -> None:
    plugin("yamlprov")
    save_provider(home=agent_home, name="yamlprov", values={"level": "0.75"})
    path = agent_home / "config.yaml"
    assert yaml.safe_load(path.read_text(encoding="utf-8")) == {
        "_config_version": 33, "plugins": {"yaml-prov": {"level": 0.75}}
    }  # fmt: skip
    assert mode_of(path) == 0o600


def test_it_removes_a_section_that_a_clear_leaves_empty(agent_home: Path, plugin) -> None:
    plugin("yamlprov")
    path = agent_home / "config.yaml"
    path.write_text(
        "plugins:\n  yaml-prov:\n    auto: false\nmemory:\n  provider_config:\n    auto: true\n", encoding="utf-8"
    )
    save_provider(home=agent_home, name="yamlprov", values={}, clear=["auto"])
    loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert loaded == {"plugins": {}, "memory": {"provider_config": {"auto": True}}}
    auto = {f.key: f for f in read_provider(home=agent_home, name="yamlprov").fields}["auto"]
    assert (auto.value, auto.fallback_location) == ("true", "memory.provider_config")


def test_it_copies_a_yaml_fallback_section_on_first_write(agent_home: Path, plugin) -> None:
    plugin("yamlprov")
    path = agent_home / "config.yaml"
    path.write_text("memory:\n  provider_config:\n    auto: false\n    name: legacy\n", encoding="utf-8")
    save_provider(home=agent_home, name="yamlprov", values={"level": "3"})
    loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert loaded["plugins"]["yaml-prov"] == {"auto": False, "name": "legacy", "level": 3}
    assert loaded["memory"]["provider_config"] == {"auto": False, "name": "legacy"}


def test_it_quotes_strings_the_agents_yaml_loader_would_misread(agent_home: Path, plugin) -> None:
    plugin("yamlprov")
    for text in ("yes", "off", "null", "1.5", "0o17", "~", "2001-01-01"):
        save_provider(home=agent_home, name="yamlprov", values={"name": text})
        loaded = yaml.safe_load((agent_home / "config.yaml").read_text(encoding="utf-8"))
        assert loaded["plugins"]["yaml-prov"]["name"] == text


# --- env_file ------------------------------------------------------------------------------------


def test_it_round_trips_env_file_fields_keeping_every_other_line(agent_home: Path, plugin) -> None:
    plugin("envprov")
    env = agent_home / ".env"
    original = "# my secrets\nOPENAI_API_KEY=sk-open\n\nexport ENVPROV_FLAG=0 # old\nLAST=1"
    env.write_text(original, encoding="utf-8")
    os.chmod(env, 0o644)
    save_provider(home=agent_home, name="envprov", values={"base_url": "http://x y", "flag": "on", "count": "7"})
    text = env.read_text(encoding="utf-8")
    assert (
        text == "# my secrets\nOPENAI_API_KEY=sk-open\n\nENVPROV_FLAG=true\nLAST=1\n"
        'ENVPROV_BASE_URL="http://x y"\nENVPROV_COUNT=7\n'
    )
    assert mode_of(env) == 0o600
    fresh = values(read_provider(home=agent_home, name="envprov"))
    assert (fresh["base_url"], fresh["flag"], fresh["count"]) == ("http://x y", "true", "7")
    save_provider(home=agent_home, name="envprov", values={"base_url": ""}, clear=["count"])
    assert env.read_text(encoding="utf-8") == "# my secrets\nOPENAI_API_KEY=sk-open\n\nENVPROV_FLAG=true\nLAST=1\n"


def test_it_replaces_the_target_of_an_env_file_linked_inside_the_home(agent_home: Path, plugin) -> None:
    plugin("envprov")
    real = agent_home / "secrets" / "agent.env"
    real.parent.mkdir()
    real.write_text("A=1\n", encoding="utf-8")
    (agent_home / ".env").symlink_to(real)
    save_provider(home=agent_home, name="envprov", values={"base_url": "http://b"})
    assert (agent_home / ".env").is_symlink()
    assert real.read_text(encoding="utf-8") == "A=1\nENVPROV_BASE_URL=http://b\n"


def test_it_refuses_to_write_an_env_file_linked_out_of_the_home(agent_home: Path, tmp_path: Path, plugin) -> None:
    plugin("envprov")
    real = tmp_path / "secrets.env"
    real.write_text("A=1\n", encoding="utf-8")
    (agent_home / ".env").symlink_to(real)
    with pytest.raises(StorageParseError) as caught:
        save_provider(home=agent_home, name="envprov", values={"base_url": "http://b"})
    assert caught.value.linked and caught.value.file == ".env"
    assert real.read_text(encoding="utf-8") == "A=1\n"


def test_it_refuses_to_rewrite_an_env_file_that_is_not_utf8(agent_home: Path, plugin) -> None:
    plugin("envprov")
    env = agent_home / ".env"
    env.write_bytes(b"NAME=caf\xe9\n")
    with pytest.raises(StorageParseError) as caught:
        save_provider(home=agent_home, name="envprov", values={"base_url": "http://b"})
    assert caught.value.file == ".env"
    assert env.read_bytes() == b"NAME=caf\xe9\n"


# --- honcho host block ---------------------------------------------------------------------------


def test_it_writes_honcho_settings_to_the_global_file_when_none_exists(
    agent_home: Path, user_home: Path, plugin
) -> None:
    plugin("hostprov")
    state = read_provider(home=agent_home, name="hostprov")
    assert (state.host.key, state.host.reason, state.host.file) == ("hermes", "profile", "~/.honcho/config.json")
    result = save_provider(
        home=agent_home,
        name="hostprov",
        values={"apiKey": "hp-secret", "baseUrl": "http://127.0.0.1:7777", "workspace": "ws-1", "timeout": 12.5,
                "sessions": '{"k": "s-1"}'},
    )  # fmt: skip
    path = user_home / ".honcho" / "config.json"
    assert sorted(result.written) == [".env", "~/.honcho/config.json"]
    assert json.loads(path.read_text(encoding="utf-8")) == {
        "hosts": {"hermes": {"apiKey": "hp-secret", "workspace": "ws-1", "timeout": 12.5}},
        "baseUrl": "http://127.0.0.1:7777",
        "sessions": {"k": "s-1"},
    }
    assert mode_of(path) == 0o600
    assert (user_home / ".honcho" / "config.json.lock").exists()
    assert not (agent_home / "honcho.json").exists()
    fresh = values(read_provider(home=agent_home, name="hostprov"))
    assert (fresh["baseUrl"], fresh["workspace"], fresh["timeout"], fresh["sessions"]) == (
        "http://127.0.0.1:7777", "ws-1", "12.5", '{"k": "s-1"}'
    )  # fmt: skip


def test_it_prefers_the_homes_own_honcho_file_and_keeps_other_hosts(agent_home: Path, plugin) -> None:
    plugin("hostprov")
    path = agent_home / "honcho.json"
    path.write_text(
        json.dumps({"hosts": {"other": {"workspace": "w0"}, "hermes": {"peerName": "eri"}}, "linkedHosts": ["x"]}),
        encoding="utf-8",
    )
    save_provider(home=agent_home, name="hostprov", values={"workspace": "w1"}, clear=[])
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data == {
        "hosts": {"other": {"workspace": "w0"}, "hermes": {"peerName": "eri", "workspace": "w1"}},
        "linkedHosts": ["x"],
    }


def test_it_uses_the_root_honcho_file_and_a_profile_host_for_a_named_profile(
    tmp_path: Path, user_home: Path, plugin
) -> None:
    from .conftest import install_plugin

    root = tmp_path / "deploy"
    profile = root / "profiles" / "coder"
    profile.mkdir(parents=True)
    install_plugin(profile, "hostprov", fixture="hostprov")
    (root / "honcho.json").write_text(
        json.dumps({"hosts": {"hermes.coder": {"workspace": "legacy"}}}), encoding="utf-8"
    )
    state = read_provider(home=profile, name="hostprov")
    assert (state.host.key, state.host.file) == ("hermes_coder", str((root / "honcho.json").as_posix()))
    assert {f.key: f.value for f in state.fields}["workspace"] == "legacy"
    save_provider(home=profile, name="hostprov", values={"workspace": "fresh"})
    data = json.loads((root / "honcho.json").read_text(encoding="utf-8"))
    assert data == {"hosts": {"hermes.coder": {"workspace": "fresh"}}}  # the legacy block is updated in place


def test_it_takes_the_host_from_hermes_honcho_host_or_default_host(agent_home: Path, plugin) -> None:
    plugin("hostprov")
    (agent_home / "honcho.json").write_text(json.dumps({"defaultHost": "shared"}), encoding="utf-8")
    state = read_provider(home=agent_home, name="hostprov")
    assert (state.host.key, state.host.reason) == ("shared", "defaultHost")
    (agent_home / ".env").write_text("HERMES_HONCHO_HOST=from-env\n", encoding="utf-8")
    state = read_provider(home=agent_home, name="hostprov")
    assert (state.host.key, state.host.reason) == ("from-env", "env")


def test_it_reads_a_host_field_from_the_root_when_the_host_block_lacks_it(agent_home: Path, plugin) -> None:
    plugin("hostprov")
    (agent_home / "honcho.json").write_text(
        json.dumps({"requestTimeout": 9, "hosts": {"hermes": {}}}), encoding="utf-8"
    )
    timeout = {f.key: f for f in read_provider(home=agent_home, name="hostprov").fields}["timeout"]
    assert (timeout.value, timeout.source, timeout.stored_key) == ("9", "alias", "requestTimeout")
    assert [w.code for w in timeout.warnings] == ["root_value"]


def test_it_seeds_honcho_environment_into_a_new_host_block(agent_home: Path, user_home: Path, plugin) -> None:
    plugin("hostprov")
    (agent_home / ".env").write_text("HOSTPROV_ENVIRONMENT=local\n", encoding="utf-8")
    save_provider(home=agent_home, name="hostprov", values={"workspace": "w"})
    data = json.loads((user_home / ".honcho" / "config.json").read_text(encoding="utf-8"))
    assert data == {"hosts": {"hermes": {"environment": "local", "workspace": "w"}}}


# --- refusal on unparseable files ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "relative", "content", "message"),
    [
        ("jsonprov", "jsonprov.json", '{"a": 1,}', "Cannot save: jsonprov.json is not valid JSON (line 1, column 9: "),
        ("jsonprov", "jsonprov.json", "[1, 2]",
         "Cannot save: jsonprov.json is not valid JSON (the top level must be an object"),
        ("yamlprov", "config.yaml", "plugins: [\n", "Cannot save: config.yaml is not valid YAML (line 2, column 1: "),
        ("yamlprov", "config.yaml", "plugins:\n  yaml-prov: [1]\n",
         "Cannot save: config.yaml is not valid YAML ('plugins.yaml-prov' is not a mapping)"),
        ("hostprov", "honcho.json", "{nope", "Cannot save: honcho.json is not valid JSON (line 1, column 2: "),
    ],
)  # fmt: skip
def test_it_never_overwrites_a_storage_file_that_does_not_parse(
    agent_home: Path, plugin, name: str, relative: str, content: str, message: str
) -> None:
    plugin(name)
    path = agent_home / relative
    path.write_text(content, encoding="utf-8")
    first_field = {"jsonprov": "note", "yamlprov": "name", "hostprov": "workspace"}[name]
    secret = {"jsonprov": "api_key", "yamlprov": "token", "hostprov": "apiKey"}[name]
    with pytest.raises(StorageParseError) as caught:
        save_provider(home=agent_home, name=name, values={first_field: "x", secret: "sk-never-written"})
    assert caught.value.detail.startswith(message)
    assert caught.value.detail.endswith("Fix or remove the file first.")
    assert caught.value.file == relative
    assert path.read_text(encoding="utf-8") == content
    assert not (agent_home / ".env").exists()
    with pytest.raises(StorageParseError):
        plan_save(home=agent_home, name=name, values={first_field: "x"})

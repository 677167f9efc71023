"""Activation and the memory: section of config.yaml (docs/agent_formats.md §Activation)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
import yaml

from provider_schemas import (
    ConflictError,
    NotReady,
    StorageParseError,
    UnknownProvider,
    ValidationFailed,
    activate,
    deactivate,
    read_memory_settings,
    read_provider,
    save_memory_settings,
    save_provider,
)

from .conftest import install_plugin

CONFIG = (
    "# agent config\n_config_version: 33\nmemory:\n  memory_enabled: true   # built-in on\n  provider: ''\nmodel: x\n"
)


def test_it_refuses_to_activate_while_a_required_secret_is_missing(agent_home: Path, plugin) -> None:
    plugin("jsonprov")
    with pytest.raises(NotReady) as caught:
        activate(home=agent_home, name="jsonprov")
    assert caught.value.status == "needs_config"
    assert caught.value.missing_secrets == [{"key": "api_key", "label": "API key", "env_key": "JSONPROV_API_KEY"}]
    assert (
        str(caught.value)
        == "Memory provider 'jsonprov' is not ready (needs config). Configure it in the dashboard first."
    )
    assert not (agent_home / "config.yaml").exists()


def test_it_activates_once_the_secret_is_set_and_never_on_save(agent_home: Path, plugin) -> None:
    plugin("jsonprov")
    result = save_provider(home=agent_home, name="jsonprov", values={"api_key": "k"})
    assert result.active == ""
    assert not (agent_home / "config.yaml").exists()
    assert activate(home=agent_home, name="jsonprov") == "jsonprov"
    path = agent_home / "config.yaml"
    assert yaml.safe_load(path.read_text(encoding="utf-8")) == {
        "_config_version": 33,
        "memory": {"provider": "jsonprov"},
    }
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert read_provider(home=agent_home, name="jsonprov").active


def test_it_keeps_comments_and_does_not_rewrite_an_unchanged_activation(agent_home: Path, plugin) -> None:
    plugin("flatprov")
    path = agent_home / "config.yaml"
    path.write_text(CONFIG, encoding="utf-8")
    activate(home=agent_home, name="flatprov")
    text = path.read_text(encoding="utf-8")
    assert "# agent config" in text and "memory_enabled: true   # built-in on" in text
    assert yaml.safe_load(text)["memory"]["provider"] == "flatprov"
    mtime = path.stat().st_mtime_ns
    os.utime(path, ns=(mtime - 10**9, mtime - 10**9))
    activate(home=agent_home, name="flatprov")
    assert path.stat().st_mtime_ns == mtime - 10**9


@pytest.mark.parametrize("alias", ["", "built-in", "Built-In", "builtin", "NONE"])
def test_it_deactivates_for_every_builtin_alias(agent_home: Path, plugin, alias: str) -> None:
    plugin("flatprov")
    activate(home=agent_home, name="flatprov")
    assert activate(home=agent_home, name=alias) == ""
    assert yaml.safe_load((agent_home / "config.yaml").read_text(encoding="utf-8"))["memory"]["provider"] == ""


def test_it_refuses_an_unknown_or_unaddressable_provider(agent_home: Path) -> None:
    for name in ("nothing", "../etc"):
        with pytest.raises(UnknownProvider):
            activate(home=agent_home, name=name)


def test_it_refuses_a_provider_whose_schema_fails_to_load(agent_home: Path) -> None:
    install_plugin(agent_home, "broken", source="CONFIG_SCHEMA = (\n")
    with pytest.raises(NotReady) as caught:
        activate(home=agent_home, name="broken")
    assert caught.value.status == "schema_error" and caught.value.schema_error is not None


def test_it_activates_a_provider_without_a_schema(agent_home: Path) -> None:
    install_plugin(agent_home, "plain")
    assert activate(home=agent_home, name="plain") == "plain"


def test_it_refuses_to_activate_over_an_unparseable_config_yaml(agent_home: Path, plugin) -> None:
    plugin("flatprov")
    (agent_home / "config.yaml").write_text("memory: [\n", encoding="utf-8")
    with pytest.raises(StorageParseError) as caught:
        activate(home=agent_home, name="flatprov")
    assert caught.value.file == "config.yaml"
    assert (agent_home / "config.yaml").read_text(encoding="utf-8") == "memory: [\n"


def test_it_deactivates_without_creating_a_config_file(agent_home: Path) -> None:
    assert deactivate(home=agent_home) == ""
    assert not (agent_home / "config.yaml").exists()


def test_it_reads_memory_settings_with_the_agents_defaults(agent_home: Path) -> None:
    settings = read_memory_settings(home=agent_home)
    assert settings.values == {
        "memory_enabled": True,
        "user_profile_enabled": True,
        "write_approval": False,
        "memory_char_limit": 2200,
        "user_char_limit": 1375,
        "nudge_interval": 10,
        "provider": "",
    }
    assert settings.stored == {} and not settings.exists and settings.error is None


def test_it_saves_memory_settings_natively_keeping_everything_else(agent_home: Path) -> None:
    path = agent_home / "config.yaml"
    path.write_text(CONFIG, encoding="utf-8")
    settings = save_memory_settings(
        home=agent_home,
        values={"memory_enabled": "off", "write_approval": True, "memory_char_limit": "3000", "nudge_interval": 0},
    )
    loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert loaded["memory"] == {
        "memory_enabled": False,
        "provider": "",
        "write_approval": True,
        "memory_char_limit": 3000,
        "nudge_interval": 0,
    }
    assert loaded["model"] == "x" and "# agent config" in path.read_text(encoding="utf-8")
    assert settings.values["memory_char_limit"] == 3000
    save_memory_settings(home=agent_home, values={"memory_char_limit": ""})
    assert "memory_char_limit" not in yaml.safe_load(path.read_text(encoding="utf-8"))["memory"]


def test_it_validates_every_memory_setting_before_writing(agent_home: Path) -> None:
    with pytest.raises(ValidationFailed) as caught:
        save_memory_settings(
            home=agent_home,
            values={"memory_enabled": "maybe", "user_char_limit": "0", "nudge_interval": "2.5", "colour": "red"},
        )
    assert caught.value.errors == {
        "memory_enabled": "Invalid boolean for 'memory_enabled'",
        "user_char_limit": "'user_char_limit' must be at least 1",
        "nudge_interval": "Invalid number for 'nudge_interval'",
        "colour": "Unknown setting 'colour'",
    }
    assert not (agent_home / "config.yaml").exists()


def test_it_applies_activation_rules_to_the_provider_setting(agent_home: Path, plugin) -> None:
    plugin("jsonprov")
    with pytest.raises(NotReady):
        save_memory_settings(home=agent_home, values={"provider": "jsonprov", "write_approval": "yes"})
    assert not (agent_home / "config.yaml").exists()


def test_it_refuses_memory_settings_against_a_stale_fingerprint(agent_home: Path) -> None:
    rendered = read_memory_settings(home=agent_home).fingerprint
    (agent_home / "config.yaml").write_text("memory:\n  user_char_limit: 99\n", encoding="utf-8")
    with pytest.raises(ConflictError) as caught:
        save_memory_settings(home=agent_home, values={"memory_enabled": False}, expected_fingerprint=rendered)
    assert caught.value.changes == ["User profile size limit (user_char_limit) changed since the form was loaded"]

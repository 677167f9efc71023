"""Reads reused while a file is unchanged (discovery's small files, ``.env`` and ``config.yaml``
for display) are read again as soon as the file changes, even when its size stays the same."""

from __future__ import annotations

from pathlib import Path

from memory_core.caching import per_file_version
from provider_schemas import discover, get_provider, read_provider
from provider_schemas.reading.state import active_provider
from tests.edits import rewrite_same_size

from .conftest import MARKER_INIT, install_plugin

SCHEMA = """from plugins.memory.config_schema import KIND_SECRET, ProviderConfigSchema, ProviderField
CONFIG_SCHEMA = ProviderConfigSchema(
    name="{name}",
    label="Cached",
    storage="env_file",
    fields=(
        ProviderField("url", "URL", env_key="CACHED_URL"),
        ProviderField("token", "Token", kind=KIND_SECRET, env_key="CACHED_TOKEN"),
    ),
)
"""


def test_it_reads_the_active_provider_again_after_a_same_size_edit(agent_home: Path) -> None:
    config = agent_home / "config.yaml"
    config.write_text("memory:\n  provider: mem0\n", encoding="utf-8")
    assert active_provider(home=agent_home) == "mem0"

    rewrite_same_size(config, "mem0", "zep1")

    assert active_provider(home=agent_home) == "zep1"


def test_it_sees_a_removed_config_yaml_as_no_active_provider(agent_home: Path) -> None:
    config = agent_home / "config.yaml"
    config.write_text("memory:\n  provider: mem0\n", encoding="utf-8")
    assert active_provider(home=agent_home) == "mem0"

    config.unlink()

    assert active_provider(home=agent_home) == ""


def test_it_shows_an_env_value_edited_in_place_on_the_next_read(agent_home: Path) -> None:
    install_plugin(agent_home, "cached", source=SCHEMA.format(name="cached"))
    env = agent_home / ".env"
    env.write_text("CACHED_URL=http://one\nCACHED_TOKEN=aaaa\n", encoding="utf-8")
    first = {f.key: f for f in read_provider(home=agent_home, name="cached").fields}
    assert first["url"].value == "http://one"

    rewrite_same_size(env, "http://one\nCACHED_TOKEN=aaaa", "http://two\nCACHED_TOKXN=aaaa")

    second = {f.key: f for f in read_provider(home=agent_home, name="cached").fields}
    assert second["url"].value == "http://two"
    assert first["token"].is_set and not second["token"].is_set


def test_it_drops_a_plugin_whose_init_file_loses_the_marker_in_a_same_size_edit(agent_home: Path) -> None:
    directory = install_plugin(agent_home, "cached", source=SCHEMA.format(name="cached"))
    assert "cached" in [p.name for p in discover(home=agent_home).providers]

    rewrite_same_size(directory / "__init__.py", "register_memory_provider", "register_something_else_")

    assert "cached" not in [p.name for p in discover(home=agent_home).providers]
    assert get_provider(home=agent_home, name="cached") is None


def test_it_shows_a_plugin_yaml_description_edited_in_place(agent_home: Path) -> None:
    directory = install_plugin(agent_home, "cached", source=SCHEMA.format(name="cached"))
    (directory / "plugin.yaml").write_text("description: Old text\nrequires_env: [A]\n", encoding="utf-8")
    assert discover(home=agent_home).get("cached").description == "Old text"

    rewrite_same_size(directory / "plugin.yaml", "Old text", "New text")

    entry = discover(home=agent_home).get("cached")
    assert entry.description == "New text"
    assert entry.setup["required_env"] == ["A"]


def test_it_hands_each_caller_its_own_copy_of_the_setup(agent_home: Path) -> None:
    directory = install_plugin(agent_home, "cached", source=SCHEMA.format(name="cached"))
    (directory / "plugin.yaml").write_text("requires_env: [A]\npip_dependencies: [x]\n", encoding="utf-8")
    first = discover(home=agent_home).get("cached")
    first.setup["required_env"].append("CHANGED")
    first.setup["pip_dependencies"].clear()

    again = discover(home=agent_home).get("cached")

    assert again.setup["required_env"] == ["A"]
    assert again.setup["pip_dependencies"] == ["x"]


def test_it_computes_once_per_version_of_a_file(tmp_path: Path) -> None:
    path = tmp_path / "data.txt"
    path.write_text("one", encoding="utf-8")
    calls: list[str] = []

    def compute(p: Path) -> str:
        calls.append(p.read_text(encoding="utf-8"))
        return calls[-1]

    assert [per_file_version("test", path, compute) for _ in range(3)] == ["one"] * 3
    assert calls == ["one"]

    rewrite_same_size(path, "one", "two")
    assert per_file_version("test", path, compute) == "two"
    path.unlink()
    assert per_file_version("test", path, lambda p: "absent") == "absent"
    path.write_text("three", encoding="utf-8")
    assert per_file_version("test", path, compute) == "three"
    assert calls == ["one", "two", "three"]


def test_it_keeps_a_marker_free_init_file_out_even_when_it_was_a_provider_before(agent_home: Path) -> None:
    directory = agent_home / "plugins" / "flip"
    directory.mkdir(parents=True)
    (directory / "__init__.py").write_text("# nothing here\n", encoding="utf-8")
    assert discover(home=agent_home).get("flip") is None

    (directory / "__init__.py").write_text(MARKER_INIT, encoding="utf-8")

    assert discover(home=agent_home).get("flip") is not None

"""Provider discovery, precedence and the name guard (docs/agent_formats.md §Provider discovery)."""

from __future__ import annotations

from pathlib import Path

import pytest

from provider_schemas import (
    BUNDLED_PROVIDERS,
    InvalidProviderName,
    SchemaLoadError,
    discover,
    get_provider,
    get_provider_config_schema,
)
from provider_schemas.loading.names import check_provider_name, normalise_active_provider

from .conftest import MARKER_INIT, install_plugin

SCHEMA = """from plugins.memory.config_schema import ProviderConfigSchema, ProviderField
CONFIG_SCHEMA = ProviderConfigSchema(name="{name}", label="{label}", fields=(ProviderField("a", "A"),))
"""


def test_it_lists_the_builtin_row_and_the_eight_bundled_providers(agent_home: Path) -> None:
    found = discover(home=agent_home)
    assert [p.name for p in found.providers] == ["builtin", *sorted(BUNDLED_PROVIDERS)]
    assert found.providers[0].origin == "builtin" and found.providers[0].schema_state == "none"
    for entry in found.providers[1:]:
        assert entry.origin == "bundled" and entry.path is None
        assert entry.schema_state == "ok", entry.load_error
        assert entry.description, entry.name
    retaindb = found.get("retaindb")
    assert retaindb is not None and retaindb.setup["required_env"] == ["RETAINDB_API_KEY"]


def test_it_finds_user_plugins_that_pass_the_marker_test_in_sorted_order(agent_home: Path) -> None:
    install_plugin(agent_home, "zeta", source=SCHEMA.format(name="zeta", label="Zeta"))
    install_plugin(agent_home, "alpha", source=SCHEMA.format(name="alpha", label="Alpha"))
    other = agent_home / "plugins" / "not_memory"
    other.mkdir()
    (other / "__init__.py").write_text("def register(ctx): pass\n", encoding="utf-8")
    (agent_home / "plugins" / "_private").mkdir()
    (agent_home / "plugins" / "_private" / "__init__.py").write_text(MARKER_INIT, encoding="utf-8")
    users = [p for p in discover(home=agent_home).providers if p.origin == "user"]
    assert [(p.name, p.label, p.path) for p in users] == [
        ("alpha", "Alpha", "plugins/alpha"),
        ("zeta", "Zeta", "plugins/zeta"),
    ]


def test_it_lists_a_user_provider_without_a_schema_as_having_no_settings(agent_home: Path) -> None:
    install_plugin(agent_home, "plain")
    (agent_home / "plugins" / "plain" / "plugin.yaml").write_text(
        "\ufeffdescription: Plain provider\npip_dependencies: [plain-client]\nrequires_env: [PLAIN_KEY]\n",
        encoding="utf-8",
    )
    entry = get_provider(home=agent_home, name="plain")
    assert entry is not None
    assert entry.schema_state == "none" and not entry.has_schema
    assert entry.description == "Plain provider"
    assert entry.setup["pip_dependencies"] == ["plain-client"] and entry.setup["required_env"] == ["PLAIN_KEY"]
    assert get_provider_config_schema("plain", home=agent_home) is None


def test_it_reports_a_user_schema_error_instead_of_hiding_the_provider(agent_home: Path) -> None:
    install_plugin(agent_home, "mytool", source="CONFIG_SCHEMA = (\n")
    entry = get_provider(home=agent_home, name="mytool")
    assert entry is not None and entry.schema_state == "error"
    assert entry.load_error is not None and entry.load_error.path == "plugins/mytool/config_schema.py"
    assert isinstance(get_provider_config_schema("mytool", home=agent_home), SchemaLoadError)


def test_it_lets_a_bundled_provider_win_and_reports_the_shadowed_user_directory(agent_home: Path) -> None:
    install_plugin(agent_home, "honcho", source=SCHEMA.format(name="honcho", label="My own Honcho"))
    found = discover(home=agent_home)
    honcho = found.get("honcho")
    assert honcho is not None and honcho.origin == "bundled" and honcho.label == "Honcho"
    assert [(s.name, s.path, s.shadowed_by, s.has_schema) for s in found.shadowed] == [
        ("honcho", "plugins/honcho", "bundled", True)
    ]
    assert get_provider(home=agent_home, name="honcho").origin == "bundled"  # type: ignore[union-attr]


def test_it_lists_a_directory_whose_name_cannot_be_addressed(agent_home: Path) -> None:
    install_plugin(agent_home, "my.tool", source=SCHEMA.format(name="my.tool", label="Dotted"))
    found = discover(home=agent_home)
    assert [(u.name, u.error) for u in found.unaddressable] == [("my.tool", "name cannot be addressed")]
    assert all(p.name != "my.tool" for p in found.providers)


@pytest.mark.parametrize("name", ["..", ".hindsight", "hind.sight", " hindsight", "a/b", "", "x" * 65, "é"])
def test_it_refuses_a_bad_name_before_touching_the_filesystem(name: str, tmp_path: Path) -> None:
    missing_home = tmp_path / "does-not-exist"
    with pytest.raises(InvalidProviderName) as caught:
        get_provider(home=missing_home, name=name)
    assert str(caught.value) == f"Unknown memory provider: {name}"
    assert not missing_home.exists()


def test_it_treats_an_unknown_but_valid_name_as_not_found(agent_home: Path) -> None:
    assert get_provider(home=agent_home, name="HINDSIGHT") is None
    assert check_provider_name("HINDSIGHT") == "HINDSIGHT"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("", ""), ("Built-In", ""), ("builtin", ""), ("NONE", ""), (" hindsight ", "hindsight"), (None, ""), (5, "")],
)
def test_it_normalises_memory_provider_like_the_agent(raw: object, expected: str) -> None:
    assert normalise_active_provider(raw) == expected

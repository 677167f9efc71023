"""Prospective visibility (docs/agent_formats.md §Saving provider values step 3) as a public function: the same answer
the
save planner works with, for a form that re-renders its rows while the user edits."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from provider_schemas import plan_save, prospective_visibility, read_provider
from provider_schemas.reading.state import load_model

from .conftest import install_plugin

CHAIN_SCHEMA = """
from plugins.memory.config_schema import (
    KIND_BOOL, KIND_NUMBER, KIND_SECRET, KIND_SELECT, KIND_TEXT, STORAGE_JSON_FILE,
    ProviderConfigSchema, ProviderField, ProviderFieldOption,
)

CONFIG_SCHEMA = ProviderConfigSchema(
    name="chainprov",
    label="Chains of conditions",
    storage=STORAGE_JSON_FILE,
    storage_path="chainprov.json",
    fields=(
        ProviderField("mode", "Mode", kind=KIND_SELECT, default="cloud", env_fallbacks=("CHAIN_MODE",),
                      options=(ProviderFieldOption("cloud", "Cloud"), ProviderFieldOption("local", "Local"))),
        ProviderField("engine", "Engine", kind=KIND_SELECT, default="basic", when={"mode": "local"},
                      options=(ProviderFieldOption("basic", "Basic"), ProviderFieldOption("fancy", "Fancy"))),
        ProviderField("tuning", "Tuning", kind=KIND_TEXT, when={"engine": "fancy"}),
        ProviderField("token", "Token", kind=KIND_SECRET, env_key="CHAIN_TOKEN", when={"mode": "local"}),
        ProviderField("verbose", "Verbose", kind=KIND_BOOL, default="false"),
        ProviderField("log_file", "Log file", kind=KIND_TEXT, when={"verbose": "true"}),
        ProviderField("workers", "Workers", kind=KIND_NUMBER, default="1"),
        ProviderField("pool", "Pool", kind=KIND_TEXT, when={"workers": "4", "mode": "local"}),
    ),
)
"""

DEPENDENTS = ("engine", "tuning", "token", "log_file", "pool")


@pytest.fixture
def chain(agent_home: Path) -> Path:
    install_plugin(agent_home, "chainprov", source=CHAIN_SCHEMA)
    return agent_home / "chainprov.json"


def _store(path: Path, **values: object) -> None:
    path.write_text(json.dumps(values), encoding="utf-8")


def _shown(home: Path, values: dict | None = None, clear: tuple[str, ...] = ()) -> dict[str, bool]:
    state = read_provider(home=home, name="chainprov")
    visible = prospective_visibility(state, values=values or {}, clear=clear)
    # Exactly what the save planner works with for the same submission.
    assert visible == plan_save(home=home, name="chainprov", values=values or {}, clear=clear).visible
    return {key: visible[key] for key in DEPENDENTS}


def test_it_answers_for_every_field_in_declaration_order_without_a_submission(agent_home: Path, chain: Path) -> None:
    _store(chain, mode="local", engine="fancy")
    state = read_provider(home=agent_home, name="chainprov")

    visible = prospective_visibility(state, values={})

    assert list(visible) == [f.key for f in state.fields]
    assert visible == {f.key: f.visible for f in state.fields}
    assert _shown(agent_home) == {"engine": True, "tuning": True, "token": True, "log_file": False, "pool": False}


def test_it_hides_what_a_cleared_controlling_field_no_longer_allows(agent_home: Path, chain: Path) -> None:
    _store(chain, mode="local", engine="fancy", workers=4)

    assert _shown(agent_home, clear=("mode",)) == {
        "engine": False,
        "tuning": True,  # a hidden field keeps its current value, and tuning follows engine's
        "token": False,
        "log_file": False,
        "pool": False,
    }
    assert _shown(agent_home, clear=("engine",)) == {
        "engine": True,
        "tuning": False,
        "token": True,
        "log_file": False,
        "pool": True,
    }


def test_it_lets_a_cleared_field_fall_back_to_its_env_variable_not_its_default(agent_home: Path, chain: Path) -> None:
    _store(chain, mode="local")
    (agent_home / ".env").write_text("CHAIN_MODE=local\n", encoding="utf-8")

    shown = _shown(agent_home, clear=("mode",))

    assert shown["engine"] is True and shown["token"] is True


def test_it_keeps_the_current_value_of_a_controlling_field_set_to_an_invalid_value(
    agent_home: Path, chain: Path
) -> None:
    _store(chain, mode="local", verbose=True, workers=4)

    shown = _shown(agent_home, values={"mode": "moon", "verbose": "perhaps", "workers": "many"})

    assert shown == {"engine": True, "tuning": False, "token": True, "log_file": True, "pool": True}
    plan = plan_save(home=agent_home, name="chainprov", values={"mode": "moon", "verbose": "perhaps"})
    assert set(plan.errors) == {"mode", "verbose"}


def test_it_compares_the_coerced_value_not_the_text_typed(agent_home: Path, chain: Path) -> None:
    _store(chain, mode="local")

    shown = _shown(agent_home, values={"verbose": " YES ", "workers": "4.0"})

    assert shown["log_file"] is True and shown["pool"] is True


def test_it_follows_a_chain_of_conditions_in_declaration_order(agent_home: Path, chain: Path) -> None:
    both = _shown(agent_home, values={"mode": "local", "engine": "fancy"})
    only_the_first = _shown(agent_home, values={"mode": "local"})
    only_the_second = _shown(agent_home, values={"engine": "fancy"})

    assert (both["engine"], both["tuning"]) == (True, True)
    assert (only_the_first["engine"], only_the_first["tuning"]) == (True, False)
    # engine is hidden while mode is cloud: its submitted value is ignored, so tuning stays hidden.
    assert (only_the_second["engine"], only_the_second["tuning"]) == (False, False)
    assert plan_save(home=agent_home, name="chainprov", values={"engine": "fancy"}).ignored["hidden"] == ["engine"]


def test_it_hides_the_end_of_a_chain_when_its_start_is_switched_off(agent_home: Path, chain: Path) -> None:
    _store(chain, mode="local", engine="basic", workers=4)

    shown = _shown(agent_home, values={"mode": "cloud", "engine": "fancy", "tuning": "t"})

    assert shown == {"engine": False, "tuning": False, "token": False, "log_file": False, "pool": False}


def test_it_accepts_a_model_loaded_by_the_caller_and_reads_or_writes_nothing(agent_home: Path, chain: Path) -> None:
    _store(chain, mode="local")
    schema = read_provider(home=agent_home, name="chainprov").schema
    model = load_model(home=agent_home, schema=schema, secret_store="env_file")
    before = sorted(os.listdir(agent_home)), chain.read_bytes()
    chain.write_text("{not json any more", encoding="utf-8")  # the model is what counts, not the disk

    visible = prospective_visibility(model, values={"engine": "fancy", "token": "s3cret"}, clear=["verbose"])

    assert (visible["engine"], visible["tuning"], visible["token"]) == (True, True, True)
    assert chain.read_text(encoding="utf-8") == "{not json any more"
    assert sorted(os.listdir(agent_home)) == before[0]
    assert model.data == {"mode": "local"} and model.env_over == {}, "the caller's model is left as it was"


def test_it_has_nothing_to_show_for_a_provider_without_a_schema(agent_home: Path) -> None:
    install_plugin(agent_home, "bare", source="CONFIG_SCHEMA = 3\n")

    state = read_provider(home=agent_home, name="bare")

    assert state.schema is None
    assert prospective_visibility(state, values={"x": "1"}) == {}

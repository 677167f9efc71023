"""Property: whatever valid values a save accepts, a fresh read gives back, in every backend."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from provider_schemas import read_provider, save_provider
from provider_schemas.values import to_edit_string
from tests.strategies import stripped_text

from .conftest import install_plugin

SAFE_TEXT = stripped_text(max_size=40, exclude="\r\n\x00")
NUMBERS = st.integers(min_value=-(10**12), max_value=10**12) | st.floats(
    allow_nan=False, allow_infinity=False, width=32
)
KEYS = st.text(max_size=5) | st.sampled_from(["yes", "null", "1.5", "on", "~", "- x"])
JSONS = st.lists(st.text(max_size=5) | KEYS, max_size=3) | st.dictionaries(KEYS, st.integers() | KEYS, max_size=3)


def fresh_home(tmp: str, name: str) -> Path:
    home = Path(tmp) / "hermes"
    home.mkdir()
    install_plugin(home, name, fixture=name)
    return home


def expected_number(value: float) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(note=SAFE_TEXT, limit=NUMBERS, tags=JSONS, enabled=st.booleans(), budget=st.sampled_from(["low", "mid", "high"]))
def test_it_reads_back_every_valid_json_file_save(user_home: Path, note, limit, tags, enabled, budget) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home = fresh_home(tmp, "jsonprov")
        save_provider(
            home=home,
            name="jsonprov",
            values={"note": note, "limit": limit, "tags": json.dumps(tags), "enabled": enabled, "budget": budget},
        )
        got = {f.key: f.value for f in read_provider(home=home, name="jsonprov").fields}
        assert got["note"] == note
        assert got["limit"] == expected_number(limit)
        assert got["tags"] == json.dumps(tags, ensure_ascii=False)
        assert got["enabled"] == ("true" if enabled else "false")
        assert got["budget"] == budget


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=SAFE_TEXT, endpoint=SAFE_TEXT, level=NUMBERS, auto=st.booleans(), token=SAFE_TEXT, extra=JSONS)
def test_it_reads_back_every_valid_config_yaml_save(user_home: Path, name, endpoint, level, auto, token, extra) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home = fresh_home(tmp, "yamlprov")
        (home / "config.yaml").write_text("# keep\nmodel: x\n", encoding="utf-8")
        save_provider(
            home=home,
            name="yamlprov",
            values={"name": name, "endpoint": endpoint, "level": level, "auto": auto, "token": token, "extra": extra},
        )
        state = read_provider(home=home, name="yamlprov")
        got = {f.key: f.value for f in state.fields}
        assert (got["name"], got["endpoint"], got["level"]) == (name, endpoint, expected_number(level))
        assert got["auto"] == to_edit_string(state.schema.fields[0], auto)
        assert got["extra"] == json.dumps(extra, ensure_ascii=False)
        assert {f.key: f for f in state.fields}["token"].is_set
        assert (home / "config.yaml").read_text(encoding="utf-8").startswith("# keep\nmodel: x\n")


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(base_url=SAFE_TEXT, count=NUMBERS, flag=st.booleans())
def test_it_reads_back_every_valid_env_file_save(user_home: Path, base_url, count, flag) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home = fresh_home(tmp, "envprov")
        (home / ".env").write_text("# mine\nOTHER='x y'\n", encoding="utf-8")
        save_provider(home=home, name="envprov", values={"base_url": base_url, "count": count, "flag": flag})
        got = {f.key: f.value for f in read_provider(home=home, name="envprov").fields}
        assert (got["base_url"], got["count"], got["flag"]) == (base_url, expected_number(count), str(flag).lower())
        assert (home / ".env").read_text(encoding="utf-8").startswith("# mine\nOTHER='x y'\n")

"""Declaration checks (docs/agent_formats.md §Provider declarations) and the linter behind `schema check`."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from provider_schemas import check_schema, declaration_problems, lint
from provider_schemas.cli import run_check
from provider_schemas.config_schema import (
    KIND_BOOL,
    KIND_JSON,
    KIND_NUMBER,
    KIND_SECRET,
    KIND_SELECT,
    STORAGE_CONFIG_YAML,
    STORAGE_ENV_FILE,
    STORAGE_JSON_FILE,
    ProviderConfigSchema,
    ProviderField,
    ProviderFieldOption,
)

from .conftest import FIXTURES

OPTS = (ProviderFieldOption("a", "A"), ProviderFieldOption("b", "B"))


def schema(*fields: ProviderField, **kw) -> ProviderConfigSchema:
    return ProviderConfigSchema(name=kw.pop("name", "p"), label="P", fields=fields, **kw)


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (schema(ProviderField("a", "A"), ProviderField("a", "Again")), "field 'a': duplicate key"),
        (schema(ProviderField("", "Empty")), "fields[0]: key must be a non-empty string"),
        (schema(ProviderField("a", "A", kind="colour")), "field 'a': unknown kind 'colour'"),
        (schema(ProviderField("a", "A", scope="planet")), "field 'a': scope must be 'host' or 'root'"),
        (schema(ProviderField("a", "A", kind=KIND_SELECT)), "field 'a': a select needs at least one option"),
        (
            schema(ProviderField("a", "A", kind=KIND_SELECT, options=(OPTS[0], OPTS[0]))),
            "field 'a': duplicate option value 'a'",
        ),
        (schema(ProviderField("a", "A", kind=KIND_BOOL, default="yes")), "field 'a': default 'yes' must be"),
        (schema(ProviderField("a", "A", kind=KIND_NUMBER, default="inf")), "is not a finite number"),
        (schema(ProviderField("a", "A", kind=KIND_JSON, default="3")), "is not a JSON object or array"),
        (schema(ProviderField("a", "A", env_fallbacks=("9LIVES",))), "env_fallbacks '9LIVES' is not a valid"),
        (
            schema(ProviderField("a", "A", kind=KIND_SECRET, env_key="LD_PRELOAD")),
            "env_key 'LD_PRELOAD' is a variable the panel must never write",
        ),
        (schema(ProviderField("a", "A", when={"b": "x"}), ProviderField("b", "B")), "not a field declared earlier"),
        (schema(ProviderField("a", "A", when={"a": "x"})), "when cannot refer to the field itself"),
        (schema(ProviderField("a", "A", required_unless=("zz",))), "required_unless refers to unknown field 'zz'"),
        (schema(ProviderField("a", "A", storage="yaml")), "field storage must be '' or 'env_file'"),
        (schema(ProviderField("a", "A", storage=STORAGE_ENV_FILE)), "a field stored in .env needs env_key"),
        (schema(storage="sqlite"), "unknown storage 'sqlite'"),
        (schema(storage=STORAGE_JSON_FILE, storage_path="../up.json"), "json_file storage needs a relative"),
        (schema(storage=STORAGE_JSON_FILE, storage_path="/abs.json"), "json_file storage needs a relative"),
        (schema(storage=STORAGE_CONFIG_YAML, storage_path="memory..x"), "config_yaml storage needs a dotted"),
    ],
)
def test_it_rejects_each_broken_declaration_with_a_message_naming_it(bad: ProviderConfigSchema, message: str) -> None:
    problems = declaration_problems(bad)
    assert problems, "expected a problem"
    assert message in problems[0].message
    with pytest.raises((TypeError, ValueError)):
        check_schema(bad)


def test_it_accepts_a_declaration_using_every_feature() -> None:
    good = schema(
        ProviderField("mode", "Mode", kind=KIND_SELECT, options=OPTS, default="a", seed_env=("P_MODE",)),
        ProviderField("key", "Key", kind=KIND_SECRET, env_key="P_KEY", required=True, required_when={"mode": "a"}),
        ProviderField("n", "N", kind=KIND_NUMBER, default="1e3", env_overrides=("P_N",), when={"mode": "b"}),
        ProviderField("j", "J", kind=KIND_JSON, default='["x"]', storage=STORAGE_ENV_FILE, env_key="P_J"),
        ProviderField("f", "F", kind=KIND_BOOL, default="false", required_unless=("n",)),
        storage=STORAGE_CONFIG_YAML,
        storage_path="plugins.p",
        storage_fallbacks=("memory.provider_config",),
    )
    assert declaration_problems(good) == []
    assert check_schema(good) is good


def test_it_flags_a_non_schema_object_as_a_type_error() -> None:
    (problem,) = declaration_problems({"name": "x"})
    assert problem.exc_type == "TypeError"
    with pytest.raises(TypeError):
        check_schema(None)


def test_it_lints_every_listed_problem_with_source_lines() -> None:
    findings = lint(FIXTURES / "lintme" / "config_schema.py")
    by_message = {f.message: f for f in findings}

    def find(fragment: str):
        matches = [f for m, f in by_message.items() if fragment in m]
        assert matches, f"no finding containing {fragment!r} in {list(by_message)}"
        return matches[0]

    assert find("'access_token': the key looks like a credential").severity == "warning"
    assert find("'access_token': the key looks like a credential").line == 18
    assert find("'password': a secret without env_key").severity == "error"  # issue 14: the panel cannot store it
    assert find("'on': empty label").line == 20
    assert find("'shown': when expects 'mode' to be 'b'").severity == "error"
    assert find("'shown': when expects 'mode' to be 'b'").line == 21
    assert find("'flagged': when expects 'on' to be 'yes'").severity == "error"
    assert find("env var SHARED_KEY is also the env_key of field 'k1'").line == 24
    assert [f.line for f in findings] == sorted(f.line for f in findings)


def test_it_lints_a_file_that_fails_to_load_as_one_error_at_its_line() -> None:
    (finding,) = lint(FIXTURES / "broken_syntax" / "config_schema.py")
    assert finding.severity == "error"
    assert finding.message.startswith("SyntaxError:")
    assert finding.line == 5


def test_it_lints_all_declaration_problems_not_just_the_first(tmp_path: Path) -> None:
    path = tmp_path / "twice" / "config_schema.py"
    path.parent.mkdir()
    path.write_text(
        "from plugins.memory.config_schema import ProviderConfigSchema, ProviderField\n"
        "CONFIG_SCHEMA = ProviderConfigSchema(name='twice', label='T', fields=(\n"
        "    ProviderField('a', 'A'),\n"
        "    ProviderField('a', 'A again'),\n"
        "    ProviderField('b', 'B', kind='nope'),\n"
        "))\n",
        encoding="utf-8",
    )
    errors = [f for f in lint(path) if f.severity == "error"]
    assert [(f.key, f.line) for f in errors] == [("a", 4), ("b", 5)]


def test_it_lints_the_directory_name_against_the_declared_name(tmp_path: Path) -> None:
    path = tmp_path / "other" / "config_schema.py"
    path.parent.mkdir()
    path.write_bytes((FIXTURES / "example" / "config_schema.py").read_bytes())
    assert any("does not match the provider directory 'other'" in f.message for f in lint(path))
    assert not [f for f in lint(path, name="example") if f.severity == "error"]


def test_it_exits_1_on_errors_and_0_on_warnings_only() -> None:
    out, err = io.StringIO(), io.StringIO()
    assert run_check(FIXTURES / "lintme" / "config_schema.py", out=out, err=err) == 1
    assert "lintme/config_schema.py:21: error:" in out.getvalue()
    clean = FIXTURES / "example" / "config_schema.py"
    out = io.StringIO()
    assert run_check(clean, out=out, err=err) == 0
    assert out.getvalue().strip().endswith("OK")


def test_it_exits_1_for_a_path_that_is_not_a_file(tmp_path: Path) -> None:
    err = io.StringIO()
    assert run_check(tmp_path / "missing.py", out=io.StringIO(), err=err) == 1
    assert "no such file" in err.getvalue()


_ANY_VALUE = st.one_of(
    st.none(), st.booleans(), st.integers(), st.text(max_size=8), st.sampled_from(["secret", "select", "number", "a"]),
    st.lists(st.one_of(st.text(max_size=4), st.integers(), st.lists(st.integers(), max_size=2)), max_size=3),
    st.dictionaries(st.text(max_size=4), st.one_of(st.text(max_size=4), st.integers()), max_size=2),
    st.just((ProviderFieldOption("a", "A"), "b", None)),
)
_FIELD_ATTRIBUTES = ("key", "label", "kind", "default", "options", "env_key", "env_fallbacks", "when",
                     "required_when", "env_overrides", "seed_env")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    fields=st.one_of(
        _ANY_VALUE,
        st.lists(
            st.one_of(_ANY_VALUE, st.builds(ProviderField, **{a: _ANY_VALUE for a in _FIELD_ATTRIBUTES})),
            max_size=4,
        ).map(tuple),
    )
)
def test_it_lints_any_ill_typed_declaration_without_raising(fields: object) -> None:
    schema = ProviderConfigSchema(name="demo", label="Demo", fields=fields)

    findings = lint(schema, name="demo")

    assert all(f.severity in {"error", "warning"} for f in findings)
    if not isinstance(fields, (tuple, list)):
        assert any(f.severity == "error" for f in findings)  # the declaration checks report it


def _lint_fields(*fields: ProviderField) -> list[str]:
    return [f.message for f in lint(ProviderConfigSchema(name="demo", label="Demo", fields=fields), name="demo")]


MODE = ProviderField("mode", "Mode", kind=KIND_SELECT, default="a", options=OPTS)


@pytest.mark.parametrize(
    ("fields", "fragment"),
    [
        ((ProviderField("api_key", "API key"),), "'api_key': the key looks like a credential"),
        ((ProviderField("apiKey", "API key", kind=KIND_JSON),), "'apiKey': the key looks like a credential"),
        ((ProviderField("client_secret", "Client"),), "'client_secret': the key looks like a credential"),
        ((ProviderField("token", "Token", kind=KIND_SECRET),), "'token': a secret without env_key"),
        ((ProviderField("url", " "),), "'url': empty label"),
        ((MODE, ProviderField("url", "URL", when={"mode": "c"})), "'url': when expects 'mode' to be 'c'"),
        (
            (ProviderField("a", "A", kind=KIND_SECRET, env_key="X_KEY"),
             ProviderField("b", "B", kind=KIND_SECRET, env_key="X_KEY")),
            "'b': env var X_KEY is also the env_key of field 'a'",
        ),
    ],
)
def test_it_reports_each_advice_rule_when_it_applies(fields, fragment) -> None:
    assert any(fragment in message for message in _lint_fields(*fields)), _lint_fields(*fields)


@pytest.mark.parametrize(
    "fields",
    [
        (ProviderField("key_prefix", "Key prefix"),),  # mentions a key, names none
        (ProviderField("token_budget", "Token budget", kind=KIND_NUMBER, default="500"),),
        (ProviderField("secret_sauce_enabled", "Secret sauce", kind=KIND_BOOL),),
        (ProviderField("max_tokens", "Max tokens"),),
        (ProviderField("api_key", "API key", kind=KIND_SECRET, env_key="DEMO_API_KEY"),),
        (ProviderField("url", "URL"),),
        (MODE, ProviderField("url", "URL", when={"mode": "b"})),
        (ProviderField("a", "A", kind=KIND_SECRET, env_key="A_KEY"),
         ProviderField("b", "B", kind=KIND_SECRET, env_key="B_KEY")),
    ],
)
def test_it_stays_quiet_about_the_near_misses_of_each_advice_rule(fields) -> None:
    assert _lint_fields(*fields) == []

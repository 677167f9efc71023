"""Declaration checks and lint for the constraint attributes, and `schema check` (plain, --static,
--strict) agreeing on a corpus of broken files."""

from __future__ import annotations

import io
import textwrap
from pathlib import Path

import pytest

import provider_schemas
from provider_schemas.cli import run_check
from provider_schemas.config_schema import (
    KIND_JSON,
    KIND_NUMBER,
    KIND_SECRET,
    KIND_TEXT,
    ProviderConfigSchema,
    ProviderField,
)
from provider_schemas.loading.lint import lint
from provider_schemas.loading.static_eval import StaticEvalError, evaluate_schema_source, run_static_check


def schema(*fields: ProviderField) -> ProviderConfigSchema:
    return ProviderConfigSchema(name="demo", label="Demo", fields=fields)


def messages(*fields: ProviderField) -> list[str]:
    return [f"{f.severity}: {f.message}" for f in lint(schema(*fields), name="demo")]


@pytest.mark.parametrize(
    ("field", "expected"),
    [
        (ProviderField("n", "N", kind=KIND_TEXT, minimum=1), "error: field 'n': minimum applies to number fields only"),
        (ProviderField("n", "N", kind=KIND_NUMBER, maximum="9"), "error: field 'n': maximum must be a finite number"),
        (ProviderField("n", "N", kind=KIND_NUMBER, minimum=float("inf")), "error: field 'n': minimum must be a finite"),
        (ProviderField("n", "N", kind=KIND_TEXT, integer=True), "error: field 'n': integer applies to number fields"),
        (ProviderField("n", "N", kind=KIND_NUMBER, integer="yes"), "error: field 'n': integer must be True or False"),
        (ProviderField("t", "T", pattern="a("), "error: field 't': pattern 'a(' does not compile"),
        (ProviderField("t", "T", kind=KIND_NUMBER, pattern="a"), "error: field 't': pattern applies to text fields"),
        (ProviderField("t", "T", format="email"), "error: field 't': unknown format 'email'"),
        (ProviderField("t", "T", kind=KIND_JSON, format="url"), "error: field 't': format applies to text fields"),
        (ProviderField("t", "T", max_length=0), "error: field 't': max_length must be a positive whole number"),
        (ProviderField("t", "T", keywords="a,b"), "error: field 't': keywords must be a tuple of strings"),
        (ProviderField("t", "T", kind=KIND_NUMBER, suggestions=("a",)), "error: field 't': suggestions applies to"),
        (ProviderField("j", "J", json_shape={"type": "array"}), "error: field 'j': json_shape applies to json fields"),
        (ProviderField("j", "J", kind=KIND_JSON, json_shape={"oneOf": []}), "error: field 'j': json_shape: unknown "
                                                                             "keyword 'oneOf'"),
        (ProviderField("j", "J", kind=KIND_JSON, json_shape={"type": "tuple"}), "unknown type 'tuple'"),
        (ProviderField("j", "J", kind=KIND_JSON, json_shape={"items": {"pattern": "("}}), "items: pattern '('"),
        (ProviderField("j", "J", kind=KIND_JSON, json_shape={"anyOf": [{"type": "string"}]}), "anyOf must be a list "
                                                                                              "of at least two shapes"),
        (ProviderField("j", "J", kind=KIND_JSON, json_shape={"anyOf": [{"type": "string"}, {"type": "set"}]}),
         "anyOf[1]: unknown type 'set'"),
        (ProviderField("n", "N", kind=KIND_NUMBER, minimum=5, maximum=1), "error: field 'n': minimum 5 is greater than"
                                                                           " maximum 1"),
        (ProviderField("n", "N", kind=KIND_NUMBER, default="0", minimum=1), "error: field 'n': default '0' breaks its "
                                                                             "own minimum constraint"),
        (ProviderField("t", "T", default="a-b", pattern="[a-z]+"), "error: field 't': default 'a-b' breaks its own "
                                                                    "pattern constraint"),
        (ProviderField("j", "J", kind=KIND_JSON, default="{}", json_shape={"type": "array"}), "breaks its own "
                                                                                               "json_shape"),
        (ProviderField("n", "N", kind=KIND_NUMBER, integer=True, maximum=2.5), "warning: field 'n': integer field "
                                                                                "with a fractional maximum 2.5"),
        (ProviderField("t", "T", pattern_hint="words"), "warning: field 't': pattern_hint without a pattern"),
        (ProviderField("s", "S", kind=KIND_SECRET), "error: field 's': a secret without env_key cannot be stored"),
    ],
)
def test_it_reports_each_constraint_problem(field, expected):
    found = messages(field)

    assert any(expected in m for m in found), found


@pytest.mark.parametrize(
    "field",
    [
        ProviderField("n", "N", kind=KIND_NUMBER, default="5", integer=True, minimum=1, maximum=9, unit="turns"),
        ProviderField("n", "N", kind=KIND_NUMBER, minimum=0.25, maximum=0.25),
        ProviderField("t", "T", default="ab", pattern="[a-z]+", pattern_hint="letters", format="", max_length=3),
        ProviderField("t", "T", format="url", suggestions=("http://localhost",)),
        ProviderField("t", "T", default="x", keywords=("x", "y"), json_shape={"type": "array", "minItems": 1}),
        ProviderField("j", "J", kind=KIND_JSON, default='["a"]', json_shape={
            "type": "array", "items": {"type": "string", "pattern": "[a-z]+"}, "minItems": 1}),
        ProviderField("j", "J", kind=KIND_JSON, json_shape={
            "type": "object", "required": ["a"], "properties": {"a": {"enum": [1, 2]}},
            "additionalProperties": {"type": "boolean"}}),
        ProviderField("s", "S", kind=KIND_SECRET, env_key="DEMO_KEY"),
    ],
)
def test_it_finds_nothing_wrong_with_well_formed_constraints(field):
    assert messages(field) == []


def test_a_0_19_0_declaration_means_what_it_meant():
    field = ProviderField("size", "Size", KIND_NUMBER, "5")

    assert (field.minimum, field.maximum, field.integer, field.pattern, field.format) == (None, None, False, "", "")
    added = (field.max_length, field.json_shape, field.keywords, field.suggestions, field.unit)
    assert added == (None, None, (), (), "")
    assert messages(field) == []


# --- schema check: plain and --static agree on a corpus of broken files --------------------------

HEADER = """\
from plugins.memory.config_schema import (
    KIND_JSON, KIND_NUMBER, KIND_SECRET, KIND_TEXT, ProviderConfigSchema, ProviderField,
)

"""
CORPUS = {
    "wrong_name": 'CONFIG_SCHEMA = ProviderConfigSchema(name="other", label="X")\n',
    "min_over_max": 'CONFIG_SCHEMA = ProviderConfigSchema(name="demo", label="X", fields=(\n'
    '    ProviderField("n", "N", kind=KIND_NUMBER, minimum=9, maximum=1),\n))\n',
    "bad_pattern": 'CONFIG_SCHEMA = ProviderConfigSchema(name="demo", label="X", fields=(\n'
    '    ProviderField("a", "A"),\n'
    '    ProviderField("t", "T", pattern="(("),\n))\n',
    "default_outside": 'CONFIG_SCHEMA = ProviderConfigSchema(name="demo", label="X", fields=(\n'
    '    ProviderField("n", "N", kind=KIND_NUMBER, default="0", minimum=1),\n))\n',
    "bad_shape": 'CONFIG_SCHEMA = ProviderConfigSchema(name="demo", label="X", fields=(\n'
    '    ProviderField("j", "J", kind=KIND_JSON, json_shape={"type": "array", "maxItems": 2}),\n))\n',
    "secret_no_env": 'CONFIG_SCHEMA = ProviderConfigSchema(name="demo", label="X", fields=(\n'
    '    ProviderField("s", "S", kind=KIND_SECRET),\n))\n',
    "hint_without_pattern": 'CONFIG_SCHEMA = ProviderConfigSchema(name="demo", label="X", fields=(\n'
    '    ProviderField("t", "T", pattern_hint="a hint"),\n))\n',
}


def _file(tmp_path: Path, name: str) -> Path:
    path = tmp_path / name / "demo" / "config_schema.py"
    path.parent.mkdir(parents=True)
    path.write_text(HEADER + CORPUS[name], encoding="utf-8")
    return path


def _run(fn, path: Path, **kwargs) -> tuple[int, list[str]]:
    out = io.StringIO()
    status = fn(path, out=out, err=io.StringIO(), **kwargs)
    return status, [line for line in out.getvalue().splitlines() if ": error: " in line or ": warning: " in line]


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_static_and_plain_checks_report_the_same_findings_at_the_same_lines(tmp_path, name):
    path = _file(tmp_path, name)

    plain = _run(run_check, path)
    static = _run(run_static_check, path)

    assert plain == static
    assert plain[1], "every file of the corpus has something to report"


def test_it_reports_a_name_that_differs_from_the_directory_in_both_checks(tmp_path):
    path = _file(tmp_path, "wrong_name")

    for fn in (run_check, run_static_check):
        status, lines = _run(fn, path)
        assert status == 1
        assert lines == [f"{path}: error: name 'other' does not match the provider directory 'demo'"]


def test_strict_makes_warnings_fail_and_plain_lets_them_pass(tmp_path):
    path = _file(tmp_path, "hint_without_pattern")

    for fn in (run_check, run_static_check):
        assert _run(fn, path)[0] == 0
        assert _run(fn, path, strict=True)[0] == 1


def test_strict_passes_a_clean_bundled_schema():
    path = Path(provider_schemas.__file__).resolve().parent / "bundled" / "honcho" / "config_schema.py"

    assert _run(run_check, path, strict=True) == (0, [])
    assert _run(run_static_check, path, strict=True) == (0, [])


def test_the_loader_still_loads_a_secret_without_env_key(tmp_path):
    path = _file(tmp_path, "secret_no_env")

    loaded = provider_schemas.load_schema(path)

    assert loaded.fields[0].env_key is None


def test_the_static_evaluator_builds_every_constraint_attribute():
    source = HEADER + textwrap.dedent(
        """\
        SHAPE = {"type": "array", "items": {"type": "string"}, "minItems": 1}
        CONFIG_SCHEMA = ProviderConfigSchema(name="demo", label="X", fields=(
            ProviderField("n", "N", kind=KIND_NUMBER, integer=True, minimum=-1, maximum=2.5, unit="s"),
            ProviderField("t", "T", pattern=r"[a-z]+", pattern_hint="letters", format="host", max_length=9,
                          suggestions=("a", "b")),
            ProviderField("k", "K", keywords=("x",), json_shape=SHAPE),
            ProviderField("j", "J", kind=KIND_JSON, json_shape=SHAPE),
        ))
        """
    )

    evaluated = evaluate_schema_source(source)

    n, t, k, j = evaluated.fields
    assert (n.integer, n.minimum, n.maximum, n.unit) == (True, -1, 2.5, "s")
    assert (t.pattern, t.pattern_hint, t.format, t.max_length, t.suggestions) == ("[a-z]+", "letters", "host", 9,
                                                                                   ("a", "b"))
    assert k.keywords == ("x",) and k.json_shape == j.json_shape == {"type": "array", "items": {"type": "string"},
                                                                      "minItems": 1}


def test_the_static_evaluator_refuses_a_broken_constraint_at_its_line():
    source = HEADER + 'CONFIG_SCHEMA = ProviderConfigSchema(name="demo", label="X", fields=(\n' \
        '    ProviderField("a", "A"),\n    ProviderField("t", "T", pattern="(("),\n))\n'

    with pytest.raises(StaticEvalError) as caught:
        evaluate_schema_source(source)

    assert caught.value.line == 7
    assert "pattern '((' does not compile" in caught.value.message

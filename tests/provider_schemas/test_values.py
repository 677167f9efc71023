"""Per-kind coercion, validation messages and the edited-string form (docs/agent_formats.md §Reading provider values,
§Saving provider values, §Saving provider values)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from provider_schemas.config_schema import (
    KIND_BOOL,
    KIND_JSON,
    KIND_NUMBER,
    KIND_SECRET,
    KIND_SELECT,
    STORAGE_ENV_FILE,
    STORAGE_JSON_FILE,
    ProviderField,
    ProviderFieldOption,
)
from provider_schemas.values import (
    FieldError,
    coerce,
    normalise_input,
    parse_number,
    to_edit_string,
    when_matches,
)

TEXT = ProviderField("t", "T")
SELECT = ProviderField(
    "s",
    "S",
    kind=KIND_SELECT,
    default="mid",
    options=(ProviderFieldOption("low", "L"), ProviderFieldOption("mid", "M")),
)
SELECT_NO_DEFAULT = ProviderField("s", "S", kind=KIND_SELECT, options=(ProviderFieldOption("a", "A"),))
BOOL = ProviderField("b", "B", kind=KIND_BOOL)
NUMBER = ProviderField("n", "N", kind=KIND_NUMBER)
JSON = ProviderField("j", "J", kind=KIND_JSON)
SECRET = ProviderField("k", "K", kind=KIND_SECRET, env_key="K")


def run(field: ProviderField, raw: object, storage: str = STORAGE_JSON_FILE, current: str | None = None):
    result = coerce(field, raw, storage=storage, current=current)
    return result.action, result.value


def error(field: ProviderField, raw: object, storage: str = STORAGE_JSON_FILE) -> str:
    with pytest.raises(FieldError) as caught:
        coerce(field, raw, storage=storage)
    return str(caught.value)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [(None, ""), (True, "true"), (False, "false"), ({"a": 1}, '{"a": 1}'), ([1, "x"], '[1, "x"]'), (12, "12"),
     (2.5, "2.5"), ("  as is ", "  as is ")],
)  # fmt: skip
def test_it_normalises_any_json_input_to_a_string(raw: object, expected: str) -> None:
    assert normalise_input(raw) == expected


def test_it_strips_text_and_clears_on_blank() -> None:
    assert run(TEXT, "  hello  ") == ("set", "hello")
    assert run(TEXT, "   ") == ("clear", None)
    assert run(TEXT, None) == ("clear", None)


def test_it_rejects_nul_in_text_always_and_line_breaks_only_for_env_file_storage() -> None:
    assert error(TEXT, "a\x00b") == "'t' must not contain line breaks or NUL characters"
    assert run(TEXT, "line one\nline two") == ("set", "line one\nline two")
    assert error(TEXT, "line one\nline two", STORAGE_ENV_FILE) == "'t' must not contain line breaks or NUL characters"
    assert error(TEXT, "a\rb", STORAGE_ENV_FILE) == "'t' must not contain line breaks or NUL characters"


def test_it_accepts_only_declared_options_or_the_value_stored_now() -> None:
    assert run(SELECT, "low") == ("set", "low")
    assert error(SELECT, "ultra") == "Invalid value for 's'"
    assert error(SELECT, "LOW") == "Invalid value for 's'"
    assert run(SELECT, "legacy", current="legacy") == ("set", "legacy")


def test_it_writes_the_default_for_a_blank_select_or_clears_when_there_is_none() -> None:
    assert run(SELECT, "") == ("set", "mid")
    assert run(SELECT_NO_DEFAULT, "") == ("clear", None)


@pytest.mark.parametrize("word", ["true", "TRUE", "1", "yes", "On", True])
def test_it_reads_true_words_as_a_native_true(word: object) -> None:
    assert run(BOOL, word) == ("set", True)


@pytest.mark.parametrize("word", ["false", "False", "0", "no", "OFF", False])
def test_it_reads_false_words_as_a_native_false(word: object) -> None:
    assert run(BOOL, word) == ("set", False)


@pytest.mark.parametrize("word", ["", "maybe", "2", "y", None])
def test_it_rejects_anything_else_as_a_boolean_including_blank(word: object) -> None:
    assert error(BOOL, word) == "Invalid boolean for 'b'"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("12", 12), ("-3", -3), ("+7", 7), ("12.0", 12), ("1e3", 1000), ("2.5", 2.5), (".5", 0.5), (4, 4), (0.25, 0.25),
     ("123456789012345678901234567890", 123456789012345678901234567890)],
)  # fmt: skip
def test_it_stores_numbers_as_ints_when_integral_else_floats(raw: object, expected: float) -> None:
    action, value = run(NUMBER, raw)
    assert action == "set" and value == expected and type(value) is type(expected)


@pytest.mark.parametrize("raw", ["12x", "inf", "-Infinity", "nan", "1e400", "1_000", "0x10", "١٢", "1,5", "--1"])
def test_it_rejects_unparseable_and_non_finite_numbers(raw: str) -> None:
    assert error(NUMBER, raw) == "Invalid number for 'n'"


def test_it_clears_a_blank_number() -> None:
    assert run(NUMBER, " ") == ("clear", None)


def test_it_parses_json_objects_and_arrays_natively() -> None:
    assert run(JSON, '{"a": [1, 2]}') == ("set", {"a": [1, 2]})
    assert run(JSON, ["x"]) == ("set", ["x"])
    assert run(JSON, "") == ("clear", None)


def test_it_rejects_bad_json_and_json_scalars_with_their_messages() -> None:
    assert error(JSON, "{bad") == "Invalid JSON for 'j'"
    assert error(JSON, "[NaN]") == "Invalid JSON for 'j'"
    assert error(JSON, '{"a": Infinity}') == "Invalid JSON for 'j'"
    assert error(JSON, "3") == "'j' must be a JSON object or array"
    assert error(JSON, '"text"') == "'j' must be a JSON object or array"


def test_it_gives_secrets_keep_replace_and_rejects_line_breaks() -> None:
    assert run(SECRET, "") == ("keep", None)
    assert run(SECRET, None) == ("keep", None)
    assert run(SECRET, "   ") == ("keep", None)
    assert run(SECRET, "  sk-123  ") == ("set", "sk-123")
    assert error(SECRET, "sk-1\nsk-2") == "'k' must not contain line breaks or NUL characters"
    assert error(SECRET, "sk\x00") == "'k' must not contain line breaks or NUL characters"


def test_it_never_puts_a_submitted_secret_in_an_error_message() -> None:
    message = error(SECRET, "hunter2-secret\nx")
    assert "hunter2" not in message


@pytest.mark.parametrize(
    ("field", "stored", "shown"),
    [(BOOL, "yes", "true"), (BOOL, "false", "false"), (BOOL, 0, "false"), (BOOL, 2, "true"), (BOOL, True, "true"),
     (JSON, {"a": [1]}, '{"a": [1]}'), (NUMBER, 12, "12"), (NUMBER, 2.5, "2.5"), (TEXT, None, ""),
     (SELECT, None, "mid"),
     (TEXT, "é", "é")],
)  # fmt: skip
def test_it_serialises_stored_values_to_the_edited_string(field: ProviderField, stored: object, shown: str) -> None:
    assert to_edit_string(field, stored) == shown


def test_it_evaluates_when_as_an_exact_and_over_all_keys() -> None:
    effective = {"mode": "local", "on": "true"}
    assert when_matches(None, effective)
    assert when_matches({"mode": "local"}, effective)
    assert when_matches({"mode": "local", "on": "true"}, effective)
    assert not when_matches({"mode": "local", "on": "false"}, effective)
    assert not when_matches({"mode": "Local"}, effective)
    assert not when_matches({"missing": ""}, effective)


@given(st.integers(min_value=-(10**30), max_value=10**30))
def test_it_round_trips_every_integer_exactly(number: int) -> None:
    assert parse_number(str(number)) == number


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_it_round_trips_every_finite_float_through_its_text(number: float) -> None:
    parsed = parse_number(repr(number))
    assert parsed == number


@settings(max_examples=60)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=8),
        lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=6), c, max_size=4),
        max_leaves=12,
    )
)
def test_it_accepts_any_json_container_it_serialises(value: object) -> None:
    text = json.dumps(value)
    if isinstance(value, (dict, list)):
        assert run(JSON, text) == ("set", value)
    else:
        assert error(JSON, text) in ("'j' must be a JSON object or array", "Invalid JSON for 'j'")

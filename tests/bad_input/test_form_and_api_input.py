"""Hostile or malformed form and API input: missing and unknown fields, 1 MB values, NUL,
right-to-left and zero-width characters, wrong JSON types, bodies that are not JSON at all.
Each gets a clear message and a 4xx status, and writes nothing."""

from __future__ import annotations

import pytest

from tests.bad_input.helpers import api_put, assert_refused, assert_unchanged, others_still_work, snapshot

pytestmark = pytest.mark.django_db

CONFIG = "/api/memory/providers/hindsight/config"
MEGABYTE = "x" * (1024 * 1024)
INVISIBLE = {
    "right_to_left_override": "bank\u202eeno",
    "right_to_left_isolate": "bank\u2067one\u2069",
    "zero_width_space": "bank\u200bone",
    "zero_width_joiner": "bank\u200done",
    "byte_order_mark_inside": "bank\ufeffone",
}

# (body, status, words the detail must contain)
BODIES = {
    "empty_body": (b"", 422, "must be a JSON object"),
    "not_json": (b"values=bank_id", 422, "not valid JSON"),
    "not_utf8": (b'{"values": {"bank_id": "\xff"}}', 422, "not valid JSON"),
    "array": ([["bank_id", "b"]], 422, "must be a JSON object"),
    "string": ("\"values\"", 422, "must be a JSON object"),
    "number": (b"42", 422, "must be a JSON object"),
    "values_a_list": ({"values": ["bank_id", "b"]}, 422, "'values' must be an object"),
    "values_a_string": ({"values": "bank_id=b"}, 422, "'values' must be an object"),
    "clear_a_string": ({"values": {}, "clear": "api_key"}, 422, "'clear' must be a list of strings"),
    "clear_of_numbers": ({"values": {}, "clear": [1, 2]}, 422, "'clear' must be a list of strings"),
    "deeply_nested": (b"[" * 100_000 + b"]" * 100_000, 422, "not valid JSON"),
    "integer_too_long": (b'{"values": {"timeout": ' + b"9" * 5000 + b"}}", 422, "not valid JSON"),
    "over_the_upload_limit": (b'{"values": {"bank_id": "' + b"x" * 3_000_000 + b'"}}', 422, "too large"),
    "nul_in_text": ({"values": {"bank_id": "bank\u0000one"}}, 400, "must not contain line breaks or NUL"),
    "nul_in_secret": ({"values": {"api_key": "sk\u0000x"}}, 400, "must not contain line breaks or NUL"),
    "line_break_in_secret": ({"values": {"api_key": "sk\nEVIL=1"}}, 400, "must not contain line breaks or NUL"),
    "megabyte_text": ({"values": {"bank_id": MEGABYTE}}, 400, "too long"),
    "megabyte_secret": ({"values": {"api_key": MEGABYTE}}, 400, "too long"),
    "megabyte_json": ({"values": {"recall_tags": [MEGABYTE]}}, 400, "too long"),
    "number_as_list": ({"values": {"timeout": [1, 2]}}, 400, "Invalid number for 'timeout'"),
    "number_infinite": ({"values": {"timeout": "inf"}}, 400, "Invalid number for 'timeout'"),
    "bool_as_object": ({"values": {"auto_recall": {"yes": True}}}, 400, "Invalid boolean for 'auto_recall'"),
    "json_as_scalar": ({"values": {"recall_tags": 5}}, 400, "must be a JSON object or array"),
    "json_invalid_text": ({"values": {"recall_tags": "[unclosed"}}, 400, "Invalid JSON for 'recall_tags'"),
    "json_nested_deeply": ({"values": {"recall_tags": "[" * 30_000 + "]" * 30_000}}, 400, "recall_tags"),
    "select_outside_options": ({"values": {"recall_budget": "ultra"}}, 400, "Invalid value for 'recall_budget'"),
    "set_and_clear": ({"values": {"bank_id": "b"}, "clear": ["bank_id"]}, 400, "cannot be both set and cleared"),
    **{name: ({"values": {"bank_id": value}}, 400, "invisible") for name, value in INVISIBLE.items()},
}


@pytest.mark.parametrize("case", sorted(BODIES))
def test_it_refuses_bad_api_bodies_with_a_clear_message(owner_client, home, case):
    body, status, words = BODIES[case]
    before = snapshot(home)

    response = api_put(owner_client, CONFIG, body)

    assert_refused(response, words, statuses=(status,))
    assert isinstance(response.json()["detail"], str)
    assert_unchanged(home, before)


def test_it_reports_every_invalid_field_at_once(owner_client, home):
    response = api_put(owner_client, CONFIG, {"values": {"timeout": "soon", "recall_budget": "ultra",
                                                         "auto_recall": "maybe", "api_key": "keep-out"}})

    errors = response.json()["errors"]
    assert response.status_code == 400
    assert set(errors) == {"timeout", "recall_budget", "auto_recall"}
    assert not (home / ".env").exists()


def test_it_ignores_unknown_fields_and_says_so(owner_client, home):
    before = snapshot(home)

    response = api_put(owner_client, CONFIG, {"values": {"no_such_field": 1, "../../etc": "x"},
                                              "clear": ["also_unknown"]})

    assert response.status_code == 200
    assert response.json()["written"] == []
    assert set(response.json()["ignored"]["unknown"]) == {"no_such_field", "../../etc", "also_unknown"}
    assert_unchanged(home, before)


def test_it_refuses_a_bad_activation_body(owner_client, home):
    before = snapshot(home)

    cases = [
        (api_put(owner_client, "/api/memory/provider", {"provider": ["hindsight"]}), 422, "must be a string"),
        (api_put(owner_client, "/api/memory/provider", b"nope"), 422, "not valid JSON"),
        (api_put(owner_client, "/api/memory/provider", ["hindsight"]), 422, "JSON object"),
        (api_put(owner_client, "/api/memory/provider", {"provider": "x" * 100_000}), 400, "Unknown memory provider"),
        (api_put(owner_client, "/api/memory/provider", {"provider": "hind\u0000sight"}), 400,
         "Unknown memory provider"),
    ]

    for response, status, words in cases:
        assert_refused(response, words, statuses=(status,))
    assert_unchanged(home, before)


# --- panel forms -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "words"), [
    (MEGABYTE, "Enter at most 65,536 characters."),
    ("bank\u0000one", "Enter the value on one line"),
    (INVISIBLE["right_to_left_override"], "invisible"),
    (INVISIBLE["zero_width_space"], "invisible"),
])
def test_it_refuses_bad_values_in_the_provider_form(owner_client, home, value, words):
    before = snapshot(home)

    review = owner_client.post("/providers/hindsight/review/", {"v:bank_id": value, "o:bank_id": "hermes"})
    save = owner_client.post("/providers/hindsight/save/", {"v:bank_id": value, "o:bank_id": "hermes"})

    assert_refused(review, words, statuses=(400,))
    assert_refused(save, words, statuses=(400,))
    assert_unchanged(home, before)
    others_still_work(owner_client, home)


def test_it_answers_a_provider_form_without_fields_with_nothing_to_save(owner_client, home):
    before = snapshot(home)

    response = owner_client.post("/providers/hindsight/review/", {})

    assert response.status_code == 200
    assert "Nothing to save" in response.content.decode()
    assert_unchanged(home, before)


def test_it_refuses_too_many_form_fields_with_400(owner_client, home):
    before = snapshot(home)

    response = owner_client.post("/providers/hindsight/review/", {f"v:f{i}": "x" for i in range(1500)})

    assert response.status_code == 400
    assert_unchanged(home, before)


@pytest.mark.parametrize(("data", "words"), [
    ({"next": "/memory/"}, "Write the text of the entry"),
    ({"content": "   \n\t "}, "Write the text of the entry"),
    ({"content": "x" * 300_000}, "at most"),
    ({"content": "fact with \u0000 NUL"}, "Null characters are not allowed"),
    ({"content": "fact \u202e with override"}, "U+202E"),
    ({"content": "zero\u200bwidth fact"}, "U+200B"),
])
def test_it_refuses_bad_memory_entry_forms(owner_client, home, data, words):
    (home / "memories").mkdir()
    (home / "memories" / "MEMORY.md").write_text("Existing fact.")
    before = snapshot(home)

    response = owner_client.post("/memory/memory/add/", data)

    assert_refused(response, words, statuses=(400, 409, 422))
    assert_unchanged(home, before)


@pytest.mark.parametrize(("data", "words"), [
    ({"v:memory_char_limit": "lots", "o:memory_char_limit": "2200"}, "memory_char_limit"),
    ({"v:memory_char_limit": "9" * 5000, "o:memory_char_limit": "2200"}, "memory_char_limit"),
    ({"v:write_approval": "maybe", "o:write_approval": "false"}, "write_approval"),
    ({"v:provider": "../../etc", "o:provider": ""}, "Unknown memory provider"),
    ({"v:memory_char_limit": "\u202e2200", "o:memory_char_limit": "2200"}, "memory_char_limit"),
])
def test_it_refuses_bad_memory_settings(owner_client, home, data, words):
    (home / "config.yaml").write_text("memory:\n  provider: ''\n")
    before = snapshot(home)

    response = owner_client.post("/settings/", data)

    assert_refused(response, words, statuses=(400,))
    assert_unchanged(home, before)

"""Field constraints (docs/field_constraints.md): every kind is accepted at and inside its bounds and
refused just outside, in the form (the message for people at the field, nothing written) and in the
API (400, 0.19.0 wording in ``errors``, the failed constraint in ``field_errors``, nothing written)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.utils import translation

from admin_panel.localisation import localise_message
from tests.bad_input.helpers import api_put
from tests.providers_ui.browserless import as_post, form_fields
from tests.providers_ui.helpers import snapshot_files, user_plugin

pytestmark = pytest.mark.django_db

SCHEMA = '''
from plugins.memory.config_schema import KIND_JSON, KIND_NUMBER, KIND_TEXT, ProviderConfigSchema, ProviderField

CONFIG_SCHEMA = ProviderConfigSchema(
    name="limits",
    label="Limits",
    fields=(
        ProviderField("tokens", "Tokens", kind=KIND_NUMBER, integer=True, minimum=1, maximum=100000, unit="tokens"),
        ProviderField("ratio", "Ratio", kind=KIND_NUMBER, minimum=0.25, maximum=60, unit="seconds"),
        ProviderField("floor", "Floor", kind=KIND_NUMBER, minimum=0),
        ProviderField("tag", "Tag", pattern=r"[a-z]+(_[a-z]+)*", pattern_hint="lower-case words joined by _"),
        ProviderField("url", "URL", format="url", placeholder="http://localhost:8888"),
        ProviderField("host", "Host", format="host"),
        ProviderField("port", "Port", format="port"),
        ProviderField("path", "Path", format="path"),
        ProviderField("short", "Short", max_length=5),
        ProviderField("scopes", "Scopes", keywords=("per_tag", "combined"),
                      json_shape={"type": "array", "minItems": 1,
                                  "items": {"type": "array", "items": {"type": "string"}}}),
        ProviderField("word", "Word", keywords=("async", "turn")),
        ProviderField("tags", "Tags", kind=KIND_JSON, json_shape={"type": "array", "items": {"type": "string"}}),
        ProviderField("obs", "Observation", kind=KIND_JSON, json_shape={
            "type": "object", "required": ["user"], "additionalProperties": False,
            "properties": {"user": {"type": "object", "properties": {"observeMe": {"type": "boolean"}}},
                           "level": {"enum": ["low", "high"]}}}),
        ProviderField("free", "Free", suggestions=("alpha", "beta"), unit="characters"),
    ),
)
'''

# (field, accepted values, refused values with the constraint that fails)
CASES = [
    ("tokens", ["1", "100000", "4096", "12.0"], [("0", "minimum"), ("-300", "minimum"), ("100001", "maximum"),
                                                  ("2.5", "integer"), ("12x", "number")]),
    ("ratio", ["0.25", "60", "4.5"], [("0.24", "minimum"), ("60.01", "maximum")]),
    ("floor", ["0", "1e6"], [("-0.001", "minimum")]),
    ("tag", ["abc", "a_b_c"], [("A", "pattern"), ("a__b", "pattern"), ("a-b", "pattern")]),
    ("url", ["http://localhost:8888", "https://api.example.com/v1", "http://[::1]:80"],
     [("htp:/broken url", "format"), ("localhost:8000", "format"), ("ftp://x.org", "format"),
      ("http://a:99999", "format")]),
    ("host", ["localhost", "10.0.0.5", "api.example.com", "::1"],
     [("http://localhost", "format"), ("localhost:80", "format"), ("bad host", "format")]),
    ("port", ["1", "65535", "8080"], [("0", "format"), ("65536", "format"), ("80a", "format")]),
    ("path", ["~/db.sqlite", "$HERMES_HOME/x.db"], []),
    ("short", ["abcde", "a"], [("abcdef", "max_length")]),
    ("scopes", ["per_tag", "combined", '[["a"], ["b", "c"]]'],
     [("per-tag-typo", "keywords"), ("[]", "keywords"), ('["a"]', "keywords"), ('{"a": 1}', "keywords")]),
    ("word", ["async", "turn"], [("session", "keywords"), ("Async", "keywords")]),
    ("tags", ['["a"]', "[]"], [('{"a": "b"}', "json_shape"), ("[1]", "json_shape")]),
    ("obs", ['{"user": {"observeMe": true}}', '{"user": {}, "level": "low"}'],
     [('{"user": {"observeMe": "yes"}}', "json_shape"), ("{}", "json_shape"),
      ('{"user": {}, "extra": 1}', "json_shape"), ('{"user": {}, "level": "mid"}', "json_shape")]),
    ("free", ["anything at all", "alpha"], []),
]
ACCEPTED = [(key, value) for key, good, _bad in CASES for value in good]
REFUSED = [(key, value, constraint) for key, _good, bad in CASES for value, constraint in bad]
URL = "/api/memory/providers/limits/config"


@pytest.fixture
def limits(home: Path) -> Path:
    user_plugin(home, "limits", SCHEMA)
    return home / "limits" / "config.json"


@pytest.mark.parametrize(("key", "value"), ACCEPTED)
def test_it_accepts_a_value_at_or_inside_the_bounds_through_the_api(owner_client, limits, key, value):
    response = api_put(owner_client, URL, {"values": {key: value}})

    assert response.status_code == 200, response.content
    stored = json.loads(limits.read_text())[key]
    if key in ("tags", "obs"):
        assert stored == json.loads(value)
    elif key in ("tokens", "ratio", "floor"):
        assert stored == float(value) and not isinstance(stored, str)
    else:
        assert stored == value  # text, stored as typed


@pytest.mark.parametrize(("key", "value", "constraint"), REFUSED)
def test_it_refuses_a_value_just_outside_through_the_api_and_writes_nothing(
    owner_client, home, limits, key, value, constraint
):
    before = snapshot_files(home)

    response = api_put(owner_client, URL, {"values": {key: value, "free": "kept out"}})

    assert response.status_code == 400
    body = response.json()
    assert body["detail"] in (f"Invalid number for '{key}'", f"Invalid value for '{key}'")
    assert body["errors"] == {key: body["detail"]}
    assert body["field_errors"][key]["constraint"] == constraint
    assert body["field_errors"][key]["message"] == body["detail"]
    assert body["field_errors"][key]["human"].startswith("Enter ")
    assert snapshot_files(home) == before


def test_it_gives_the_range_and_unit_in_the_api_for_a_number(owner_client, limits):
    body = api_put(owner_client, URL, {"values": {"tokens": "-300"}}).json()

    assert body["field_errors"]["tokens"] == {
        "message": "Invalid number for 'tokens'",
        "human": "Enter a whole number of tokens from 1 to 100000.",
        "constraint": "minimum",
        "limits": {"minimum": 1, "maximum": 100000, "integer": True, "unit": "tokens"},
    }


def _errors_at_fields(html: str) -> dict[str, str]:
    found = {}
    for key, message in re.findall(r'class="field__error" id="fld-\d+-([^"]+)-error">([^<]*)<', html):
        found[key] = message.replace("&#x27;", "'").replace("&quot;", '"')
    return found


def _review(client, **changes):
    html = client.get("/providers/limits/").content.decode()
    return client.post("/providers/limits/review/", as_post(form_fields(html, "/providers/limits/review/"), **changes))


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("tokens", "-300", "Enter a whole number of tokens from 1 to 100000."),
        ("tokens", "12x", "Enter a whole number of tokens from 1 to 100000."),
        ("ratio", "0.1", "Enter a number of seconds from 0.25 to 60."),
        ("floor", "-1", "Enter a number, at least 0."),
        ("tag", "A-B", "Enter a value like this: lower-case words joined by _."),
        ("url", "htp:/broken url",
         "Enter a web address that starts with http:// or https://, for example http://localhost:8888."),
        ("port", "99999", "Enter a port number from 1 to 65535."),
        ("short", "abcdefg", "Enter at most 5 characters (this has 7)."),
        ("scopes", "per-tag-typo", 'Enter one of: per_tag, combined, or JSON such as [["text"]].'),
        ("tags", '{"a": 1}', 'Enter JSON such as ["text"] (the value must be a list).'),
    ],
)
def test_it_shows_the_message_for_people_at_the_field_and_writes_nothing(
    owner_client, home, limits, key, value, message
):
    before = snapshot_files(home)

    response = _review(owner_client, **{f"v:{key}": value})

    assert response.status_code == 400
    html = response.content.decode()
    assert _errors_at_fields(html)[key] == message
    assert "Nothing was saved." in html
    assert snapshot_files(home) == before


def test_it_shows_the_message_in_chinese_with_the_range_and_unit(owner_client, limits):
    owner_client.cookies["django_language"] = "zh-hans"

    html = _review(owner_client, **{"v:tokens": "-300", "v:obs": '{"user": {"observeMe": "yes"}}'}).content.decode()

    errors = _errors_at_fields(html)
    assert errors["tokens"] == "请输入 1 到 100000 之间的整数（单位：令牌）。"
    assert errors["obs"] == '请输入形如 {"user": {"observeMe": true}} 的 JSON（user.observeMe 必须是true 或 false）。'


def test_it_translates_every_constraint_template_it_can_produce():
    from provider_schemas import constraints

    templates = [
        *constraints.NUMBER_TEMPLATES.values(),
        *constraints.TEXT_TEMPLATES.values(),
        constraints.JSON_TEMPLATE,
        *constraints.PROBLEM_TEMPLATES.values(),
    ]
    with translation.override("zh-hans"):
        for template in templates:
            assert translation.gettext(template) != template, template
        for word in (*constraints.TYPE_NOUNS.values(), constraints.ROOT_WHERE):
            assert word == "null" or localise_message(word) != word, word  # null is JSON, in every language


def test_it_renders_the_constraints_html_knows_as_attributes(owner_client, limits):
    html = owner_client.get("/providers/limits/").content.decode()

    tokens = re.search(r'<input[^>]*name="v:tokens"[^>]*>', html).group(0)
    # A text box, never a browser's number box, which silently drops what it cannot parse (issue 27).
    assert 'type="text"' in tokens and 'inputmode="numeric"' in tokens
    ratio = re.search(r'<input[^>]*name="v:ratio"[^>]*>', html).group(0)
    assert 'type="text"' in ratio and 'inputmode="decimal"' in ratio
    tag = re.search(r'<input[^>]*name="v:tag"[^>]*>', html).group(0)
    assert 'pattern="[a-z]+(_[a-z]+)*"' in tag
    assert 'title="Enter a value like this: lower-case words joined by _."' in tag
    assert 'maxlength="5"' in re.search(r'<input[^>]*name="v:short"[^>]*>', html).group(0)
    assert 'inputmode="url"' in re.search(r'<input[^>]*name="v:url"[^>]*>', html).group(0)
    free = re.search(r'<input[^>]*name="v:free"[^>]*>', html).group(0)
    datalist = re.search(r'list="([^"]+)"', free).group(1)
    assert re.search(rf'<datalist id="{datalist}"><option value="alpha"></option><option value="beta"></option>', html)
    assert '<span class="field__unit">tokens</span>' in html
    assert '<span class="field__unit">seconds</span>' in html


def test_the_api_keeps_0_19_0_wording_and_adds_details_only_for_constraints(owner_client, home):
    """docs/api.md §Saving a provider's config's example: the same detail and errors; field_errors only for the
    constrained field."""
    body = api_put(owner_client, "/api/memory/providers/honcho/config", {"values": {
        "apiKey": "honcho-new", "dialecticMaxChars": "12x", "environment": "bogus", "pinUserPeer": "maybe"}}).json()

    assert body["detail"] == "Invalid value for 'environment'"
    assert body["errors"] == {
        "environment": "Invalid value for 'environment'",
        "pinUserPeer": "Invalid boolean for 'pinUserPeer'",
        "dialecticMaxChars": "Invalid number for 'dialecticMaxChars'",
    }
    assert list(body["field_errors"]) == ["dialecticMaxChars"]
    assert body["field_errors"]["dialecticMaxChars"]["human"] == "Enter a whole number of characters from 1 to 100000."
    assert body["field_errors"]["dialecticMaxChars"]["constraint"] == "number"
    assert not (home / ".env").exists()

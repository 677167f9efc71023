"""Errors that say what to type (issue 27): for every kind of field, a refused value shows, at the
field and in the error summary, a sentence that names no internal key and says what a valid value
looks like (the range with its unit, the choices, an example of JSON), in English and Chinese; the
value typed is shown again exactly as typed."""

from __future__ import annotations

import html as html_lib
import re
from pathlib import Path

import pytest

from tests.providers_ui.browserless import as_post, form_fields
from tests.providers_ui.helpers import snapshot_files, user_plugin, write

pytestmark = pytest.mark.django_db

PAGE = "/providers/typed/"
REVIEW = "/providers/typed/review/"
SETTINGS = "/settings/"

SCHEMA = '''
from plugins.memory.config_schema import (
    KIND_BOOL, KIND_JSON, KIND_NUMBER, KIND_SECRET, KIND_SELECT, KIND_TEXT,
    ProviderConfigSchema, ProviderField, ProviderFieldOption,
)

CONFIG_SCHEMA = ProviderConfigSchema(
    name="typed",
    label="Typed",
    fields=(
        ProviderField("mode_key", "Mode", kind=KIND_SELECT, default="local",
                      options=(ProviderFieldOption("local", "On this machine"), ProviderFieldOption("cloud", "Cloud"))),
        ProviderField("api_key_key", "API key", kind=KIND_SECRET, env_key="TYPED_API_KEY"),
        ProviderField("name_key", "Bank name", default="anon"),
        ProviderField("flag_key", "Auto recall", kind=KIND_BOOL, default="false"),
        ProviderField("count_key", "Batch size", kind=KIND_NUMBER, default="5"),
        ProviderField("tokens_key", "Token cap", kind=KIND_NUMBER, integer=True, minimum=1, maximum=100000,
                      unit="tokens"),
        ProviderField("wait_key", "Timeout", kind=KIND_NUMBER, minimum=0, unit="seconds"),
        ProviderField("tags_key", "Recall tags", kind=KIND_JSON, default='["project"]'),
        ProviderField("shape_key", "Peers", kind=KIND_JSON,
                      json_shape={"type": "object", "required": ["user"],
                                  "properties": {"user": {"type": "boolean"}}}),
        ProviderField("url_key", "Server address", format="url"),
        ProviderField("port_key", "Port", format="port"),
        ProviderField("path_key", "Data folder", format="path"),
        ProviderField("scope_key", "Scope", keywords=("per_tag", "combined")),
        ProviderField("freq_key", "Write frequency", pattern=r"async|turn|[1-9][0-9]*",
                      pattern_hint="async, turn, or a whole number of turns such as 3"),
        ProviderField("short_key", "Nickname", max_length=5),
    ),
)
'''

# (field, bad value, what the page must say, in English and in Chinese)
CASES = [
    ("mode_key", "zzz", "Choose one of: On this machine, Cloud.", "请从以下选项中选择：On this machine、云端。"),
    ("name_key", "a\x00b", "Enter the value on one line, without line breaks.", "请在一行内输入，不要换行。"),
    ("flag_key", "maybe", "Choose on or off.", "请选择开或关。"),
    ("count_key", "abc12", "Enter a number, such as 5.", "请输入数字，例如 5。"),
    ("tokens_key", "2.5", "Enter a whole number of tokens from 1 to 100000.",
     "请输入 1 到 100000 之间的整数（单位：令牌）。"),
    ("wait_key", "-3", "Enter a number of seconds, at least 0.", None),
    ("tags_key", '["a", ', 'Enter a JSON list or object, such as ["project"].',
     '请输入 JSON 列表或对象，例如 ["project"]。'),
    ("tags_key", "42", 'Enter a JSON list or object, such as ["project"].', None),
    ("shape_key", "{user: true}", 'Enter a JSON object, such as {"user": true}.',
     '请输入 JSON 对象，例如 {"user": true}。'),
    ("shape_key", '{"user": 1}', 'Enter JSON such as {"user": true} (user must be true or false).', None),
    ("url_key", "example.com", "Enter a web address that starts with http:// or https://", None),
    ("port_key", "99999", "Enter a port number from 1 to 65535.", None),
    ("path_key", "a\nb", "Enter a file path on one line.", None),
    ("scope_key", "per-tag", "Enter one of: per_tag, combined.", None),
    ("freq_key", "sometimes", "Enter a value like this: async, turn, or a whole number of turns such as 3.", None),
    ("short_key", "toolong", "Enter at most 5 characters (this has 7).", None),
]


@pytest.fixture
def typed(home: Path) -> Path:
    user_plugin(home, "typed", SCHEMA)
    return home / "typed" / "config.json"


def _text(fragment: str) -> str:
    return html_lib.unescape(re.sub(r"<[^>]+>", "", fragment)).strip()


def field_errors(html: str) -> list[str]:
    return [_text(m) for m in re.findall(r'<p class="field__error"[^>]*>(.*?)</p>', html, re.S)]


def summary_items(html: str) -> list[str]:
    summary = re.search(r'<div class="notice notice--error error-summary".*?</div>', html, re.S)
    assert summary is not None, "no error summary"
    return [_text(m) for m in re.findall(r"<li>(.*?)</li>", summary.group(0), re.S)]


def post_bad_value(client, key: str, value: str, *, language: str) -> str:
    client.cookies["django_language"] = language
    fields = form_fields(client.get(PAGE).content.decode(), REVIEW)
    response = client.post(REVIEW, as_post(fields, **{f"v:{key}": value}))
    assert response.status_code == 400
    return response.content.decode()


def assert_names_no_key(texts: list[str], key: str) -> None:
    for text in texts:
        assert key not in text and "Invalid" not in text and "Expecting" not in text, text


@pytest.mark.parametrize(("key", "bad", "english", "chinese"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_it_says_what_to_type_at_the_field_and_in_the_summary(owner_client, typed, key, bad, english, chinese):
    write(typed, "{}")
    before = snapshot_files(typed.parent.parent)

    html = post_bad_value(owner_client, key, bad, language="en")

    shown = field_errors(html)
    assert len(shown) == 1 and shown[0].startswith(english), shown
    assert any(english in item for item in summary_items(html))
    assert_names_no_key(shown + summary_items(html), key)
    assert snapshot_files(typed.parent.parent) == before
    if chinese is None:
        return
    html = post_bad_value(owner_client, key, bad, language="zh-hans")
    assert field_errors(html) == [chinese]
    assert any(chinese in item for item in summary_items(html))


@pytest.mark.parametrize("key", [case[0] for case in CASES if case[3] is None and case[0] != "wait_key"])
def test_it_says_it_in_chinese_for_every_kind(owner_client, typed, key):
    bad = next(case[1] for case in CASES if case[0] == key)

    html = post_bad_value(owner_client, key, bad, language="zh-hans")

    shown = field_errors(html)
    assert len(shown) == 1
    assert re.search(r"[\u4e00-\u9fff]", shown[0]), shown  # in Chinese words, not the English sentence
    assert not shown[0].startswith("Enter"), shown
    assert_names_no_key(shown + summary_items(html), key)


def test_it_refuses_a_secret_on_two_lines_without_echoing_it(owner_client, typed):
    owner_client.cookies["django_language"] = "en"
    fields = form_fields(owner_client.get(PAGE).content.decode(), REVIEW)

    response = owner_client.post(REVIEW, as_post(fields, **{"secret:api_key_key": "replace",
                                                           "new:api_key_key": "sk-first\nsk-second"}))

    html = response.content.decode()
    assert response.status_code == 400
    assert field_errors(html) == ["Enter the value on one line, without line breaks."]
    assert "sk-first" not in html and "sk-second" not in html
    assert_names_no_key(summary_items(html), "api_key_key")


def test_it_keeps_abc12_as_typed_in_a_number_field_and_refuses_it(owner_client, typed):
    write(typed, "{}")

    html = post_bad_value(owner_client, "tokens_key", "abc12", language="en")

    control = re.search(r'<input[^>]*name="v:tokens_key"[^>]*>', html).group(0)
    assert 'value="abc12"' in control
    assert 'type="text"' in control  # a browser's number box would drop the letters before posting
    assert field_errors(html) == ["Enter a whole number of tokens from 1 to 100000."]
    assert typed.read_text() == "{}"


# --- the memory Settings page ---------------------------------------------------------------------


def post_settings(client, home: Path, language: str, **changes: str) -> str:
    write(home / "config.yaml", "memory:\n  memory_char_limit: 2200\n")
    client.cookies["django_language"] = language
    html = client.get(SETTINGS).content.decode()
    fields = [pair for pair in form_fields(html, SETTINGS)]
    response = client.post(SETTINGS, as_post(fields, **changes))
    assert response.status_code == 400
    return response.content.decode()


@pytest.mark.parametrize(
    ("language", "limit", "nudge"),
    [
        ("en", "Enter a whole number of characters, at least 1.", "Enter a whole number of turns, at least 0."),
        ("zh-hans", "请输入不小于 1 的整数（单位：字符）。", "请输入不小于 0 的整数（单位：轮）。"),
    ],
)
def test_it_says_the_range_and_unit_on_the_settings_page(owner_client, home, language, limit, nudge):
    html = post_settings(owner_client, home, language,
                         **{"v:memory_char_limit": "abc12", "v:nudge_interval": "-1", "v:user_char_limit": "0"})

    assert field_errors(html) == [limit, limit, nudge]
    items = summary_items(html)
    assert len(items) == 3 and all(any(text in item for item in items) for text in (limit, nudge))
    assert_names_no_key(field_errors(html) + items, "_")  # no memory_char_limit, no nudge_interval
    assert re.search(r'<input[^>]*name="v:memory_char_limit"[^>]*value="abc12"', html)
    assert (home / "config.yaml").read_text() == "memory:\n  memory_char_limit: 2200\n"

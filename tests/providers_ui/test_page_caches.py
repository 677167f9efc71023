"""The provider pages reuse what they read from files while the files are unchanged, and rendered
form fields while nothing they show has changed (docs/caching.md): every file edit shows on the
next request, what one post showed is not shown to the next, and a page served from the caches is
byte for byte what a fresh one would be."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.conf import settings as django_settings

from memory_core import caching
from tests.edits import rewrite_same_size
from tests.providers_ui.helpers import user_plugin, write

pytestmark = pytest.mark.django_db

SCHEMA = '''
from plugins.memory.config_schema import (
    KIND_BOOL, KIND_SECRET, KIND_SELECT, ProviderConfigSchema, ProviderField, ProviderFieldOption,
)

CONFIG_SCHEMA = ProviderConfigSchema(
    name="cachy",
    label="Cachy AAAA",
    fields=(
        ProviderField("mode", "Mode", kind=KIND_SELECT, default="a", inline=True,
                      options=(ProviderFieldOption("a", "Alpha"), ProviderFieldOption("b", "Beta"))),
        ProviderField("token", "Token", kind=KIND_SECRET, env_key="CACHY_TOKEN", required=True),
        ProviderField("url", "Address", group="Connection"),
        ProviderField("on", "Enabled", kind=KIND_BOOL, default="true", group="Connection"),
        ProviderField("beta_only", "Beta only", group="Connection", when={"mode": "b"}),
    ),
)
'''
CSRF = re.compile(r'(name="csrfmiddlewaretoken" value="|"X-CSRFToken": ")[^"]+')


@pytest.fixture
def cachy(home: Path) -> Path:
    return user_plugin(home, "cachy", SCHEMA)


def page(client, url: str, language: str = "en") -> str:
    client.cookies[django_settings.LANGUAGE_COOKIE_NAME] = language
    response = client.get(url)
    assert response.status_code == 200
    return CSRF.sub(r"\1TOKEN", response.content.decode())


def test_it_shows_a_schema_label_edited_in_place_on_the_next_provider_page(owner_client, cachy):
    assert "Cachy AAAA" in page(owner_client, "/providers/cachy/")

    rewrite_same_size(cachy / "config_schema.py", '"Address"', '"Servers"')
    rewrite_same_size(cachy / "config_schema.py", "Cachy AAAA", "Cachy BBBB")

    html = page(owner_client, "/providers/cachy/")
    assert "Cachy BBBB" in html and "Cachy AAAA" not in html
    assert "Servers" in html and "Address" not in html


def test_it_shows_a_stored_value_edited_in_place_on_the_next_provider_page(owner_client, home, cachy):
    stored = write(home / "cachy" / "config.json", json.dumps({"url": "http://one"}))
    assert 'value="http://one"' in page(owner_client, "/providers/cachy/")

    rewrite_same_size(stored, "http://one", "http://two")

    html = page(owner_client, "/providers/cachy/")
    assert 'value="http://two"' in html and "http://one" not in html


def test_it_shows_the_when_rows_that_a_same_size_edit_reveals(owner_client, home, cachy):
    stored = write(home / "cachy" / "config.json", json.dumps({"mode": "a"}))
    first = page(owner_client, "/providers/cachy/")
    assert "1 setting hidden" in first

    rewrite_same_size(stored, '"a"', '"b"')

    second = page(owner_client, "/providers/cachy/")
    assert "setting hidden" not in second.split('id="hidden-summary"')[1].split("</p>")[0]


def test_it_shows_a_secret_set_in_env_on_the_next_list_and_provider_page(owner_client, home, cachy):
    env = write(home / ".env", "CACHY_TOKXN=value\n")
    assert "Needs configuration" in page(owner_client, "/providers/")
    assert "Not set" in page(owner_client, "/providers/cachy/")

    rewrite_same_size(env, "CACHY_TOKXN", "CACHY_TOKEN")

    listing = page(owner_client, "/providers/")
    card = listing.split('id="provider-cachy"')[1].split("</li>")[0]
    assert "Ready" in card and "Needs configuration" not in card
    assert 'badge badge--ok">Set<' in page(owner_client, "/providers/cachy/")


def test_it_shows_a_plugin_yaml_description_edited_in_place_on_the_list(owner_client, cachy):
    write(cachy / "plugin.yaml", "description: Stores AAAA\n")
    assert "Stores AAAA" in page(owner_client, "/providers/")

    rewrite_same_size(cachy / "plugin.yaml", "AAAA", "BBBB")

    assert "Stores BBBB" in page(owner_client, "/providers/")


def test_it_shows_a_provider_translation_edited_in_place(owner_client, cachy):
    translations = write(cachy / "translations.json", json.dumps({"zh-hans": {"label": "缓存甲"}}, ensure_ascii=False))
    assert "缓存甲" in page(owner_client, "/providers/cachy/", "zh-hans")
    assert "缓存甲" in page(owner_client, "/providers/", "zh-hans")

    rewrite_same_size(translations, "缓存甲", "缓存乙")

    assert "缓存乙" in page(owner_client, "/providers/cachy/", "zh-hans")
    assert "缓存乙" in page(owner_client, "/providers/", "zh-hans")
    assert "Cachy AAAA" in page(owner_client, "/providers/cachy/", "en")


def test_it_shows_the_active_provider_edited_in_place_in_config_yaml(owner_client, home, cachy):
    config = write(home / "config.yaml", "memory:\n  provider: mem0x\n")
    assert "Not active" in page(owner_client, "/providers/cachy/")

    rewrite_same_size(config, "mem0x", "cachy")

    assert 'badge badge--ok">Active<' in page(owner_client, "/providers/cachy/")


def test_it_shows_typed_values_and_errors_only_on_the_page_that_posted_them(owner_client, cachy):
    plain = page(owner_client, "/providers/cachy/")
    back = {"o:url": "", "v:url": "http://typed", "secret:token": "replace", "new:token": "x"}

    response = owner_client.post("/providers/cachy/", back)  # "Back to the form" from the review

    posted = CSRF.sub(r"\1TOKEN", response.content.decode())
    assert 'value="http://typed"' in posted and "Enter the new value again." in posted
    again = page(owner_client, "/providers/cachy/")
    assert "http://typed" not in again and "Enter the new value again." not in again
    assert again == plain


def test_it_names_a_renamed_field_in_the_notes_of_the_fields_it_controls(owner_client, cachy):
    assert "Only used when Mode is Beta." in page(owner_client, "/providers/cachy/")

    rewrite_same_size(cachy / "config_schema.py", '"Mode"', '"Kind"')

    html = page(owner_client, "/providers/cachy/")
    assert "Only used when Kind is Beta." in html and "Only used when Mode" not in html


@pytest.mark.parametrize("language", ["en", "zh-hans"])
@pytest.mark.parametrize("url", ["/providers/", "/providers/cachy/", "/providers/hindsight/", "/providers/honcho/"])
def test_it_renders_a_reused_page_exactly_as_a_fresh_one(owner_client, home, cachy, url, language):
    write(home / "cachy" / "config.json", json.dumps({"mode": "b", "url": "http://x"}))
    write(home / ".env", "HINDSIGHT_API_KEY=k\n")
    warm = [page(owner_client, url, language) for _ in range(3)]

    caching.clear_all()
    fresh = page(owner_client, url, language)

    assert warm[0] == warm[1] == warm[2] == fresh

"""The panel speaks the reader's language: from Accept-Language, or the remembered choice."""

from __future__ import annotations

import re

import pytest

from admin_panel.demo import seed_demo_home
from tests.i18n.catalog import load_po

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def zh():
    """The catalog's Chinese for an English message (failing when it has none)."""
    catalog = {e.msgid: e.msgstr.get(0, "") for e in load_po() if e.msgid and e.msgid_plural is None}

    def lookup(english: str) -> str:
        text = catalog.get(english, "")
        assert text and text != english, f"no Chinese for {english!r}"
        return text

    return lookup


def _html_lang(response) -> str:
    text = response.content.decode()
    start = text.index('<html lang="') + len('<html lang="')
    return text[start : text.index('"', start)]


@pytest.mark.parametrize("header", ["zh-CN,zh;q=0.9,en;q=0.8", "zh-Hans", "zh-SG", "zh"])
def test_it_answers_a_chinese_browser_in_simplified_chinese(client, home, header, zh):
    response = client.get("/accounts/login/", headers={"accept-language": header})

    assert response.headers["Content-Language"] == "zh-hans"
    assert _html_lang(response) == "zh-hans"
    assert zh("Sign in") in response.content.decode()


@pytest.mark.parametrize("header", ["en-GB,en;q=0.9", "fr-FR,fr;q=0.9", ""])
def test_it_answers_other_browsers_in_english(client, home, header):
    response = client.get("/accounts/login/", headers={"accept-language": header})

    assert response.headers["Content-Language"] == "en"
    assert "Sign in" in response.content.decode()


def test_it_prefers_the_remembered_choice_over_the_browser(client, home):
    client.post("/i18n/setlang/", {"language": "en", "next": "/accounts/login/"})

    response = client.get("/accounts/login/", headers={"accept-language": "zh-CN"})

    assert response.headers["Content-Language"] == "en"


def test_it_offers_the_language_switcher_on_every_page_labelled_and_marked_with_each_languages_code(client, home):
    text = client.get("/accounts/login/").content.decode()

    assert '<label for="language-select"' in text
    assert '<option value="zh-hans" lang="zh-hans"' in text
    assert '<option value="en" lang="en"' in text


@pytest.mark.parametrize("accept", ["en", "zh-CN"])
def test_it_names_each_language_in_that_language_whatever_the_page_language(client, home, accept):
    text = client.get("/accounts/login/", headers={"accept-language": accept}).content.decode()

    assert re.search(r'<option value="en" lang="en"[^>]*>English</option>', text)
    assert re.search(r'<option value="zh-hans" lang="zh-hans"[^>]*>简体中文</option>', text)


def test_it_translates_the_navigation_and_pages_for_a_signed_in_reader(owner_client, home, zh):
    owner_client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/"})

    text = owner_client.get("/").content.decode()

    for label in ("Providers", "Memory", "Overview", "Sign out"):
        assert zh(label) in text, label


def test_it_explains_blocked_entries_in_chinese(owner_client, home, zh):
    from memory_core.threats import EXPLANATIONS

    seed_demo_home(home)
    owner_client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/"})

    text = owner_client.get("/memory/blocked/").content.decode()

    assert zh(EXPLANATIONS["role_hijack"]) in text
    assert EXPLANATIONS["role_hijack"] not in text


def test_it_shows_a_bundled_providers_settings_in_chinese(owner_client, home, zh):
    owner_client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/"})

    text = owner_client.get("/providers/hindsight/").content.decode()

    for english in ("Where the Hindsight memory server runs.", "Hindsight's hosted service; needs an API key."):
        assert zh(english) in text, english
        assert english not in text, english


def test_it_keeps_the_api_in_the_agents_own_words(owner_client, home):
    owner_client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/"})

    payload = owner_client.get("/api/memory/providers/hindsight/config?surface=declared").json()

    labels = {field["key"]: field["label"] for field in payload["fields"]}
    assert labels["mode"] == "Mode"

"""Plain words first on the Settings and provider pages: each setting's help and its default in a
sentence, the config.yaml key as a small line after it; Honcho's host block after the settings;
no developer wording ("agent default: true", "not a boolean", "legacy key")."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.django_db


def _text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def test_settings_say_the_default_in_words_and_the_key_after_the_help(demo):
    html = demo.get("/settings/").content.decode()
    assert "agent default:" not in html
    # A switch's default is on or off, never "true"; a number's is a sentence.
    assert "Unless you change it, it is on." in html or "Unless you change it, it is off." in html
    assert re.search(r"Unless you change it, the agent uses [\d,]+\.", html)
    helps = re.findall(r'<p class="field__help" id="[^"]+-help">(.*?)</p>\s*<p class="field__key">(.*?)</p>',
                       html, re.S)
    assert helps, "each setting's help is followed by its key line"
    for help_text, key_line in helps:
        assert "<code>" not in help_text  # the key is not in the sentence a person reads first
        assert re.search(r"<code>memory\.\w+</code>", key_line)


def test_a_provider_page_uses_no_developer_wording(demo):
    pages = _text(demo.get("/providers/hindsight/").content.decode()) + _text(
        demo.get("/providers/supermemory/").content.decode())
    assert "legacy key" not in pages and "not a boolean" not in pages
    assert "stored under an older name" in pages and "instead of on or off" in pages
    assert "under its old name" not in pages
    # The older key is there for whoever hovers over the badge.
    assert 'title="Where the current value comes from: the older key budget"' in demo.get(
        "/providers/hindsight/").content.decode()


def test_honchos_host_block_comes_after_the_settings(demo):
    html = demo.get("/providers/honcho/").content.decode()
    form = html.index('class="provider-form"')
    assert form < html.index("</form>", form) < html.index('id="honcho-host"')

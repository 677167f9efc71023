"""Words a person who never read the agent's code understands: a scanner finding by a short plain
name (its id only on hover), a session's end in words, the history without its file name, a
setting stored under an older key without that key in the sentence. In English and Chinese."""

from __future__ import annotations

import re

import pytest

from memory_core.threats import EXPLANATIONS, PATTERN_LABELS, PATTERNS, pattern_label

pytestmark = pytest.mark.django_db


def _visible(html: str) -> str:
    """The page's text without tags and attributes (what a reader sees, hover aside), and without
    the snapshot's copy of what the agent is shown (its own words, byte for byte)."""
    html = re.sub(r"<pre\b.*?</pre>", " ", html, flags=re.S)
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def test_every_finding_has_a_short_plain_name():
    assert set(PATTERN_LABELS) == set(EXPLANATIONS)
    for pattern in PATTERNS:
        assert pattern_label(pattern.id) != pattern.id
    assert pattern_label("invisible_unicode_U+200B") == "Invisible character"


@pytest.mark.parametrize(("language", "name"), [("en", "Identity change"), ("zh-hans", "更改身份")])
def test_blocked_entries_name_their_findings_in_plain_words(demo, language, name):
    blocked = demo.get("/memory/blocked/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    memory = demo.get("/memory/", HTTP_ACCEPT_LANGUAGE=language).content.decode()

    for html in (blocked, memory):
        assert "role_hijack" not in _visible(html)
        assert name in _visible(html)
    assert 'title="role_hijack"' in blocked  # the agent's own id, for whoever hovers


@pytest.mark.parametrize(("language", "words"), [("en", "closed in the terminal"), ("zh-hans", "在终端中关闭")])
def test_sessions_say_how_a_session_ended_and_not_the_file_name(demo, language, words):
    listing = demo.get("/sessions/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert "state.db" not in _visible(listing)
    closed = [path for path in re.findall(r'href="(/sessions/[^"/?]+/)"', listing) if "secrets" not in path]
    details = [demo.get(path, HTTP_ACCEPT_LANGUAGE=language).content.decode() for path in closed]
    assert not any("cli_close" in _visible(html) for html in details)
    assert any(words in _visible(html) for html in details)
    assert any('title="cli_close"' in html for html in details)


def test_a_setting_under_an_older_key_says_so_without_the_key(demo):
    text = _visible(demo.get("/providers/hindsight/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode())
    assert "以旧名称保存" in text
    assert "old name" not in text


@pytest.mark.parametrize(
    ("language", "terminal", "platform"), [("en", "Terminal", "Telegram"), ("zh-hans", "终端", "Telegram")]
)
def test_sessions_name_where_each_came_from_in_words(demo, language, terminal, platform):
    listing = demo.get("/sessions/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    visible = _visible(listing)
    assert not re.search(r"\bcli\b", visible)  # the agent's code for its terminal
    assert terminal in visible and platform in visible
    assert 'value="cli"' in listing  # the filter still sends the code
    detail = next(path for path in re.findall(r'href="(/sessions/[^"/?]+/)"', listing) if "secrets" not in path)
    page = demo.get(detail, HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert not re.search(r"\bcli\b|\btelegram\b|\bsubagent\b|\bcron\b", _visible(page))


def test_a_transcript_names_who_wrote_each_message_in_the_pages_language(demo):
    listing = demo.get("/sessions/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    detail = next(path for path in re.findall(r'href="(/sessions/[^"/?]+/)"', listing) if "secrets" not in path)
    page = demo.get(detail, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    roles = set(re.findall(r'<span class="turn__role">([^<]*)</span>', page))
    assert {"用户", "助手"} <= roles <= {"用户", "助手", "工具", "系统"}

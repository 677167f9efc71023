"""Chinese sentences joined across an element (a bold first sentence, a link after a sentence) carry
no space after the full stop, and a count beside a label sits in full-width parentheses without
a space before them: "凭据（2）", not "凭据 (2)" (docs/admin_panel.md §Chinese text)."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.django_db

ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}
# A Chinese full stop, then a space, then (after any tags) the next Chinese sentence.
STOP_THEN_SPACE = re.compile(r"。(?:<[^>]+>)*[ \t\n]+(?:<[^>]+>)*[\u4e00-\u9fff]")


def _paragraph(html: str, marker: str) -> str:
    start = html.index(marker)
    return html[html.rindex("<p", 0, start):html.index("</p>", start)]


def test_the_activation_dialog_joins_its_sentences_without_a_space(demo):
    html = demo.get("/providers/hindsight/activate/", **ZH).content.decode()
    sentences = _paragraph(html, "将成为启用的记忆提供方")
    assert "目前没有启用任何外部提供方" in sentences
    assert not STOP_THEN_SPACE.search(sentences), sentences


def test_a_sentence_and_its_link_have_no_space_between_them(demo):
    home = _paragraph(demo.get("/", **ZH).content.decode(), "查看待批准写入")
    pending = _paragraph(demo.get("/memory/pending/", **ZH).content.decode(), "在设置中修改")
    for joined in (home, pending):
        assert not STOP_THEN_SPACE.search(joined), joined


def test_counts_beside_labels_use_full_width_parentheses(demo):
    html = demo.get("/memory/memory/maintenance/", **ZH).content.decode()
    assert "凭据（2）" in html
    assert not re.search(r"[\u4e00-\u9fff] \(\d+\)", html)
    assert "Credential (2)" in demo.get("/memory/memory/maintenance/").content.decode()


def test_a_date_inside_a_chinese_sentence_has_no_space_around_it(demo):
    html = demo.get("/memory/user/maintenance/", **ZH).content.decode()
    start = html.index('<span id="budget-forecast">')
    forecast = html[start:html.index("</span>", html.index("前后写满", start)) + len("</span>")]
    shown = re.sub(r"<[^>]+>", "", re.sub(r'<[^>]*class="[^"]*visually-hidden[^"]*"[^>]*>[^<]*<', "<", forecast))
    assert re.search(r"将在\d{4}年\d{1,2}月\d{1,2}日前后写满", shown), shown

"""Chinese text assembled from pieces (a label, a value, a joined list, two sentences side by side)
has no space between two Chinese characters: "（在 模式 为 本地内嵌 时显示）" reads as broken.
Spaces stay between Chinese and Latin text ("在 .env 中"). Read from the crawled pages in Chinese,
outside what a person or the agent wrote."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from admin_panel.cjk_text import tidy_cjk_spaces
from tests.foundation.test_one_date_format import CONTENT_CLASSES, CONTENT_TAGS, _paths
from tests.foundation.test_one_date_format import demo_client as demo_client  # the fixture, shared

pytestmark = pytest.mark.django_db

CJK = "\u3000-\u303f\u4e00-\u9fff\uff00-\uffef"
GAP = re.compile(rf"[{CJK}] +[{CJK}]")


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.gaps: list[str] = []
        self._skip: list[bool] = []
        self._pending = ""

    def handle_starttag(self, tag, attrs):
        classes = set((dict(attrs).get("class") or "").split())
        if tag in {"br", "img", "input", "meta", "link", "hr", "wbr"}:
            return
        inside = bool(self._skip) and self._skip[-1]
        self._skip.append(inside or tag in CONTENT_TAGS or bool(classes & CONTENT_CLASSES))

    def handle_endtag(self, tag):
        if self._skip:
            self._skip.pop()

    def handle_data(self, data):
        if self._skip and self._skip[-1]:
            return
        for found in GAP.finditer(data):
            start = max(0, found.start() - 12)
            self.gaps.append(data[start:found.end() + 12].strip())


def test_it_removes_spaces_between_chinese_characters_only():
    assert tidy_cjk_spaces("（在 模式 为 本地内嵌 时显示）") == "（在模式为本地内嵌时显示）"
    assert tidy_cjk_spaces("状态：已在 .env 中设置。 面板最近一次写入") == "状态：已在 .env 中设置。面板最近一次写入"
    assert tidy_cjk_spaces("Mode is Local Embedded and port is 8080") == "Mode is Local Embedded and port is 8080"
    # Across the start or end of an element, the element stays and the space goes.
    assert tidy_cjk_spaces('（41%）。\n  <span id="f">按每天') == '（41%）。<span id="f">按每天'
    assert tidy_cjk_spaces("中。 <a href=\"/\">Link</a>") == "中。 <a href=\"/\">Link</a>"


def test_chinese_pages_have_no_space_between_two_chinese_characters(demo_client):
    problems = []
    paths = [*_paths(demo_client), "/providers/hindsight/", "/providers/honcho/", "/settings/"]
    for path in dict.fromkeys(paths):
        send = demo_client.post if path.endswith("/revoke/") else demo_client.get
        response = send(path, HTTP_ACCEPT_LANGUAGE="zh-hans")
        if response.status_code != 200 or "text/html" not in response.get("Content-Type", ""):
            continue
        reader = _Text()
        reader.feed(response.content.decode())
        problems += [f"{path}: {gap!r}" for gap in reader.gaps]
    assert not problems, "\n".join(problems)

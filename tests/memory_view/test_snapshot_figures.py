"""Where the snapshot's larger figure appears, it says why: a blocked entry is injected (and
counted) as its placeholder (docs/agent_formats.md §Snapshot). On the memory page's summary card
and on the snapshot's own page, in English and Chinese."""

from __future__ import annotations

import re

import pytest

from memory_core import read_store_state

pytestmark = pytest.mark.django_db


def _figure(text: str) -> str:
    return f"{int(text):,}"


def test_the_summary_card_says_why_the_prompt_holds_another_figure(demo, home):
    held = sum(read_store_state(home=home, target=target).total_chars for target in ("memory", "user"))
    html = demo.get("/memory/").content.decode()
    card = re.search(r'<li class="summary-card" id="summary-snapshot">(.*?)</li>', html, re.S).group(1)
    shown = re.search(r'summary-card__count">([\d,]+)<', card).group(1)
    assert shown != _figure(held)  # the demo's blocked entry makes the prompt's figure differ
    why = re.search(r'id="summary-snapshot-why">(.*?)</span>', card, re.S).group(1)
    assert f"Not the {_figure(held)} the stores hold" in why and "placeholder" in why

    chinese = demo.get("/memory/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert f"不是存储中的 {_figure(held)} 个字符" in chinese


def test_the_snapshot_page_says_why_its_header_counts_more(demo, home):
    state = read_store_state(home=home, target="memory")
    html = demo.get("/memory/snapshot/").content.decode()
    note = re.search(r'id="snapshot-page-memory-counted">(.*?)</p>', html, re.S).group(1)
    assert f"not the {_figure(state.total_chars)} the store holds" in note
    assert 'id="snapshot-page-user-counted"' not in html  # USER.md has no blocked entry

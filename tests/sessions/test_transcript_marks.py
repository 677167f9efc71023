"""A transcript opened from a search marks the searched words in the hit (escaped), and its count of
messages says how many are shown when the agent hides some."""

from __future__ import annotations

import re

import pytest

from admin_panel.templatetags.session_tags import search_marks

pytestmark = pytest.mark.django_db


def _hit_link(client, query: str) -> str:
    listing = client.get("/sessions/", {"q": query}).content.decode()
    return re.search(r'class="search-hit__title" href="([^"]+)"', listing).group(1).replace("&amp;", "&")


def test_the_search_word_is_marked_in_the_hit_it_led_to(demo):
    link = _hit_link(demo, "docker")
    assert "q=docker" in link
    html = demo.get(link.split("#")[0]).content.decode()
    hit = re.search(r'<li id="m-\d+" class="turn[^"]*turn--hit".*?</li>', html, re.S).group(0)
    assert re.search(r"<mark>docker</mark>", hit, re.I)
    # Only the hit is marked: the rest of the transcript reads as it was written.
    assert html.count("<mark>") == hit.count("<mark>")


def test_the_marks_keep_the_text_escaped_and_ignore_search_operators():
    marked = str(search_marks("Use <b>Docker</b> OR docker-compose", '"docker" OR <b>'))
    assert marked == "Use <mark>&lt;b&gt;</mark><mark>Docker</mark>&lt;/b&gt; OR <mark>docker</mark>-compose"
    assert str(search_marks("plain <i>", "")) == "plain &lt;i&gt;"


def test_the_message_count_says_how_many_are_shown(demo):
    listing = demo.get("/sessions/").content.decode()
    checked = 0
    for path in dict.fromkeys(re.findall(r'href="(/sessions/\d{8}_\d{6}_\w+/)"', listing)):
        html = demo.get(path).content.decode()
        shown = len(re.findall(r'<li id="m-\d+" class="turn', html))
        count = re.search(r'<dd id="session-message-count">(.*?)</dd>', html, re.S).group(1).strip()
        if "shown of" in count:
            checked += 1
            assert count.startswith(f"{shown} shown of ")
        else:
            assert count == str(shown) or int(count) > shown  # a long transcript is paged
    assert checked >= 1, "the demo has a session whose agent hides some messages"

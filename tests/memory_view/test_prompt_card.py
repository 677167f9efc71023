"""The memory page's "Next session's prompt" card says how much memory the next prompt holds
(as the blocks' headers count it, placeholders included) and from which files."""

from __future__ import annotations

import re

import pytest

from admin_panel.demo import seed_demo_home
from tests.demo_homes import seeded
from tests.memory_view.helpers import write_store

pytestmark = pytest.mark.django_db


def _card(client) -> str:
    html = client.get("/memory/").content.decode()
    card = re.search(r'id="summary-snapshot">(.*?)</li>', html, re.S).group(1)
    return " ".join(re.sub(r"<[^>]+>", " ", card).split())


def test_the_card_counts_the_characters_of_the_next_prompt(owner_client, home):
    seeded(home, seed_demo_home)
    # The demo's blocked entry is injected as its placeholder, which the header counts.
    card = _card(owner_client)
    assert card.startswith("1,252 characters in the next session's prompt MEMORY.md · USER.md")


def test_an_empty_store_is_not_in_the_prompt(owner_client, home):
    write_store(home, "memory", ["Prefers tea."])
    assert _card(owner_client).startswith("12 characters in the next session's prompt MEMORY.md Snapshot")

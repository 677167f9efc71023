"""Gaps a second review found: the approval of a staged remove/replace offers the entry's copy like
a direct one does; undo puts a deleted copy back; byterover cuts only the entry's text out of a
context file; "left behind" ticks only texts a built-in store is known to have held; plural forms."""

from __future__ import annotations

import pytest

from tests.provider_contents import store as plugin
from tests.provider_contents.test_pages import facts  # noqa: F401 - fixture

pytestmark = pytest.mark.django_db


def test_the_left_behind_clean_up_says_copy_or_copies_in_both_languages(owner_client, facts):  # noqa: F811
    conn = plugin.connect(facts)
    plugin.add_fact(conn, "one more old entry", "user_pref")
    conn.close()
    one = owner_client.post("/contents/holographic/left-behind/", {"item": ["3"]}, follow=True).content.decode()
    assert "Removed 1 copy from holographic." in one
    two = owner_client.post("/contents/holographic/left-behind/", {"item": ["4", "5"]}, follow=True,
                            HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Removed 2 copies from holographic." in two
    assert [r[0] for r in plugin.dump(facts)["facts"]] == [1, 2]
    conn = plugin.connect(facts)
    plugin.add_fact(conn, "a last old entry")
    conn.close()
    zh = owner_client.post("/contents/holographic/left-behind/", {"item": ["6"]}, follow=True,
                           HTTP_ACCEPT_LANGUAGE="zh-Hans").content.decode()
    assert "已从 holographic 移除 1 个副本。" in zh

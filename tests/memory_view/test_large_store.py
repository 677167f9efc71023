"""A store of thousands of entries (a raised budget) is listed a page at a time (issue 29, "Large
stores stay fast"): one page of entries per store, plain pager links, live updates and links to an
entry that keep their page."""

from __future__ import annotations

import html
import re

import pytest

from admin_panel.selectors.memory import entry_key
from tests.memory_view.helpers import write_config, write_store

pytestmark = pytest.mark.django_db

COUNT = 5_000
ENTRIES = [f"Fact number {index:04d} about the deploy pipeline." for index in range(1, COUNT + 1)]


@pytest.fixture
def large_home(home):
    write_config(home, memory_char_limit=1_000_000)
    write_store(home, "memory", ENTRIES)
    write_store(home, "user", ["Name: Dana"])
    return home


def _entries(page: str, target: str = "memory") -> list[str]:
    """The texts of the entry items listed for ``target``, in order."""
    item = rf'<li class="entry[^"]*" data-key="{target}:[0-9a-f]+"[^>]*>\s*<div class="entry-text">([^<]*)<'
    items = re.findall(item, page)
    return [html.unescape(text) for text in items]


def _pager_link(page: str, target: str, rel: str) -> str:
    nav = page[page.index(f'id="pager-{target}"') :]
    nav = nav[: nav.index("</nav>")]
    return html.unescape(re.search(rf'<a href="([^"]+)" rel="{rel}"', nav).group(1))


def test_it_lists_one_page_of_a_large_store(owner_client, large_home):
    page = owner_client.get("/memory/").content.decode()

    assert _entries(page) == ENTRIES[:100]
    assert page.count('<li class="entry') == 100 + 1  # and USER.md's one entry
    assert 'id="entries-memory" start="1"' in page
    assert "Entries 1–100 of 5,000" in page
    assert 'id="pager-user"' not in page  # one page only: no pager


def test_it_follows_the_pager_links_to_the_next_and_last_pages(owner_client, large_home):
    first = owner_client.get("/memory/").content.decode()

    next_url = _pager_link(first, "memory", "next")
    second = owner_client.get(next_url).content.decode()

    assert next_url == "/memory/?memory_page=2#store-memory"
    assert _entries(second) == ENTRIES[100:200]
    assert 'id="entries-memory" start="101"' in second
    assert _pager_link(second, "memory", "prev") == "/memory/#store-memory"
    last_url = html.unescape(re.findall(r'<a href="(/memory/\?memory_page=\d+#store-memory)">', first)[-1])
    assert last_url == "/memory/?memory_page=50#store-memory"
    assert _entries(owner_client.get(last_url).content.decode()) == ENTRIES[4900:]


@pytest.mark.parametrize(("asked", "shown"), [("999", 50), ("9" * 20, 1), ("-2", 1), ("two", 1), ("0", 1)])
def test_it_shows_a_page_in_range_for_any_page_number(owner_client, large_home, asked, shown):
    response = owner_client.get("/memory/", {"memory_page": asked})

    assert response.status_code == 200
    assert _entries(response.content.decode()) == ENTRIES[(shown - 1) * 100 : shown * 100]


def test_it_keeps_each_stores_page_in_the_other_stores_links(owner_client, large_home):
    write_store(large_home, "user", [f"User fact {index}" for index in range(250)])

    page = owner_client.get("/memory/", {"memory_page": "3", "user_page": "2"}).content.decode()

    assert _pager_link(page, "memory", "next") == "/memory/?memory_page=4&user_page=2#store-memory"
    assert _pager_link(page, "user", "next") == "/memory/?memory_page=3&user_page=3#store-user"
    assert _entries(page, "user") == [f"User fact {index}" for index in range(100, 200)]


def test_it_keeps_the_page_in_live_updates_and_after_an_edit(owner_client, large_home):
    page = owner_client.get("/memory/", {"memory_page": "2"}).content.decode()
    poll_url = html.unescape(re.search(r'data-poll-url="([^"]+)"', page).group(1))
    assert poll_url == "/memory/poll/?view=page&memory_page=2"

    write_store(large_home, "memory", [*ENTRIES[:150], "Inserted by the agent.", *ENTRIES[150:]])
    live = owner_client.get(f"{poll_url}&fp=stale").content.decode()

    assert _entries(live) == [*ENTRIES[100:150], "Inserted by the agent.", *ENTRIES[150:199]]
    edit_link = html.unescape(re.search(r'href="(/memory/memory/entries/[0-9a-f]+/edit/\?[^"]+)"', live).group(1))
    assert edit_link.endswith("?next=%2Fmemory%2F%3Fmemory_page%3D2")


def test_it_opens_the_page_that_lists_an_entry_it_is_asked_to_show(owner_client, large_home):
    wanted = ENTRIES[3456]

    page = owner_client.get("/memory/", {"show": f"memory:{entry_key(wanted)}"}).content.decode()

    assert _entries(page) == ENTRIES[3400:3500]
    assert f'id="entry-memory-{entry_key(wanted)}"' in page


def test_it_previews_only_the_start_of_a_long_snapshot_on_the_memory_page(owner_client, large_home):
    page = owner_client.get("/memory/").content.decode()
    snapshot_page = owner_client.get("/memory/snapshot/").content.decode()

    preview = html.unescape(re.search(r'<pre class="snapshot" id="snapshot-memory-text">([^<]*)</pre>', page).group(1))
    assert len(preview) <= 20_000 and preview.endswith(ENTRIES[len(preview.split("\n§\n")) - 1])
    assert 'id="snapshot-memory-cut"' in page
    assert ENTRIES[-1] in snapshot_page  # the snapshot page has all of it
    assert len(page) < 300_000


def test_it_filters_a_store_by_text_and_keeps_the_filter_in_its_links(owner_client, large_home):
    write_store(large_home, "user", [f"User fact {index}" for index in range(250)])

    page = owner_client.get("/memory/", {"memory_q": "  NUMBER   1  ", "user_page": "2"}).content.decode()

    assert _entries(page) == ENTRIES[999:1099]  # 1000 … 1099, of the 1,000 matches 1000 … 1999
    assert "1,000 of 5,000 entries contain “NUMBER 1”." in html.unescape(page)
    assert _pager_link(page, "memory", "next") == "/memory/?memory_q=NUMBER+1&memory_page=2&user_page=2#store-memory"
    assert _pager_link(page, "user", "next") == "/memory/?memory_q=NUMBER+1&user_page=3#store-user"
    form = page[page.index('id="filter-memory"') :]
    form = form[: form.index("</form>")]
    assert '<input type="hidden" name="user_page" value="2">' in form
    assert 'name="memory_q" value="NUMBER 1"' in form
    assert 'href="/memory/?user_page=2#store-memory"' in form  # "Show all entries"
    poll_url = html.unescape(re.search(r'data-poll-url="([^"]+)"', page).group(1))
    assert poll_url == "/memory/poll/?view=page&memory_q=NUMBER+1&user_page=2"
    assert _entries(owner_client.get(f"{poll_url}&fp=stale").content.decode()) == ENTRIES[999:1099]

"""A large store's page of entries in a real Chromium: live updates keep the page the reader is
on, and the pager's links move between pages."""

from __future__ import annotations

import multiprocessing

import pytest
from playwright.sync_api import expect

from tests.conftest import BROWSER_TIMEOUT_MS
from tests.memory_view.helpers import write_config, write_store
from tests.memory_view.workers import add_after

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ENTRIES = [f"Stored fact {index:03d} about the release process." for index in range(1, 251)]


def test_it_updates_the_page_of_entries_in_place_and_pages_with_its_links(signed_in_page, live_server, home):
    page = signed_in_page
    write_config(home, memory_char_limit=100_000)
    write_store(home, "memory", ENTRIES)
    page.goto(f"{live_server.url}/memory/?memory_page=3")
    page.wait_for_function("() => document.querySelector('#memory-live-status').dataset.state === 'live'")
    texts = page.locator("#entries-memory .entry-text")
    expect(texts).to_have_count(50)
    expect(texts.first).to_have_text(ENTRIES[200])

    writer = multiprocessing.get_context("spawn").Process(
        target=add_after, args=(str(home), "memory", "Added while page 3 is open.", 0.2)
    )
    writer.start()
    expect(texts.last).to_have_text("Added while page 3 is open.", timeout=BROWSER_TIMEOUT_MS)
    writer.join(timeout=180)
    expect(texts).to_have_count(51)
    expect(texts.first).to_have_text(ENTRIES[200])
    assert page.url.endswith("/memory/?memory_page=3")

    page.locator("#pager-memory-previous").click()
    page.wait_for_url("**/memory/?memory_page=2#store-memory")
    expect(texts).to_have_count(100)
    expect(texts.first).to_have_text(ENTRIES[100])
    expect(page.locator("#pager-memory a[aria-current='page']")).to_have_text("2")

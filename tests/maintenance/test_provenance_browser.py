"""In Chromium: an entry's source link on the memory page opens the transcript at the message that
wrote it, on the right page of a long session (the screenshots of the provenance links in
docs/screenshots/issue-18 come from here)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from memory_core import caching
from tests.conftest import PASSWORD, keep_for_docs, screenshot
from tests.maintenance.history_builder import HistoryBuilder, success
from tests.memory_view.helpers import write_store
from tests.memory_view.test_browser_live import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SESSION = "20260110_090000_abcdef"
REWOUND = "20260111_090000_fedcba"
ENTRY = "Deploys go through staging first; production needs a green staging run."
TAKEN_BACK = "Prefers answers in British English."


def _history(home) -> HistoryBuilder:
    db = HistoryBuilder(home)
    db.session(SESSION, source="telegram", title="Release process")
    for n in range(130):  # the write sits on the transcript's second page
        db.say(SESSION, "user" if n % 2 == 0 else "assistant", f"Message {n} about the release train.")
    db.call("deploy", SESSION, {"action": "add", "content": ENTRY}, success("memory"))
    db.say(SESSION, "assistant", "Saved: deploys go through staging first.")
    db.session(REWOUND, source="cli", title="Spelling")
    db.say(REWOUND, "user", "Please use British spelling from now on.")
    db.call("spelling", REWOUND, {"action": "add", "target": "user", "content": TAKEN_BACK}, success("user"))
    # The user rewound the turn afterwards: the write still happened (docs/agent_formats.md §Memory tool calls in
    # history).
    db.conn.execute("UPDATE messages SET active = 0 WHERE session_id = ?", (REWOUND,))
    db.close()
    return db


def test_it_follows_an_entrys_source_link_to_the_transcript_message(page, live_server, owner, home):
    caching.clear_all()
    db = _history(home)
    write_store(home, "memory", [ENTRY, "Written by hand."])
    write_store(home, "user", [TAKEN_BACK])
    sign_in(page, live_server, owner)

    page.goto(f"{live_server.url}/memory/")
    entry = page.locator("#entries-memory > li").first
    expect(entry.locator(".entry__source")).to_contain_text("in a telegram session.")
    # An entry without a record has no line of its own; its store says once what that means.
    expect(page.locator("#entries-memory > li").nth(1).locator(".entry__source")).to_have_count(0)
    expect(page.locator("#store-memory-no-record")).to_contain_text("has no record in history")
    keep_for_docs(screenshot(page, "provenance-memory-page-en"), issue=18)

    entry.get_by_role("link", name="Open the transcript at this message").click()
    message_id = db.ids["deploy"]
    page.wait_for_url(f"**/sessions/{SESSION}/?page=2&hit={message_id}#m-{message_id}")
    hit = page.locator(f"#m-{message_id}")
    expect(hit).to_have_attribute("aria-current", "true")
    expect(hit).to_contain_text("memory")
    expect(hit).to_be_in_viewport()
    keep_for_docs(screenshot(page, "provenance-transcript-en"), issue=18)

    # A write in a turn the user took back: the link shows the rewound rows too.
    page.goto(f"{live_server.url}/memory/")
    page.locator("#entries-user > li").first.get_by_role("link", name="Open the transcript at this message").click()
    taken_back = page.locator(f"#m-{db.ids['spelling']}")
    expect(taken_back).to_have_attribute("aria-current", "true")
    expect(taken_back).to_have_class("turn turn--assistant turn--inactive turn--hit")
    assert "all=1" in page.url

    # The same lookup dates the entries: the maintenance page lists those older than a chosen age.
    page.goto(f"{live_server.url}/memory/memory/maintenance/")
    page.get_by_label("List entries written more than this many days ago").fill("30")
    page.get_by_role("button", name="Find old entries").click()
    stale = page.locator('#findings-stale .maintenance-finding')  # open: the age was just asked for
    expect(stale).to_have_count(1)
    expect(stale.locator(".entry-text")).to_have_text(ENTRY)
    expect(stale.get_by_role("link", name="Open the transcript at this message")).to_have_attribute(
        "href", f"/sessions/{SESSION}/?hit={message_id}#m-{message_id}")
    stale.scroll_into_view_if_needed()
    keep_for_docs(screenshot(page, "provenance-old-entries-en"), issue=18)


def test_the_source_lines_in_chinese(browser, live_server, owner, home):
    caching.clear_all()
    _history(home)
    write_store(home, "memory", [ENTRY, "Written by hand."])
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="zh-CN")
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/accounts/login/")
        page.locator("input[name=username]").fill(owner.username)
        page.locator("input[name=password]").fill(PASSWORD)
        page.get_by_role("button", name="登录").click()
        page.wait_for_url(f"{live_server.url}/")
        page.goto(f"{live_server.url}/memory/")
        entries = page.locator("#entries-memory > li")
        expect(entries.first.locator(".entry__source")).to_contain_text("在 telegram 会话中写入。")
        expect(entries.nth(1).locator(".entry__source")).to_have_count(0)
        expect(page.locator("#store-memory-no-record")).to_contain_text("历史中没有记录")
        keep_for_docs(screenshot(page, "provenance-memory-page-zh-hans"), issue=18)
    finally:
        context.close()

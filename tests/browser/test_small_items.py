"""Smaller items of the panel's first-use review: the favicon, the blocked page's delete button and
its single message with nothing selected, one wording for what Undo brings back."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.staticfiles import finders
from playwright.sync_api import expect

from admin_panel.demo import seed_demo_home
from tests.a11y.test_axe import _sign_in
from tests.conftest import BROWSER_TIMEOUT_MS
from tests.demo_homes import seeded

UNDO_WORDING = "a blocked entry stays deleted"


@pytest.fixture
def demo_home(home: Path, owner) -> Path:
    seeded(home, seed_demo_home)
    return home


@pytest.mark.django_db
def test_it_links_a_favicon_that_exists(owner_client, demo_home):
    html = owner_client.get("/").content.decode()

    assert '<link rel="icon" href="/static/admin_panel/favicon.svg" type="image/svg+xml">' in html
    assert finders.find("admin_panel/favicon.svg")


@pytest.mark.django_db
def test_it_says_once_that_nothing_is_selected_without_scripts(owner_client, demo_home):
    html = owner_client.get("/memory/delete/", {"next": "/memory/blocked/"}).content.decode()

    assert html.count("Select at least one entry.") == 1
    assert "Nothing to delete." not in html


@pytest.mark.django_db
def test_it_words_what_undo_brings_back_the_same_in_the_dialog_and_after_deleting(owner_client, demo_home):
    blocked = owner_client.get("/memory/blocked/").content.decode()
    entry = blocked.split('name="entry" value="', 1)[1].split('"', 1)[0]
    dialog = owner_client.get("/memory/delete/", {"entry": entry, "next": "/memory/"}).content.decode()
    owner_client.post("/memory/delete/", {"entry": entry, "next": "/memory/"})
    after = owner_client.get("/memory/").content.decode()

    assert UNDO_WORDING in dialog
    assert "cannot come back" not in dialog
    assert UNDO_WORDING in after


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_it_keeps_delete_selected_disabled_until_an_entry_is_selected(browser, live_server, demo_home, owner):
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
    context.set_default_timeout(BROWSER_TIMEOUT_MS)
    _sign_in(context, live_server, owner)
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/memory/blocked/")
        button = page.get_by_role("button", name="Delete selected…")
        expect(button).to_be_disabled()
        page.locator("input[type=checkbox][name=entry]").first.check()
        expect(button).to_be_enabled()
        page.locator("input[type=checkbox][name=entry]").first.uncheck()
        expect(button).to_be_disabled()
    finally:
        context.close()

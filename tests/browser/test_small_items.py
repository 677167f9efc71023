"""Smaller items of the panel's first-use review: the favicon, the blocked page's delete button and
its single message with nothing selected (beside the list without scripts), Undo offered only for
what it can bring back."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote

import pytest
from django.contrib.staticfiles import finders
from playwright.sync_api import Page, expect

from admin_panel.demo import seed_demo_home
from tests.a11y.test_axe import _sign_in
from tests.conftest import BROWSER_TIMEOUT_MS
from tests.demo_homes import seeded

UNDO_WORDING = "a blocked entry stays deleted"


@contextlib.contextmanager
def phone_page(browser, live_server, owner, path: str) -> Iterator[Page]:
    """``path`` open on a phone-sized page, signed in as ``owner``."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
    context.set_default_timeout(BROWSER_TIMEOUT_MS)
    _sign_in(context, live_server, owner)
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}{path}")
        yield page
    finally:
        context.close()


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
def test_it_answers_favicon_ico_with_the_panels_icon_signed_in_or_not(owner_client, demo_home):
    from django.test import Client

    client = Client()  # signed out: the sign-in page asks for the icon too
    for asking in (client, owner_client):
        response = asking.get("/favicon.ico")
        assert response.status_code == 302
        assert response["Location"] == "/static/admin_panel/favicon.svg"
    icon = client.get("/favicon.ico", follow=True)
    assert icon.status_code == 200 and icon["Content-Type"].startswith("image/svg+xml")


@pytest.mark.django_db
def test_it_says_beside_the_list_that_nothing_is_selected_without_scripts(owner_client, demo_home):
    response = owner_client.get("/memory/delete/", {"next": "/memory/blocked/"}, follow=True)
    html = response.content.decode()
    bar = html.split('id="blocked-bar"', 1)[1].split("</div>", 1)[0]

    assert response.redirect_chain == [("/memory/blocked/?selection=none#blocked-bar", 302)]
    assert html.count("Select at least one entry.") == 1
    assert 'id="blocked-nothing-selected"' in bar
    assert "Nothing to delete." not in html


@pytest.mark.django_db
def test_it_says_once_in_the_dialog_that_nothing_is_selected(owner_client, demo_home):
    html = owner_client.get("/memory/delete/", {"next": "/memory/blocked/"}, HTTP_HX_REQUEST="true").content.decode()

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


def _blocked_ref(client) -> str:
    blocked = client.get("/memory/blocked/").content.decode()
    return blocked.split('name="entry" value="', 1)[1].split('"', 1)[0]


@pytest.mark.django_db
def test_it_offers_no_undo_after_deleting_only_a_blocked_entry(owner_client, demo_home):
    owner_client.post("/memory/delete/", {"entry": _blocked_ref(owner_client), "next": "/memory/"})
    after = owner_client.get("/memory/").content.decode()

    assert 'id="memory-undo"' not in after
    assert "There is nothing to undo: a blocked entry stays deleted." in after


@pytest.mark.django_db
def test_it_offers_undo_only_for_the_clean_entries_of_a_mixed_deletion(owner_client, demo_home):
    blocked = _blocked_ref(owner_client)
    page = owner_client.get("/memory/").content.decode()
    refs = re.findall(r"entry=((?:memory|user)%3A[^&\"]+)", page)
    clean = next(unquote(ref) for ref in refs if unquote(ref) != blocked)
    owner_client.post("/memory/delete/", {"entry": [clean, blocked], "next": "/memory/"})
    after = owner_client.get("/memory/").content.decode()

    assert "You deleted 2 entries." in after
    owner_client.post("/memory/undo/", {"next": "/memory/"})
    restored = owner_client.get("/memory/").content.decode()
    assert "Added back 1 of 1 entries." in restored
    assert "Not added back" not in restored


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_it_keeps_delete_selected_disabled_until_an_entry_is_selected(browser, live_server, demo_home, owner):
    with phone_page(browser, live_server, owner, "/memory/blocked/") as page:
        button = page.get_by_role("button", name="Delete selected…")
        expect(button).to_be_disabled()
        page.locator("input[type=checkbox][name=entry]").first.check()
        expect(button).to_be_enabled()
        page.locator("input[type=checkbox][name=entry]").first.uncheck()
        expect(button).to_be_disabled()
        select_all = page.get_by_label("Select all")
        select_all.check()
        expect(button).to_be_enabled()
        select_all.uncheck()
        expect(button).to_be_disabled()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_it_keeps_approve_and_reject_disabled_until_a_pending_write_is_selected(browser, live_server, demo_home, owner):
    with phone_page(browser, live_server, owner, "/memory/pending/") as page:
        buttons = [page.get_by_role("button", name="Approve selected"),
                   page.get_by_role("button", name="Reject selected")]
        boxes = page.locator("input[type=checkbox][name=pending_id]")
        assert boxes.count() >= 2
        for button in buttons:
            expect(button).to_be_disabled()
        boxes.first.check()
        for button in buttons:
            expect(button).to_be_enabled()
        boxes.first.uncheck()
        for button in buttons:
            expect(button).to_be_disabled()
        select_all = page.get_by_label("Select all")
        select_all.check()
        for button in buttons:
            expect(button).to_be_enabled()
        for index in range(boxes.count()):
            expect(boxes.nth(index)).to_be_checked()
        select_all.uncheck()
        for button in buttons:
            expect(button).to_be_disabled()
        # Stacked on a phone, each write says "Content" once: its column's label, not again inside.
        # What a row shows: each cell's label (drawn before it by CSS) and its text.
        shown = page.evaluate("""() => [...document.querySelectorAll('#pending-table tbody tr')].map(row =>
          [...row.cells].map(cell => getComputedStyle(cell, '::before').content + ' ' + cell.innerText).join(' '))""")
        assert len(shown) >= 2
        for row in shown:
            assert row.count("Content") == 1, row

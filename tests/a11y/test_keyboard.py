"""Keyboard only: configure a provider and delete a blocked entry with Tab, arrows, Space and Enter.

Every element the focus rests on must show a visible focus indicator, and the focus must move
forward through the page in document order. Screenshots of each step go to test-artifacts/.
"""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest
from django.test import Client

from admin_panel.demo import seed_demo_home
from memory_core import DELIMITER, parse_entries, scan_for_threats
from tests.a11y.keyboard import assert_visible_focus, focused, reset_order, tab_to
from tests.conftest import BROWSER_TIMEOUT_MS, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def keyboard_page(browser, live_server, home, owner):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    context.set_default_timeout(BROWSER_TIMEOUT_MS)
    client = Client()
    client.force_login(owner)
    host = live_server.url.split("://", 1)[1].split(":")[0]
    cookie = {"name": "sessionid", "value": client.cookies["sessionid"].value, "domain": host, "path": "/"}
    context.add_cookies([cookie])
    page = context.new_page()
    yield page
    context.close()


def _enter_and_wait(page) -> None:
    with page.expect_navigation():
        page.keyboard.press("Enter")
    reset_order(page)


def test_it_configures_hindsight_with_the_keyboard_alone(keyboard_page, live_server, home):
    """A new user in an empty agent home."""
    page = keyboard_page
    api_key = "hs-" + secrets.token_hex(12)
    page.goto(f"{live_server.url}/")

    # The skip link comes first and is visible when focused.
    page.keyboard.press("Tab")
    skip = focused(page, "a.skip-link")
    assert_visible_focus(skip)
    assert skip is not None and skip.matches

    tab_to(page, "nav a[href='/providers/']")
    _enter_and_wait(page)
    tab_to(page, "a[href='/providers/hindsight/']")
    _enter_and_wait(page)
    screenshot(page, "keyboard-1-hindsight")

    tab_to(page, "select[name='v:mode']")
    page.keyboard.press("ArrowDown")  # Cloud -> Local External
    assert page.locator("select[name='v:mode']").input_value() == "local_external"
    stop = tab_to(page, "input[name='secret:api_key']")
    assert stop.matches
    page.keyboard.press("ArrowDown")  # Leave unset -> Set a value
    assert page.locator("input[name='secret:api_key'][value='replace']").is_checked()
    # Choosing "Set a value" moves the focus to the password box.
    if not (focused(page, "input[name='new:api_key']") or focused(page)).matches:
        tab_to(page, "input[name='new:api_key']")
    assert_visible_focus(focused(page))
    page.keyboard.type(api_key)
    screenshot(page, "keyboard-2-filled")

    tab_to(page, "form.provider-form button[type=submit]")
    _enter_and_wait(page)
    assert "/review/" in page.url
    screenshot(page, "keyboard-3-review")
    tab_to(page, "form[action$='/save/'] button[type=submit]")
    _enter_and_wait(page)
    screenshot(page, "keyboard-4-saved")

    assert '"mode": "local_external"' in (home / "hindsight" / "config.json").read_text(encoding="utf-8")
    assert f"HINDSIGHT_API_KEY={api_key}" in (home / ".env").read_text(encoding="utf-8").splitlines()
    assert api_key not in page.content()


def test_it_deletes_a_blocked_entry_with_the_keyboard_alone(keyboard_page, live_server, home):
    seed_demo_home(home)
    page = keyboard_page
    memory_file = home / "memories" / "MEMORY.md"
    before = parse_entries(memory_file.read_text(encoding="utf-8"))
    blocked = [entry for entry in before if scan_for_threats(entry)]
    assert len(blocked) == 1
    page.goto(f"{live_server.url}/")

    tab_to(page, "nav a[href='/memory/']")
    _enter_and_wait(page)
    tab_to(page, "a[href='/memory/blocked/']")
    _enter_and_wait(page)
    screenshot(page, "keyboard-5-blocked")

    tab_to(page, "input[type=checkbox][name=entry]")
    page.keyboard.press("Space")
    assert page.locator("input[type=checkbox][name=entry]").first.is_checked()
    # The action bar sits above the list: back up to its button.
    tab_to(page, "form#blocked-form button[type=submit]", backwards=True)
    page.keyboard.press("Enter")

    # The confirmation opens as a modal dialog holding the focus; it lists what will go.
    dialog = page.locator("dialog[open]")
    dialog.wait_for()
    reset_order(page)
    assert_visible_focus(focused(page))
    assert blocked[0][:30] in dialog.inner_text()
    screenshot(page, "keyboard-6-confirm")
    tab_to(page, "dialog[open] form[method=post] button[type=submit]")
    page.keyboard.press("Enter")
    page.locator("dialog[open]").wait_for(state="detached")
    page.wait_for_load_state()
    screenshot(page, "keyboard-7-deleted")

    after = memory_file.read_text(encoding="utf-8")
    assert after == DELIMITER.join(entry for entry in before if entry not in blocked)
    assert not Path(home / "memories" / "MEMORY.md.lock").is_dir()


def test_it_opens_collapsed_sections_and_leaves_a_dialog_with_the_keyboard(keyboard_page, live_server, home):
    seed_demo_home(home)
    page = keyboard_page
    page.goto(f"{live_server.url}/providers/hindsight/")

    summary = tab_to(page, "details.provider-section > summary")
    assert summary.matches
    page.keyboard.press("Enter")
    assert page.locator("details.provider-section").first.evaluate("d => d.open")
    page.keyboard.press("Enter")
    assert not page.locator("details.provider-section").first.evaluate("d => d.open")

    # A dialog opened from the keyboard closes with Escape and gives the focus back to its opener.
    page.goto(f"{live_server.url}/memory/")
    reset_order(page)
    opener = tab_to(page, "a[href*='/edit/'][data-dialog]")
    page.keyboard.press("Enter")
    page.locator("dialog[open] textarea").wait_for()
    assert_visible_focus(focused(page))
    page.keyboard.press("Escape")
    page.locator("dialog[open]").wait_for(state="detached")
    back = focused(page)
    assert back is not None and back.html == opener.html


def test_it_announces_live_changes_without_moving_the_focus(keyboard_page, live_server, home):
    from memory_core import add_entry

    seed_demo_home(home)
    page = keyboard_page
    page.goto(f"{live_server.url}/memory/")
    before = tab_to(page, "a[href*='/edit/'][data-dialog]")

    result = add_entry(home=home, target="user", content="Prefers tea to coffee in the afternoon.")
    assert result["success"], result
    page.locator(".entry-text", has_text="Prefers tea to coffee in the afternoon.").wait_for()

    after = focused(page)
    assert after is not None and after.html == before.html
    announcer = page.locator("[aria-live='polite']").filter(has_text="USER.md")
    announcer.wait_for()
    assert "USER.md" in announcer.inner_text()

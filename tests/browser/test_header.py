"""The header: one row on a laptop, the same in English and Chinese; the switchers apply on change
(their buttons only without scripts); Maintenance in the navigation; the pending-writes badge with
its count on every page."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from admin_panel.demo import seed_demo_home
from memory_core.pending import count_pending
from tests.a11y.test_axe import _sign_in
from tests.conftest import BROWSER_TIMEOUT_MS
from tests.demo_homes import seeded

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LAPTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}

# The rows the header's parts sit on: parts whose vertical middles differ by more than half a line.
ROWS_JS = """() => {
  const middles = [...document.querySelectorAll('.site-header__inner > *')]
    .filter(el => el.getClientRects().length)
    .map(el => { const box = el.getBoundingClientRect(); return box.top + box.height / 2; });
  const rows = [];
  for (const middle of middles.sort((a, b) => a - b)) {
    if (!rows.length || middle - rows[rows.length - 1] > 12) { rows.push(middle); }
  }
  const widths = [...document.querySelectorAll('.site-header__inner > *')].map(el => Math.round(el.scrollWidth));
  return {widths, rows: rows.length, height: document.querySelector('.site-header').getBoundingClientRect().height};
}"""


@pytest.fixture
def demo_home(home: Path, owner) -> Path:
    seeded(home, seed_demo_home)
    return home


def _page(browser, live_server, owner, *, viewport, locale="en-US", scripts=True):
    context = browser.new_context(viewport=viewport, locale=locale, java_script_enabled=scripts)
    context.set_default_timeout(BROWSER_TIMEOUT_MS)
    _sign_in(context, live_server, owner)
    return context.new_page()


def test_it_keeps_the_header_on_one_row_on_a_laptop_in_both_languages(browser, live_server, demo_home, owner):
    measured = {}
    for locale in ("en-US", "zh-CN"):
        page = _page(browser, live_server, owner, viewport=LAPTOP, locale=locale)
        try:
            page.goto(f"{live_server.url}/memory/")
            page.wait_for_load_state("load")
            measured[locale] = page.evaluate(ROWS_JS)
        finally:
            page.context.close()

    assert measured["en-US"]["rows"] == 1, measured
    assert measured["zh-CN"]["rows"] == 1, measured
    assert abs(measured["en-US"]["height"] - measured["zh-CN"]["height"]) <= 2, measured


def test_it_links_maintenance_and_counts_pending_writes_on_every_page(browser, live_server, demo_home, owner):
    waiting = count_pending(demo_home)
    assert waiting > 0  # the demo home has writes waiting for approval
    for viewport in (LAPTOP, PHONE):
        page = _page(browser, live_server, owner, viewport=viewport)
        try:
            for path in ("/", "/providers/", "/settings/", "/memory/", "/sessions/", "/audit/"):
                page.goto(live_server.url + path)
                badge = page.locator(".site-header .pending-badge")
                expect(badge).to_be_visible()
                expect(badge).to_contain_text(f"Pending writes {waiting}")
                assert badge.get_attribute("href") == "/memory/pending/"
                if viewport is PHONE:  # the navigation is behind the Menu button on a phone
                    page.locator(".site-menu-toggle").click()
                maintenance = page.get_by_role("navigation", name="Main").get_by_role("link", name="Maintenance")
                expect(maintenance).to_be_visible()
            maintenance.click()
            page.wait_for_url("**/memory/memory/maintenance/")
            if viewport is PHONE:
                page.locator(".site-menu-toggle").click()
            expect(maintenance).to_have_attribute("aria-current", "page")
            memory = page.get_by_role("navigation", name="Main").get_by_role("link", name="Memory", exact=True)
            expect(memory).not_to_have_attribute("aria-current", "page")
        finally:
            page.context.close()


def test_it_changes_the_language_on_change_and_shows_the_button_only_without_scripts(
    browser, live_server, demo_home, owner
):
    page = _page(browser, live_server, owner, viewport=PHONE)
    try:
        page.goto(f"{live_server.url}/providers/")
        expect(page.locator("form.language button")).to_be_hidden()
        page.locator(".site-menu-toggle").click()  # on a phone the switchers are behind Menu
        page.locator("#language-select").select_option("zh-hans")
        expect(page.locator("html")).to_have_attribute("lang", "zh-hans")
        assert page.url == f"{live_server.url}/providers/"
    finally:
        page.context.close()

    page = _page(browser, live_server, owner, viewport=PHONE, scripts=False)
    try:
        page.goto(f"{live_server.url}/providers/")
        button = page.locator("form.language button")
        expect(button).to_be_visible()
        page.locator("#language-select").select_option("zh-hans")
        expect(page.locator("html")).to_have_attribute("lang", "en")  # nothing happens until the button
        button.click()
        expect(page.locator("html")).to_have_attribute("lang", "zh-hans")
    finally:
        page.context.close()


# The header's visible parts on a phone, with the tallest one's height and the header's own box.
PHONE_HEADER_JS = """() => {
  const header = document.querySelector('.site-header');
  const inner = header.querySelector('.site-header__inner');
  const parts = [...inner.children].filter(el => el.getClientRects().length);
  const middles = parts.map(el => { const box = el.getBoundingClientRect(); return box.top + box.height / 2; });
  const rows = [];
  for (const middle of middles.sort((a, b) => a - b)) {
    if (!rows.length || middle - rows[rows.length - 1] > 12) { rows.push(middle); }
  }
  const style = getComputedStyle(inner);
  return {
    rows: rows.length,
    height: header.getBoundingClientRect().height,
    tallest: Math.max(...parts.map(el => el.getBoundingClientRect().height)),
    chrome: parseFloat(style.paddingTop) + parseFloat(style.paddingBottom) + parseFloat(style.rowGap)
      + parseFloat(getComputedStyle(header).borderBottomWidth),
    parts: parts.map(el => el.className),
  };
}"""


@pytest.mark.parametrize("locale", ["en-US", "zh-CN"])
def test_it_keeps_the_header_within_two_rows_on_a_phone_and_folds_nothing_away(
    browser, live_server, demo_home, owner, locale
):
    page = _page(browser, live_server, owner, viewport=PHONE, locale=locale)
    try:
        page.goto(f"{live_server.url}/memory/")
        page.wait_for_load_state("load")
        measured = page.evaluate(PHONE_HEADER_JS)
        assert measured["rows"] <= 2, measured
        # Two rows of the header's tallest part, its padding and one gap: no third row hides in it.
        assert measured["height"] <= 2 * measured["tallest"] + measured["chrome"] + 1, measured
        expect(page.locator(".site-header .pending-badge")).to_be_visible()

        # Everything the header offers is one press away: the navigation, both switchers, the
        # account and signing out; Escape folds it again.
        toggle = page.locator(".site-menu-toggle")
        expect(toggle).to_have_attribute("aria-expanded", "false")
        nav = page.locator("#site-nav")
        expect(nav).to_be_hidden()
        toggle.click()
        expect(toggle).to_have_attribute("aria-expanded", "true")
        links = nav.get_by_role("link")
        assert links.count() >= 8
        for index in range(links.count()):
            expect(links.nth(index)).to_be_visible()
        for selector in ("#language-select", "#profile-select", ".logout__user", ".logout button"):
            expect(page.locator(selector)).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        page.keyboard.press("Escape")
        expect(nav).to_be_hidden()
        expect(toggle).to_be_focused()
    finally:
        page.context.close()


def test_it_shows_the_whole_header_on_a_phone_without_scripts(browser, live_server, demo_home, owner):
    page = _page(browser, live_server, owner, viewport=PHONE, scripts=False)
    try:
        page.goto(f"{live_server.url}/memory/")
        expect(page.locator(".site-menu-toggle")).to_be_hidden()
        expect(page.locator("#site-nav").get_by_role("link", name="Maintenance")).to_be_visible()
        expect(page.locator("#language-select")).to_be_visible()
    finally:
        page.context.close()

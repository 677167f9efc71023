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
                maintenance = page.get_by_role("navigation", name="Main").get_by_role("link", name="Maintenance")
                expect(maintenance).to_be_visible()
            maintenance.click()
            page.wait_for_url("**/memory/memory/maintenance/")
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

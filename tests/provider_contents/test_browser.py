"""The contents pages in a real Chromium: keyboard only, without JavaScript, phone and desktop sizes
(screenshots for the docs with DOCS_SCREENSHOTS=1)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.conftest import keep_for_docs, screenshot
from tests.provider_contents import store as plugin

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def facts(home: Path) -> Path:
    (home / "config.yaml").write_text("memory:\n  provider: holographic\n")
    (home / "memories").mkdir(exist_ok=True)
    (home / "memories" / "MEMORY.md").write_text("The staging host is osprey.\n§\nDeploys go out on Fridays.")
    (home / "memories" / "USER.md").write_text("Prefers tabs.")
    path = plugin.create(home / "memory_store.db")
    conn = plugin.connect(path)
    for text, category in (("The staging host is kestrel.", "general"), ("The staging host is osprey.", "general"),
                           ("Deploys go out on Fridays.", "general"), ("Prefers tabs.", "user_pref"),
                           ("Ada Lovelace reviews the Payment Service on Mondays.", "project"),
                           ("Use 'ruff' and 'pytest' before every commit.", "tool")):
        plugin.add_fact(conn, text, category)
    conn.close()
    return path


def test_it_deletes_a_fact_and_undoes_it_with_the_keyboard_only(signed_in_page, live_server, facts):
    page = signed_in_page
    page.goto(f"{live_server.url}/contents/holographic/")
    link = page.get_by_role("link", name="Delete fact 1")
    link.focus()
    page.keyboard.press("Enter")
    page.wait_for_url("**/contents/holographic/1/delete/")
    page.get_by_role("button", name="Delete").focus()
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/contents/holographic/")
    assert "kestrel" not in page.locator("#contents-results").inner_text()
    page.get_by_role("button", name="Undo").focus()
    page.keyboard.press("Enter")
    # The undo answers with the same address, so waiting for the address proves nothing: wait for the fact.
    expect(page.locator("#contents-results")).to_contain_text("kestrel")


@pytest.mark.parametrize(("width", "height"), [(390, 844), (1366, 900)])
def test_it_reads_well_on_a_phone_and_a_desktop(browser, live_server, owner, facts, width, height):
    from tests.conftest import PASSWORD

    context = browser.new_context(viewport={"width": width, "height": height}, locale="en-US",
                                  java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/accounts/login/")
        page.get_by_label("Username").fill(owner.username)
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(f"{live_server.url}/")
        for path, name in (("/contents/holographic/", "list"), ("/contents/holographic/5/", "fact"),
                           ("/contents/holographic/left-behind/", "left-behind"), ("/memory/", "memory-copies"),
                           ("/contents/mem0/", "unreachable")):
            page.goto(f"{live_server.url}{path}")
            assert page.locator("main").is_visible()
            # Nothing wider than the screen: the page scrolls down, never sideways.
            assert page.evaluate("document.documentElement.scrollWidth") <= width + 1, path
            keep_for_docs(screenshot(page, f"contents-{name}-{width}x{height}"), issue=26)
        page.goto(f"{live_server.url}/contents/holographic/?q=staging")
        assert "2 facts" in page.locator("#contents-results").inner_text()
    finally:
        context.close()

"""Pending writes you cannot miss: the header's badge counts writes the agent stages in another
process, live, without a reload; the overview leads with them; a viewer sees the badge and the
queue but no approve controls."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect

from admin_panel.demo import seed_demo_home
from memory_core.pending import count_pending
from tests.a11y.test_axe import _sign_in
from tests.conftest import BROWSER_TIMEOUT_MS
from tests.demo_homes import seeded

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

STAGE = """
import sys
from memory_core.pending import stage
stage(sys.argv[1], payload={"action": "add", "target": "memory", "content": sys.argv[2]}, summary="add: " + sys.argv[2])
"""


def _stage_in_another_process(home: Path, content: str) -> None:
    subprocess.run([sys.executable, "-c", STAGE, str(home), content], check=True, timeout=120)


@pytest.fixture
def demo_home(home: Path, owner) -> Path:
    seeded(home, seed_demo_home)
    return home


def _page(browser, live_server, user):
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
    context.set_default_timeout(BROWSER_TIMEOUT_MS)
    _sign_in(context, live_server, user)
    return context.new_page()


def test_it_counts_up_the_badge_when_the_agent_stages_a_write_without_a_reload(browser, live_server, demo_home, owner):
    waiting = count_pending(demo_home)
    page = _page(browser, live_server, owner)
    try:
        page.goto(f"{live_server.url}/providers/")
        count = page.locator("#pending-badge .pending-badge__count")
        expect(count).to_have_text(str(waiting))
        page.evaluate("window.__same_document = true")

        _stage_in_another_process(demo_home, "Deploys freeze on Fridays.")
        expect(count).to_have_text(str(waiting + 1))
        _stage_in_another_process(demo_home, "The staging host is stg-2.")
        expect(count).to_have_text(str(waiting + 2))

        assert page.evaluate("window.__same_document") is True  # no reload happened
    finally:
        page.context.close()


def test_it_shows_the_badge_when_the_first_write_waits_and_the_overview_leads_with_it(
    browser, live_server, home: Path, owner
):
    page = _page(browser, live_server, owner)
    try:
        page.goto(f"{live_server.url}/")
        badge = page.locator("#pending-badge")
        expect(badge).to_be_hidden()
        expect(page.locator(".pending-lead")).to_have_count(0)

        _stage_in_another_process(home, "Prefers short answers.")
        expect(badge).to_be_visible()
        expect(badge).to_contain_text("Pending writes 1")

        page.reload()
        lead = page.locator("main > .pending-lead")
        expect(lead).to_contain_text("1 memory write waits for approval")
        # The lead comes before anything else on the overview.
        assert page.evaluate("document.querySelector('main h1').nextElementSibling.classList.contains('pending-lead')")
    finally:
        page.context.close()


def test_it_shows_a_viewer_the_badge_but_no_approve_controls(browser, live_server, demo_home, viewer):
    page = _page(browser, live_server, viewer)
    try:
        page.goto(f"{live_server.url}/memory/pending/")
        expect(page.locator("#pending-badge")).to_be_visible()
        expect(page.get_by_role("button", name="Approve")).to_have_count(0)
        # Asking for notifications happens only on a press, never on load.
        assert page.evaluate("Notification.permission") == "default"
    finally:
        page.context.close()

"""Merging a duplicate group from the maintenance page in Chromium, checked on disk, in English
and in Chinese (the screenshots of docs/screenshots/issue-18 come from here)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from admin_panel.demo import seed_demo_home
from admin_panel.demo_memory import seed_budget_history
from memory_core.entries import DELIMITER
from tests.conftest import keep_for_docs, screenshot
from tests.memory_view.helpers import read_store, write_store
from tests.memory_view.test_browser_live import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ENTRIES = [
    "Prefers dark mode in every editor.",
    "Repo uses uv for Python deps.",
    "prefers dark mode in every editor",
    "Yesterday we moved CI to GitHub Actions.",
    "CI runs on GitHub Actions.",
]


def _keep(page, name: str) -> None:
    keep_for_docs(screenshot(page, name), issue=18)


def test_it_merges_a_duplicate_group_from_the_maintenance_page(page, live_server, owner, home):
    write_store(home, "memory", ENTRIES)
    write_store(home, "user", ["Name: Dana"])
    sign_in(page, live_server, owner)

    page.goto(f"{live_server.url}/memory/")
    page.locator("#store-memory-maintenance").click()
    expect(page.locator("h1")).to_have_text("Maintenance of MEMORY.md")
    group = page.locator("#group-1")
    expect(group.locator(".badge").first).to_have_text("Same text")
    expect(page.locator("#finding-1 mark")).to_have_text("Yesterday")

    group.locator("summary").click()  # each group is folded under its summary line
    group.get_by_role("link", name="Merge these entries").click()
    content = page.locator("textarea[name=content]")
    expect(content).to_have_value("Prefers dark mode in every editor.")
    content.fill("Prefers dark mode in every editor and terminal.")
    page.get_by_role("button", name="Review").click()
    expect(page.locator("#merge-result")).to_have_text("Prefers dark mode in every editor and terminal.")
    expect(page.locator("#merge-findings")).to_have_text("The threat scanner found nothing.")
    # Another writer changes an unrelated entry while the review is open: the merge still applies.
    write_store(home, "memory", [*ENTRIES, "Added by the agent meanwhile."])
    page.get_by_role("button", name="Confirm and write").click()

    expect(page.locator(".message--success")).to_contain_text("Merged 2 entries of MEMORY.md into one.")
    on_disk = (home / "memories" / "MEMORY.md").read_bytes().decode("utf-8")
    assert on_disk == DELIMITER.join(
        [
            "Prefers dark mode in every editor and terminal.",
            "Repo uses uv for Python deps.",
            "Yesterday we moved CI to GitHub Actions.",
            "CI runs on GitHub Actions.",
            "Added by the agent meanwhile.",
        ]
    )
    expect(page.locator("#maintenance-no-duplicates")).to_be_visible()

    page.get_by_role("button", name="Undo").click()
    expect(page.locator(".message--success")).to_contain_text("is back as it was")
    assert read_store(home, "memory") == [*ENTRIES, "Added by the agent meanwhile."]


def test_it_refuses_the_merge_when_a_picked_entry_changed_during_the_review(page, live_server, owner, home):
    write_store(home, "memory", ENTRIES)
    sign_in(page, live_server, owner)
    page.goto(f"{live_server.url}/memory/memory/maintenance/")
    page.locator("#group-1 summary").click()
    page.locator("#group-1").get_by_role("link", name="Merge these entries").click()
    page.get_by_role("button", name="Review").click()
    changed = [ENTRIES[0], ENTRIES[1], "prefers dark mode in every editor, edited", *ENTRIES[3:]]
    write_store(home, "memory", changed)
    before = (home / "memories" / "MEMORY.md").read_bytes()

    page.get_by_role("button", name="Confirm and write").click()

    expect(page.locator("#merge-gone")).to_be_visible()
    assert (home / "memories" / "MEMORY.md").read_bytes() == before


@pytest.mark.parametrize(
    ("language", "locale", "title"), [("en", "en-US", "Review the change"), ("zh-hans", "zh-CN", "检查更改")]
)
def test_the_maintenance_page_and_a_review_in_each_language(browser, live_server, owner, home, language, locale, title):
    seed_demo_home(home)
    seed_budget_history(home)
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale=locale)
    page = context.new_page()
    try:
        sign_in_button = "Sign in" if language == "en" else "登录"
        page.goto(f"{live_server.url}/accounts/login/")
        page.locator("input[name=username]").fill(owner.username)
        from tests.conftest import PASSWORD

        page.locator("input[name=password]").fill(PASSWORD)
        page.get_by_role("button", name=sign_in_button).click()
        page.wait_for_url(f"{live_server.url}/")
        page.goto(f"{live_server.url}/memory/")
        expect(page.locator("#store-memory-maintenance-banner, #store-memory-maintenance").first).to_be_visible()
        page.goto(f"{live_server.url}/memory/memory/maintenance/")
        expect(page.locator("#maintenance-duplicates .maintenance-group")).to_have_count(2)
        expect(page.locator(".budget-chart circle")).to_have_count(21)
        expect(page.locator("#budget-forecast")).not_to_be_empty()
        _keep(page, f"maintenance-page-{language}")
        page.locator("#group-1 summary").click()
        page.locator("#group-1 a[href*='/maintenance/merge/']").click()
        page.locator("button[name=step][value=review]").click()
        expect(page.locator("h1")).to_have_text(title)
        _keep(page, f"merge-review-{language}")
    finally:
        context.close()

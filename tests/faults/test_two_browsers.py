"""Two admins in two browsers save the same provider from forms loaded at the same time: the
second one gets the conflict message, nothing of the first save is lost, and the second can then
save knowingly on top of it."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from admin_panel.models import AuditEntry
from tests.conftest import BROWSER_TIMEOUT_MS, PASSWORD, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _signed_in(browser, live_server, username: str, scheme: str = "light"):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US", color_scheme=scheme)
    context.set_default_timeout(BROWSER_TIMEOUT_MS)
    page = context.new_page()
    page.goto(f"{live_server.url}/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{live_server.url}/")
    return context, page


def _bank_id(home) -> str:
    return json.loads((home / "hindsight" / "config.json").read_text())["bank_id"]


def _review_and_save(page) -> None:
    page.get_by_role("button", name="Review changes").first.click()
    page.get_by_role("button", name="Save", exact=True).click()


@pytest.fixture
def two_admins(browser, live_server, home, owner, django_user_model):
    django_user_model.objects.create_user(username="second", password=PASSWORD, is_staff=True)
    (home / "hindsight").mkdir()
    (home / "hindsight" / "config.json").write_text(json.dumps({"bank_id": "bank-start"}))
    first = _signed_in(browser, live_server, owner.username)
    second = _signed_in(browser, live_server, "second", scheme="dark")
    yield first[1], second[1]
    first[0].close()
    second[0].close()


def test_it_tells_the_second_saver_about_the_conflict_and_loses_nothing(two_admins, live_server, home):
    alice, bob = two_admins
    for page in (alice, bob):
        page.goto(f"{live_server.url}/providers/hindsight/")
        page.locator('[name="v:bank_id"]').first.fill(f"bank-from-{'alice' if page is alice else 'bob'}")

    _review_and_save(alice)
    expect(alice.get_by_text("Saved. Changes apply the next time the agent starts.")).to_be_visible()
    assert _bank_id(home) == "bank-from-alice"

    bob.get_by_role("button", name="Review changes").first.click()
    conflict = bob.locator("#conflict")
    expect(conflict).to_be_visible()
    assert "nothing was saved" in conflict.inner_text().lower()
    assert "bank" in conflict.inner_text().lower()
    assert bob.locator('[name="v:bank_id"]').first.input_value() == "bank-from-bob"
    screenshot(bob, "fault-two-browsers-conflict-dark")
    assert _bank_id(home) == "bank-from-alice"

    _review_and_save(bob)
    expect(bob.get_by_text("Saved. Changes apply the next time the agent starts.")).to_be_visible()
    assert _bank_id(home) == "bank-from-bob"
    saves = list(AuditEntry.objects.filter(kind="provider_settings").order_by("pk"))
    assert [(e.username, [(r["old"], r["new"]) for r in e.details["changes"]]) for e in saves] == [
        ("owner", [("bank-start", "bank-from-alice")]),
        ("second", [("bank-from-alice", "bank-from-bob")]),
    ]


def test_it_refuses_the_second_save_from_a_review_page_that_went_stale(two_admins, live_server, home):
    alice, bob = two_admins
    for page, value in ((alice, "bank-alice"), (bob, "bank-bob")):
        page.goto(f"{live_server.url}/providers/hindsight/")
        page.locator('[name="v:bank_id"]').first.fill(value)
        page.get_by_role("button", name="Review changes").first.click()

    alice.get_by_role("button", name="Save", exact=True).click()
    expect(alice.get_by_text("Saved. Changes apply the next time the agent starts.")).to_be_visible()
    bob.get_by_role("button", name="Save", exact=True).click()

    expect(bob.locator("#conflict")).to_be_visible()
    screenshot(bob, "fault-two-browsers-stale-review")
    assert _bank_id(home) == "bank-alice"
    assert AuditEntry.objects.filter(kind="provider_settings").count() == 1

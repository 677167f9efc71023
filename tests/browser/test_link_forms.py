"""The two forms a one-time link opens (accepting an invitation, choosing a new password) in a real
Chromium: every field has its label, and a refused form marks each wrong field with its message."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from admin_panel.services import accounts
from tests.conftest import keep_for_docs, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _open_invitation(page, base: str, owner) -> None:
    token = accounts.invite(role="viewer", actor=owner, channel="panel")[1]
    page.goto(f"{base}/accounts/invitation/{token}/")
    page.wait_for_url(f"{base}/accounts/invitation/")


def _open_reset(page, base: str, owner) -> None:
    token = accounts.create_reset_link(account=owner, actor=owner, channel="panel")[1]
    page.goto(f"{base}/accounts/reset/{token}/")
    page.wait_for_url(f"{base}/accounts/reset/")


FORMS = {
    "invitation": (_open_invitation, ("Username", "Password", "Password confirmation"),
                   "Create account and sign in", {"Username": "robin", "Password": "short",
                                                  "Password confirmation": "different"}),
    "reset": (_open_reset, ("New password", "New password confirmation"), "Set the new password and sign in",
              {"New password": "short", "New password confirmation": "different"}),
}


@pytest.mark.parametrize("name", sorted(FORMS))
def test_it_labels_every_field_and_marks_the_wrong_ones_on_both_link_forms(page, live_server, owner, name):
    open_form, labels, submit, wrong = FORMS[name]
    open_form(page, live_server.url, owner)

    for label in labels:
        expect(page.get_by_label(label, exact=True), label).to_be_visible()
    assert page.get_by_role("alert").count() == 0
    keep_for_docs(screenshot(page, f"link-form-{name}"), issue=15)

    for label, value in wrong.items():
        page.get_by_label(label, exact=True).fill(value)
    page.get_by_role("button", name=submit).click()

    expect(page.get_by_role("alert").get_by_text("Please correct the fields marked below.")).to_be_visible()
    confirmation = page.get_by_label(labels[-1], exact=True)
    assert confirmation.get_attribute("aria-invalid") == "true"
    error_id = f"{confirmation.get_attribute('id')}_error"
    assert "didn’t match" in page.locator(f"#{error_id}").inner_text()
    assert error_id in (confirmation.get_attribute("aria-describedby") or "")
    keep_for_docs(screenshot(page, f"link-form-{name}-errors"), issue=15)
    assert get_user_model().objects.count() == 1

"""People and roles in a real Chromium: an admin invites a viewer, the viewer signs up through the
link in a fresh browser, looks around, and a save they attempt is refused."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from admin_panel.permissions import VIEWER, role_of
from tests.conftest import keep_for_docs, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSPHRASE = "a long passphrase for the viewer"


def _post_from_the_page(page, path: str, form: dict[str, str]) -> int:
    """What a hand-made request from the viewer's own signed-in page gets (CSRF token and all)."""
    return page.evaluate(
        """async ([path, form]) => {
            const headers = JSON.parse(document.body.getAttribute("hx-headers"));
            const response = await fetch(path, {method: "POST", headers: headers, body: new URLSearchParams(form)});
            return response.status;
        }""",
        [path, form],
    )


def test_it_lets_an_admin_invite_a_viewer_who_signs_up_looks_around_and_cannot_save(
    signed_in_page, browser, live_server, home
):
    admin = signed_in_page
    admin.get_by_role("navigation", name="Main").get_by_role("link", name="People").click()
    admin.get_by_label("Role", exact=True).select_option("viewer")
    admin.get_by_role("button", name="Create invitation link").click()
    link = admin.get_by_label("One-time link").input_value()
    assert link.startswith(f"{live_server.url}/accounts/invitation/")
    expect(admin.get_by_role("button", name="Copy link")).to_be_visible()

    fresh = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    try:
        viewer = fresh.new_page()
        viewer.goto(link)
        assert viewer.url == f"{live_server.url}/accounts/invitation/"  # the token left the address bar
        viewer.get_by_label("Username").fill("robin")
        viewer.get_by_label("Password", exact=True).fill(PASSPHRASE)
        viewer.get_by_label("Password confirmation").fill(PASSPHRASE)
        viewer.get_by_role("button", name="Create account and sign in").click()
        viewer.wait_for_url(f"{live_server.url}/")
        expect(viewer.get_by_role("link", name="Signed in as robin (Viewer)")).to_be_visible()
        assert role_of(get_user_model().objects.get(username="robin")) == VIEWER

        for path, heading in (("/providers/", "Memory providers"), ("/providers/hindsight/", "Hindsight"),
                              ("/memory/", "Memory"), ("/audit/", "Audit log")):
            viewer.goto(f"{live_server.url}{path}")
            assert heading in viewer.get_by_role("heading", level=1).first.inner_text(), path
            assert viewer.locator("main form[method=post] button[type=submit]:not([disabled])").count() == 0, path
        assert viewer.get_by_role("navigation", name="Main").get_by_role("link", name="People").count() == 0

        viewer.goto(f"{live_server.url}/providers/hindsight/")
        status = _post_from_the_page(viewer, "/providers/hindsight/save/", {"v:bank_id": "robin-was-here"})
        assert status == 403
        assert not (home / "hindsight" / "config.json").exists()

        viewer.goto(link)
        expect(viewer.get_by_role("heading", name="This link cannot be used")).to_be_visible()
    finally:
        fresh.close()

    admin.goto(f"{live_server.url}/people/")
    expect(admin.get_by_role("row", name="robin").get_by_role("cell", name="Viewer", exact=True)).to_be_visible()


def test_it_asks_before_deactivating_and_refuses_the_last_admin_in_the_browser(signed_in_page, live_server, owner):
    page = signed_in_page
    page.goto(f"{live_server.url}/people/")
    page.get_by_role("row", name="owner").get_by_role("button", name="Deactivate").click()
    expect(page.get_by_role("heading", name="Deactivate owner?")).to_be_visible()
    page.get_by_role("button", name="Deactivate").click()

    expect(page.get_by_role("alert").get_by_text("This is the last active admin")).to_be_visible()
    owner.refresh_from_db()
    assert owner.is_active


def _shoot(page, name: str) -> None:
    keep_for_docs(screenshot(page, name), issue=15)


@pytest.mark.parametrize(("language", "people", "audit"), [("en-US", "People", "Audit log"),
                                                            ("zh-CN", "人员", "审计日志")])
def test_it_shows_people_an_invitation_the_account_and_the_audit_in_both_languages(
    browser, live_server, home, owner, viewer, language, people, audit
):
    from admin_panel.services import accounts, providers
    from tests.conftest import PASSWORD

    providers.save_provider_settings(user=owner, channel="panel", home=home, name="hindsight",
                                     values={"bank_id": "acc-one", "api_key": "hs-shot-secret-0001"})
    providers.save_provider_settings(user=owner, channel="panel", home=home, name="hindsight",
                                     values={"bank_id": "acc-two", "api_key": "hs-shot-secret-0002"})
    accounts.create_api_token(account=owner, name="nightly backup", actor=owner, channel="panel")
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale=language)
    try:
        page = context.new_page()
        page.goto(f"{live_server.url}/accounts/login/")
        page.locator("#id_username").fill("owner")
        page.locator("#id_password").fill(PASSWORD)
        page.locator("form button[type=submit]").last.click()
        page.wait_for_url(f"{live_server.url}/")
        page.goto(f"{live_server.url}/people/")
        assert page.get_by_role("heading", level=1).inner_text() == people
        lang = "en" if language == "en-US" else "zh-hans"
        _shoot(page, f"people-{lang}")
        page.locator("form[action='/people/invite/'] button[type=submit]").click()
        assert "/accounts/invitation/" in page.locator("#one-time-link").input_value()
        _shoot(page, f"invitation-{lang}")
        page.goto(f"{live_server.url}/account/")
        _shoot(page, f"account-{lang}")
        page.goto(f"{live_server.url}/audit/")
        assert page.get_by_role("heading", level=1).inner_text() == audit
        expect(page.get_by_text("bank_id: acc-one → acc-two")).to_be_visible()
        assert "hs-shot-secret" not in page.content()
        _shoot(page, f"audit-{lang}")
    finally:
        context.close()


def test_it_lets_an_admin_withdraw_a_pending_invitation_whose_link_then_says_so(
    signed_in_page, browser, live_server, home
):
    admin = signed_in_page
    admin.goto(f"{live_server.url}/people/")
    expect(admin.get_by_text("No invitation is waiting to be used.")).to_be_visible()
    admin.get_by_label("Role", exact=True).select_option("admin")
    admin.get_by_role("button", name="Create invitation link").click()
    link = admin.get_by_label("One-time link").input_value()
    admin.get_by_role("link", name="Back to People").click()

    pending = admin.get_by_role("table", name="Pending invitations")
    row = pending.get_by_role("row").nth(1)
    expect(row.get_by_role("cell", name="Admin", exact=True)).to_be_visible()
    expect(row.get_by_role("cell", name="owner", exact=True)).to_be_visible()
    assert link not in admin.content()
    _shoot(admin, "people-pending-invitations")
    row.get_by_role("button", name="Withdraw").click()
    # expect() waits for the next page: inner_text() read the People page's own heading when the click
    # had not navigated yet (a loaded machine).
    expect(admin.get_by_role("heading", level=1)).to_have_text(re.compile(r"^Withdraw invitation #"))
    _shoot(admin, "people-withdraw-invitation")
    admin.get_by_role("button", name="Withdraw").click()
    admin.wait_for_url(f"{live_server.url}/people/")
    expect(admin.get_by_role("status").get_by_text("is withdrawn")).to_be_visible()
    assert admin.get_by_role("table", name="Pending invitations").count() == 0

    fresh = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    try:
        invitee = fresh.new_page()
        invitee.goto(link)
        expect(invitee.get_by_role("heading", name="This invitation was withdrawn")).to_be_visible()
        assert invitee.locator("input[name=username]").count() == 0
        _shoot(invitee, "invitation-withdrawn")
    finally:
        fresh.close()


def test_it_shows_pending_invitations_and_the_withdrawal_in_chinese(browser, live_server, home, owner):
    from admin_panel.services import accounts
    from tests.conftest import PASSWORD

    link, token = accounts.invite(role="viewer", actor=owner, channel="panel")
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="zh-CN")
    try:
        page = context.new_page()
        page.goto(f"{live_server.url}/accounts/login/")
        page.locator("#id_username").fill("owner")
        page.locator("#id_password").fill(PASSWORD)
        page.locator("form button[type=submit]").last.click()
        page.wait_for_url(f"{live_server.url}/")
        page.goto(f"{live_server.url}/people/")
        expect(page.get_by_role("table", name="待使用的邀请").get_by_role("cell", name="查看者")).to_be_visible()
        _shoot(page, "people-pending-invitations-zh-hans")
        page.get_by_role("button", name=f"撤回邀请 #{link.pk}").click()
        expect(page.get_by_role("heading", level=1)).to_have_text(f"撤回邀请 #{link.pk}（新的查看者）？")
        _shoot(page, "people-withdraw-invitation-zh-hans")
        page.locator("form input[name=confirmed] ~ button[type=submit]").click()
        page.wait_for_url(f"{live_server.url}/people/")
        page.goto(f"{live_server.url}/accounts/invitation/{token}/")
        expect(page.get_by_role("heading", name="此邀请已被撤回")).to_be_visible()
        _shoot(page, "invitation-withdrawn-zh-hans")
    finally:
        context.close()

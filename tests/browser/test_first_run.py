"""A newcomer's first minutes, in a real Chromium."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from admin_panel.services.sign_in_links import create_sign_in_link
from tests.conftest import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_it_signs_in_through_the_link_sets_a_password_and_lands_home(page, live_server, home):
    token = create_sign_in_link()

    page.goto(f"{live_server.url}/accounts/first-run/{token}/")
    assert page.url == f"{live_server.url}/accounts/first-run/"  # the token left the address bar
    page.get_by_label("Username").fill("dana")
    page.get_by_label("Password", exact=True).fill("a long and new passphrase")
    page.get_by_label("Password confirmation").fill("a long and new passphrase")
    screenshot(page, "first-run-choose-account")
    page.get_by_role("button", name="Create account and sign in").click()

    page.wait_for_url(f"{live_server.url}/")
    expect(page.get_by_role("heading", name="Overview")).to_be_visible()
    expect(page.get_by_role("link", name="Signed in as dana (Admin)")).to_be_visible()
    screenshot(page, "first-run-home")
    assert get_user_model().objects.filter(username="dana", is_staff=True).exists()

    page.goto(f"{live_server.url}/accounts/first-run/{token}/")
    expect(page.get_by_role("heading", name="This sign-in link cannot be used")).to_be_visible()


def test_it_signs_out_and_back_in_with_the_login_form(signed_in_page, live_server):
    page = signed_in_page
    page.get_by_role("button", name="Sign out").click()
    page.goto(f"{live_server.url}/")

    assert page.url.startswith(f"{live_server.url}/accounts/login/")
    screenshot(page, "login")

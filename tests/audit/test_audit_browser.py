"""The audit page in a real Chromium: htmx filtering, the detail view and a revert, light and dark."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from admin_panel.models import AuditEntry
from admin_panel.services import providers as provider_services
from admin_panel.services.audit import record
from tests.conftest import PASSWORD, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _seed(home, owner) -> AuditEntry:
    provider_services.save_provider_settings(user=owner, channel="panel", home=home, name="hindsight",
                                             values={"bank_id": "bank-one", "api_key": "hs-secret-1"})
    provider_services.save_provider_settings(user=owner, channel="api", home=home, name="hindsight",
                                             values={"bank_id": "bank-two", "recall_budget": "high"})
    revertible = AuditEntry.objects.order_by("-pk").first()
    provider_services.save_provider_settings(user=owner, channel="panel", home=home, name="mem0",
                                             values={"agent_id": "agent-one"})
    record(user=None, channel="command", home=home, kind=AuditEntry.Kind.MEMORY_ENTRY, summary="Added an entry",
           details={"action": "add", "target": "memory", "content": "Deploys go to <b>Ubuntu</b> 24.04"})
    return revertible


def test_it_filters_with_htmx_and_reverts_a_change(signed_in_page, live_server, home, owner):
    page = signed_in_page
    revertible = _seed(home, owner)

    page.goto(f"{live_server.url}/audit/")
    expect(page.get_by_role("heading", name="4 changes")).to_be_visible()
    screenshot(page, "audit-list-light")

    page.get_by_label("Provider").select_option("mem0")
    page.wait_for_url("**/audit/?provider=mem0**")
    expect(page.get_by_role("heading", name="1 change")).to_be_visible()
    expect(page.locator("#audit-status")).to_have_text("1 change shown.")
    page.get_by_label("Provider").select_option("")
    expect(page.get_by_role("heading", name="4 changes")).to_be_visible()
    page.get_by_label("Kind").select_option("memory_entry")
    expect(page.get_by_role("heading", name="1 change")).to_be_visible()
    expect(page.get_by_role("link", name="Added an entry")).to_be_visible()

    page.goto(f"{live_server.url}/audit/{revertible.pk}/")
    expect(page.get_by_role("heading", name=f"Change #{revertible.pk}")).to_be_visible()
    expect(page.get_by_text("bank-one", exact=True)).to_be_visible()
    screenshot(page, "audit-detail-light")
    page.get_by_role("button", name="Revert this change").click()

    expect(page.get_by_text("Reverted. Changes apply the next time the agent starts")).to_be_visible()
    data = json.loads((home / "hindsight" / "config.json").read_text())
    assert data["bank_id"] == "bank-one" and "recall_budget" not in data
    screenshot(page, "audit-revert-done-light")


def test_it_reads_well_in_the_dark_scheme_and_shows_secrets_only_as_set(browser, live_server, home, owner):
    _seed(home, owner)
    first = AuditEntry.objects.order_by("pk").first()
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US", color_scheme="dark")
    page = context.new_page()
    page.goto(f"{live_server.url}/accounts/login/")
    page.get_by_label("Username").fill(owner.username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{live_server.url}/")

    page.goto(f"{live_server.url}/audit/")
    screenshot(page, "audit-list-dark")
    page.goto(f"{live_server.url}/audit/{first.pk}/")
    screenshot(page, "audit-detail-dark")

    expect(page.get_by_text("secret set")).to_be_visible()
    assert "hs-secret-1" not in page.content()
    expect(page.get_by_text("Secrets cannot be reverted")).to_be_visible()
    context.close()

"""The profiles pages in a real Chromium: read the overview, copy settings to another profile,
and see the overview change for that profile only."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client
from playwright.sync_api import expect

from admin_panel.demo import seed_demo_home
from tests.conftest import BROWSER_TIMEOUT_MS, keep_for_docs, screenshot

from .helpers import make_profile, memory_config, snapshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_it_copies_a_setting_to_one_profile_and_the_overview_shows_it_there_only(
    signed_in_page, live_server, home: Path
) -> None:
    make_profile(home, "default", config=memory_config(memory_char_limit=3000))
    ops = make_profile(home, "ops", config=memory_config(user_profile_enabled=False))
    coder = make_profile(home, "coder")
    untouched = {"default": snapshot(home), "coder": snapshot(coder)}
    page = signed_in_page

    page.reload()  # signed in before the profiles existed: the navigation offers them now
    page.locator("form.profile-switcher").get_by_role("link", name="Profiles").click()
    page.wait_for_url(f"{live_server.url}/profiles/")
    ops_row = page.locator("tr[data-profile=ops]")
    expect(ops_row).to_contain_text("User profile is switched off")
    expect(ops_row.locator("td.differs")).to_have_count(2)  # user profile and memory limit
    screenshot(page, "profiles-overview-before-copy")

    page.get_by_role("link", name="Copy settings between profiles").click()
    page.get_by_label("What to copy").select_option("memory")
    page.get_by_label("From profile").select_option("default")
    page.get_by_role("checkbox", name="ops").check()
    page.get_by_role("button", name="Review the changes").click()
    review = page.locator("section[data-target=ops]")
    expect(review.get_by_role("row", name="User profile")).to_be_visible()
    expect(review.get_by_role("row", name="Memory size limit (characters)")).to_contain_text("3000")
    page.get_by_role("button", name="Copy now").click()
    expect(page.locator("li[data-target=ops]")).to_have_attribute("data-status", "saved")

    page.get_by_role("link", name="Back to the profiles").click()
    ops_row = page.locator("tr[data-profile=ops]")
    expect(ops_row).not_to_contain_text("User profile is switched off")
    expect(ops_row.locator("td.differs")).to_have_count(0)
    expect(page.locator("tr[data-profile=coder]").locator("td.differs")).to_have_count(1)  # its limit still 2200
    assert "memory_char_limit: 3000" in (ops / "config.yaml").read_text(encoding="utf-8")
    assert {"default": snapshot(home), "coder": snapshot(coder)} == untouched


def test_it_switches_profile_in_the_header_changes_a_setting_there_and_leaves_the_default_alone(
    signed_in_page, live_server, home: Path
) -> None:
    make_profile(home, "default", config=memory_config(memory_char_limit=2200), memory="Root fact.")
    ops = make_profile(home, "ops", config=memory_config(memory_char_limit=2200), memory="Ops fact.")
    coder = make_profile(home, "coder", memory="Coder fact.")
    untouched = {"default": snapshot(home), "coder": snapshot(coder)}
    page = signed_in_page

    page.goto(f"{live_server.url}/settings/")
    switcher = page.locator("form.profile-switcher")
    expect(switcher.get_by_label("Profile")).to_have_value("default")
    switcher.get_by_label("Profile").select_option("ops")
    # The switcher applies on change; its button is there only for pages without scripts.
    page.wait_for_url(f"{live_server.url}/profile/ops/settings/")
    expect(page.locator("form.profile-switcher").get_by_label("Profile")).to_have_value("ops")
    expect(page.locator("footer")).to_contain_text(str(ops))

    page.get_by_label("Memory size limit (characters)").fill("3300")
    page.get_by_role("button", name="Save memory settings").click()
    page.wait_for_url(f"{live_server.url}/profile/ops/settings/**")
    expect(page.get_by_label("Memory size limit (characters)")).to_have_value("3300")
    keep_for_docs(screenshot(page, "profile-ops-settings"), issue=19)

    # htmx and the live view on the chosen profile's memory page
    page.get_by_role("navigation").get_by_role("link", name="Memory").click()
    page.wait_for_url(f"{live_server.url}/profile/ops/memory/")
    expect(page.locator("main")).to_contain_text("Ops fact.")
    expect(page.locator("main")).not_to_contain_text("Root fact.")
    (ops / "memories" / "MEMORY.md").write_text("Ops fact.\n§\nAdded by the agent meanwhile.", encoding="utf-8")
    expect(page.locator("main")).to_contain_text("Added by the agent meanwhile.")

    page.locator("form.profile-switcher").get_by_role("link", name="Profiles").click()
    page.wait_for_url(f"{live_server.url}/profile/ops/profiles/")
    ops_row = page.locator("tr[data-profile=ops]")
    expect(ops_row).to_contain_text("3,300")
    expect(ops_row.locator("td.differs")).to_have_count(1)
    assert "memory_char_limit: 3300" in (ops / "config.yaml").read_text(encoding="utf-8")
    assert {"default": snapshot(home), "coder": snapshot(coder)} == untouched


@pytest.mark.parametrize(("language", "locale"), [("en", "en-US"), ("zh-hans", "zh-CN")])
def test_it_shows_the_switcher_on_a_profiles_page_and_the_overview_in_both_languages(
    browser, live_server, home: Path, owner, language: str, locale: str
) -> None:
    seed_demo_home(home)
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale=locale)
    context.set_default_timeout(BROWSER_TIMEOUT_MS)
    client = Client()
    client.force_login(owner)
    host = live_server.url.split("://", 1)[1].split(":")[0]
    context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "domain": host,
                          "path": "/"}])
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/profile/ops/memory/")
        expect(page.locator("form.profile-switcher select")).to_have_value("ops")
        expect(page.locator("html")).to_have_attribute("lang", language)
        keep_for_docs(screenshot(page, f"profile-ops-memory-{language}"), issue=19)
        page.goto(f"{live_server.url}/profiles/")
        expect(page.locator("tr[data-profile=ops]")).to_be_visible()
        keep_for_docs(screenshot(page, f"overview-{language}"), issue=19)
    finally:
        context.close()

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


def test_it_marks_an_entrys_copy_without_a_reload_when_the_agent_stores_it(signed_in_page, live_server, facts):
    """Another process (the plugin's own statements) stores the copy of an entry while the memory
    page is open: the "also in" mark appears through the live update, no reload, and is a link
    reached with the keyboard."""
    import subprocess
    import sys

    from memory_core import add_entry

    assert add_entry(home=facts.parent, target="memory", content="Backups run at 02:00.")["success"]
    page = signed_in_page
    page.goto(f"{live_server.url}/memory/")
    page.wait_for_function("() => document.querySelector('#memory-live-status').dataset.state === 'live'")
    entries = page.locator("#entries-memory")
    expect(entries).to_contain_text("Backups run at 02:00.")
    expect(entries).not_to_contain_text("also in holographic, fact 7")
    page.evaluate("window.__notReloaded = true")

    script = ("import sys; from pathlib import Path; from tests.provider_contents import store as s;"
              " c = s.connect(Path(sys.argv[1])); s.add_fact(c, sys.argv[2]); c.close()")
    subprocess.run([sys.executable, "-c", script, str(facts), "Backups run at 02:00."], check=True,
                   cwd=Path(__file__).resolve().parents[2], timeout=180)

    mark = entries.get_by_role("link", name="also in holographic, fact 7")
    expect(mark).to_be_visible(timeout=180_000)  # a safety net against a hang only
    assert page.evaluate("window.__notReloaded") is True
    mark.focus()
    page.keyboard.press("Enter")
    page.wait_for_url("**/contents/holographic/7/")
    expect(page.locator("main")).to_contain_text("Backups run at 02:00.")


def test_it_replaces_an_entry_and_updates_its_copy_without_javascript_by_keyboard(browser, live_server, owner, facts):
    from tests.conftest import PASSWORD

    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US", java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/accounts/login/")
        page.get_by_label("Username").fill(owner.username)
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(f"{live_server.url}/")
        page.goto(f"{live_server.url}/memory/")
        entry = page.locator("#entries-memory li, #entries-memory article").filter(
            has_text="Deploys go out on Fridays.").first
        entry.get_by_role("link", name="Edit").first.focus()
        page.keyboard.press("Enter")
        page.wait_for_url("**/edit/**")
        expect(page.get_by_role("radio", name="Update the copy to the new text (as holographic updates an item)")
               ).to_be_checked()
        page.get_by_role("textbox").fill("Deploys go out on Thursdays.")
        page.get_by_role("button", name="Save entry").focus()
        page.keyboard.press("Enter")
        page.wait_for_url(f"{live_server.url}/memory/**")
        expect(page.locator("body")).to_contain_text("holographic: its copy (fact 3) now holds the new text too.")
        expect(page.get_by_role("link", name="also in holographic, fact 3")).to_be_visible()
    finally:
        context.close()
    assert "Deploys go out on Thursdays." in [r[1] for r in plugin.dump(facts)["facts"]]


@pytest.mark.parametrize("size", [(390, 844), (1366, 900)], ids=["phone", "laptop"])
def test_a_staged_remove_offers_its_copy_on_the_pending_page(signed_in_page, live_server, facts, size):
    from memory_core.pending import stage

    pending_id = stage(facts.parent, payload={"action": "remove", "target": "memory", "old_text": "Fridays"},
                       summary="remove")["id"]
    page = signed_in_page
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.goto(f"{live_server.url}/memory/pending/")
    choice = page.get_by_role("group", name="When the entry goes, its copy in holographic (fact 3)")
    expect(choice).to_be_visible()
    expect(choice.get_by_label("Delete the copy")).to_be_checked()
    keep_for_docs(screenshot(page, f"pending-copy-choice-{size[0]}"), issue=26)
    choice.get_by_label("Leave the copy as it is").check()
    page.get_by_role("button", name=f"Approve {pending_id}").click()
    expect(page.get_by_text("its copy (fact 3) was left as it is")).to_be_visible()
    assert "Deploys go out on Fridays." in [r[1] for r in plugin.dump(facts)["facts"]]

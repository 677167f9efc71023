"""The memory page in a real Chromium: live updates that leave the reader undisturbed."""

from __future__ import annotations

import multiprocessing
import time

import pytest
from playwright.sync_api import expect

from tests.conftest import PASSWORD, screenshot
from tests.memory_view.helpers import read_store, write_config, write_store
from tests.memory_view.workers import add_after

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FILLER = [f"Fact {n:02d}: the build server keeps artefacts for {n + 3} days." for n in range(24)]


def _write_later(home, text: str, *, delay: float = 0.5, target: str = "memory") -> multiprocessing.Process:
    process = multiprocessing.get_context("spawn").Process(target=add_after, args=(str(home), target, text, delay))
    process.start()
    return process


def _wait_on_disk(home, text: str, *, target: str = "memory", timeout: float = 180.0) -> float:
    """The moment (monotonic) the other process's entry is on disk."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if text in read_store(home, target):
            return time.monotonic()
        time.sleep(0.005)
    raise AssertionError(f"{text!r} never reached the file")


def sign_in(page, live_server, user) -> None:
    page.goto(f"{live_server.url}/accounts/login/")
    page.get_by_label("Username").fill(user.username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{live_server.url}/")


def test_it_shows_another_process_write_keeping_scroll_and_selection(
    signed_in_page, live_server, home, record_property
):
    page = signed_in_page
    write_store(home, "memory", FILLER)
    write_store(home, "user", ["Name: Dana"])
    page.set_viewport_size({"width": 1280, "height": 600})
    page.goto(f"{live_server.url}/memory/")
    page.wait_for_function("() => document.querySelector('#memory-live-status').dataset.state === 'live'")
    page.locator("#snapshot-user summary").click()  # an open <details>
    page.evaluate("window.scrollTo(0, 700)")
    page.evaluate(
        """() => {
          const text = [...document.querySelectorAll('#entries-memory .entry-text')][5];
          const range = document.createRange();
          range.selectNodeContents(text);
          getSelection().removeAllRanges();
          getSelection().addRange(range);
        }"""
    )
    selected = page.evaluate("getSelection().toString()")
    assert selected == FILLER[5]

    writer = _write_later(home, "Added by the agent while you read.")
    written_at = _wait_on_disk(home, "Added by the agent while you read.")
    page.locator("#entries-memory .entry-text", has_text="Added by the agent while you read.").wait_for(
        state="attached"
    )
    # How fast is bench/live_view.py's business (a loaded machine is slower); the figure is kept
    # in the test report only.
    record_property("write_to_screen_seconds", round(time.monotonic() - written_at, 3))
    writer.join(timeout=180)
    assert page.evaluate("window.scrollY") == 700
    assert page.evaluate("getSelection().toString()") == selected
    assert page.locator("#snapshot-user").get_attribute("open") is not None
    page.wait_for_function(
        "() => document.getElementById('memory-announcer').textContent.includes('MEMORY.md changed')"
    )
    screenshot(page, "memory-live-after-update")


def test_it_keeps_an_open_dialog_and_what_was_typed_while_the_page_updates(signed_in_page, live_server, home):
    page = signed_in_page
    write_store(home, "memory", ["Repo uses uv.", "Deploy on Fridays."])
    page.goto(f"{live_server.url}/memory/")
    page.get_by_role("link", name="Add an entry to USER.md").click()
    dialog = page.locator("#memory-dialog")
    dialog.get_by_label("Entry text").fill("Half-typed thought")

    writer = _write_later(home, "The agent wrote this meanwhile.", delay=0.2)
    page.locator("#entries-memory .entry-text", has_text="The agent wrote this meanwhile.").wait_for(
        state="attached"
    )
    writer.join(timeout=180)

    assert dialog.evaluate("d => d.open") is True
    assert dialog.get_by_label("Entry text").input_value() == "Half-typed thought"
    assert page.evaluate("document.activeElement.id") == "id_content"


def _is_live_request(request) -> bool:
    # The test server is WSGI: its event stream answers once and the page opens it again (a poll).
    return any(url in request.url for url in ("/memory/poll/", "/memory/events/"))


def test_it_asks_nothing_while_the_tab_is_hidden_and_asks_again_when_shown(signed_in_page, live_server, home):
    page = signed_in_page
    write_store(home, "memory", ["one"])
    started: list[object] = []
    finished: list[object] = []
    page.on("request", lambda request: started.append(request) if _is_live_request(request) else None)
    for event in ("requestfinished", "requestfailed"):
        page.on(event, lambda request: finished.append(request) if _is_live_request(request) else None)
    page.goto(f"{live_server.url}/memory/")
    with page.expect_request(_is_live_request), page.expect_request(_is_live_request):
        pass  # asking while visible: two requests arrive, whenever the machine gets to them

    page.evaluate(
        """() => {
          Object.defineProperty(document, 'hidden', {configurable: true, get: () => true});
          document.dispatchEvent(new Event('visibilitychange'));
        }"""
    )
    page.locator("#memory-live-status[data-state='paused']").wait_for(state="attached")
    # A request already in flight when the tab was hidden may still finish; wait for that (events
    # are delivered while Playwright waits), then make sure no new one starts while hidden.
    give_up = time.monotonic() + 180
    while len(finished) < len(started):
        assert time.monotonic() < give_up, "a request never finished"
        page.wait_for_timeout(20)
    hidden_from = len(started)
    page.wait_for_timeout(1500)
    assert len(started) == hidden_from

    with page.expect_request(_is_live_request):
        page.evaluate(
            """() => {
              Object.defineProperty(document, 'hidden', {configurable: true, get: () => false});
              document.dispatchEvent(new Event('visibilitychange'));
            }"""
        )


def test_it_works_without_javascript(browser, live_server, home, owner):
    write_store(home, "memory", ["Repo uses uv."])
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        sign_in(page, live_server, owner)
        page.goto(f"{live_server.url}/memory/")
        page.get_by_role("link", name="Add an entry to MEMORY.md").click()
        page.get_by_label("Entry text").fill("Added without JavaScript.")
        page.get_by_role("button", name="Add entry").click()
        page.wait_for_url(f"{live_server.url}/memory/")
        expect(page.get_by_text("Entry added to MEMORY.md.")).to_be_visible()
        assert read_store(home, "memory") == ["Repo uses uv.", "Added without JavaScript."]
        expect(page.get_by_role("link", name="Reload")).to_be_visible()
    finally:
        context.close()


def test_it_stops_live_updates_when_the_session_ends(signed_in_page, live_server, home):
    page = signed_in_page
    write_config(home, memory_char_limit=500)
    page.goto(f"{live_server.url}/memory/")
    page.context.clear_cookies()
    write_store(home, "memory", ["changed after sign-out"])

    page.wait_for_function("() => document.querySelector('#memory-live-status').dataset.state === 'stopped'")
    assert "changed after sign-out" not in page.content()

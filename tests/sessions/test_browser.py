"""The Sessions pages in a real Chromium: hostile transcript text stays inert, the search updates
as you type, a hit opens its message highlighted; screenshots in both languages."""

from __future__ import annotations

import json
import sqlite3

import pytest
from django.test import Client
from playwright.sync_api import expect

from admin_panel.demo import seed_demo_home
from memory_core.history.schema import create_state_db, insert_message, insert_session
from tests.conftest import BROWSER_TIMEOUT_MS, keep_for_docs, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

HOSTILE = [
    "<script>window.__xss = 1</script> hostile script",
    '<img src="x" onerror="window.__xss = 2"> hostile image',
    "[click me](javascript:window.__xss=3) and <a href=\"javascript:window.__xss=4\">hostile link</a>",
]


def _sign_in(page, live_server, user) -> None:
    client = Client()
    client.force_login(user)
    host = live_server.url.split("://", 1)[1].split(":")[0]
    page.context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "domain": host,
                               "path": "/"}])


def test_it_shows_hostile_text_inert(page, live_server, home, owner):
    conn = create_state_db(home / "state.db")
    insert_session(conn, id="20260101_100000_abcdef", source="cli", started_at=1767261600.0,
                   title='<script>window.__xss = 5</script>title')
    for n, text in enumerate(HOSTILE):
        insert_message(conn, session_id="20260101_100000_abcdef", role="user", content=text,
                       timestamp=1767261601.0 + n)
    insert_message(conn, session_id="20260101_100000_abcdef", role="assistant", content="", timestamp=1767261610.0,
                   tool_calls=json.dumps([{"id": "c1", "type": "function", "function": {
                       "name": "<img src=x onerror=window.__xss=6>",
                       "arguments": json.dumps({"q": "<script>x</script>"})}}]))
    conn.close()
    _sign_in(page, live_server, owner)
    for url, shown in (("/sessions/", "<script>window.__xss = 5</script>title"), ("/sessions/?q=hostile", "hostile"),
                       ("/sessions/20260101_100000_abcdef/", "hostile link")):
        page.goto(f"{live_server.url}{url}")
        expect(page.locator("main")).to_contain_text(shown)
        assert page.evaluate("() => window.__xss") is None, url
        assert page.locator("main img").count() == 0, url
        assert page.locator("main a[href^='javascript:' i]").count() == 0, url
    page.locator("summary", has_text="Tool call").click()
    expect(page.locator("main")).to_contain_text("<script>x</script>")
    expect(page.locator("main")).to_contain_text('<img src="x" onerror="window.__xss = 2"> hostile image')
    assert page.evaluate("() => window.__xss") is None


def test_it_searches_as_you_type_and_opens_the_hit_highlighted(page, live_server, home, owner):
    seed_demo_home(home)
    _sign_in(page, live_server, owner)
    page.goto(f"{live_server.url}/sessions/")
    page.get_by_label("Search messages").fill("traefik")
    expect(page.locator(".search-hit")).to_have_count(1)
    page.wait_for_url("**/sessions/?q=traefik**")
    page.locator(".search-hit a").first.click()
    hit = page.locator(".turn--hit")
    expect(hit).to_contain_text("we use Traefik")
    expect(hit).to_be_in_viewport()


def _shots(page, live_server, language: str) -> None:
    base = live_server.url
    page.goto(f"{base}/sessions/")
    expect(page.locator(".session-table")).to_be_visible()
    keep_for_docs(screenshot(page, f"sessions-list-{language}"), issue=13)
    page.goto(f"{base}/sessions/?q=docker")
    expect(page.locator(".search-hit").first).to_be_visible()
    keep_for_docs(screenshot(page, f"sessions-search-{language}"), issue=13)
    page.locator(".search-hit a").first.click()
    expect(page.locator(".turn--hit")).to_be_visible()
    page.locator(".turn details summary").first.click()
    keep_for_docs(screenshot(page, f"sessions-transcript-{language}"), issue=13)
    page.goto(f"{base}/sessions/?q=OPENAI")
    page.goto(f"{base}/sessions/secrets/")
    expect(page.locator("main code").first).to_be_visible()
    keep_for_docs(screenshot(page, f"sessions-secrets-{language}"), issue=13)


@pytest.mark.parametrize(("language", "locale"), [("en", "en-US"), ("zh-hans", "zh-CN")])
def test_it_takes_screenshots_of_every_sessions_page(browser, live_server, home, owner, language, locale):
    seed_demo_home(home)
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale=locale)
    context.set_default_timeout(BROWSER_TIMEOUT_MS)
    page = context.new_page()
    try:
        _sign_in(page, live_server, owner)
        _shots(page, live_server, language)
        assert "demo-not-a-real-key" not in page.content()
    except Exception:
        screenshot(page, f"FAILED-sessions-{language}")
        raise
    finally:
        context.close()
    assert sqlite3.connect(home / "state.db").execute("SELECT COUNT(*) FROM sessions").fetchone()[0] > 0

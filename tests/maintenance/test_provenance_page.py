"""The memory page shows where each entry came from: the session and message of the agent's
``memory`` call (with a link to the transcript there), a panel approval or edit (with a link to
the audit entry), or "no record in history"."""

from __future__ import annotations

import re
import time

import pytest

from admin_panel.demo import seed_demo_home
from admin_panel.models import AuditEntry
from memory_core import caching, stage
from tests.maintenance.history_builder import HistoryBuilder, success
from tests.memory_view.helpers import write_config, write_store

pytestmark = pytest.mark.django_db

SESSION = "20260102_093000_cccccc"
NO_RECORD = ("An entry without a “Written …” line has no record in history: it was written by the background "
             "review, by hand, or before history was kept.")


@pytest.fixture(autouse=True)
def _fresh_cache():
    caching.clear_all()
    yield
    caching.clear_all()


def _has_no_record(html: str, text: str) -> bool:
    """The entry has no source line, and its store says once what that means."""
    return 'class="entry__source"' not in _entry_html(html, text) and html.count(NO_RECORD) >= 1


def _entry_html(html: str, text: str) -> str:
    start = html.index(f'<div class="entry-text">{text}</div>')
    return html[start:html.index("</li>", start)]


def _history(home) -> HistoryBuilder:
    db = HistoryBuilder(home)
    db.session(SESSION, source="telegram", title="Kubernetes migration")
    db.say(SESSION, "user", "Remember how we deploy.")
    db.call("deploy", SESSION, {"action": "add", "content": "Deploys go through staging first."}, success("memory"))
    db.call("failed", SESSION, {"action": "add", "content": "Never deployed on Fridays."},
            {"success": False, "error": "Memory at 2,190/2,200 chars."})
    db.close()
    return db


def test_it_shows_the_session_time_platform_and_a_link_to_the_transcript_message(owner_client, home):
    db = _history(home)
    write_store(home, "memory", ["Deploys go through staging first.", "Never deployed on Fridays."])
    html = owner_client.get("/memory/").content.decode()

    written = _entry_html(html, "Deploys go through staging first.")
    message_id = db.ids["deploy"]
    assert "in a telegram session." in written
    assert re.search(r'<time datetime="2026-01-01T10:\d\d:\d\d\+00:00" title="Jan. 1, 2026 10:\d\d:\d\d UTC">', written)
    assert f'href="/sessions/{SESSION}/?hit={message_id}#m-{message_id}"' in written
    # The failed write does not count: that entry came from somewhere else.
    assert _has_no_record(html, "Never deployed on Fridays.")


def test_the_link_opens_the_transcript_with_that_message_marked(owner_client, home):
    db = _history(home)
    write_store(home, "memory", ["Deploys go through staging first."])
    message_id = db.ids["deploy"]
    response = owner_client.get(f"/sessions/{SESSION}/", {"hit": message_id})
    html = response.content.decode()
    assert response.status_code == 200
    assert f'id="m-{message_id}"' in html


def test_an_entry_approved_in_the_panel_names_the_account_and_links_the_audit_entry(owner_client, owner, home):
    write_config(home, write_approval=True)
    write_store(home, "user", ["Name: Dana."])
    record = stage(home, payload={"action": "add", "target": "user", "content": "Works in Berlin."},
                   summary="add to user profile: Works in Berlin.")
    owner_client.post("/memory/pending/action/", {"action": "approve", "pending_id": [record["id"]]})
    audit = AuditEntry.objects.get(kind=AuditEntry.Kind.APPROVAL)
    assert audit.details["payload"]["content"] == "Works in Berlin."

    html = owner_client.get("/memory/").content.decode()
    approved = _entry_html(html, "Works in Berlin.")
    assert f"Written in the panel by {owner.username} <time" in approved
    assert f'href="/audit/{audit.pk}/"' in approved
    assert _has_no_record(html, "Name: Dana.")


def test_an_entry_edited_in_the_panel_is_traced_to_the_edit_and_a_hand_edit_to_nothing(owner_client, home):
    _history(home)
    write_store(home, "memory", ["Deploys go through staging first."])
    html = owner_client.get("/memory/").content.decode()
    assert "in a telegram session." in _entry_html(html, "Deploys go through staging first.")

    # By hand, outside the panel and the agent: the history no longer explains the text.
    write_store(home, "memory", ["Deploys go through staging first, always."])
    html = owner_client.get("/memory/").content.decode()
    assert _has_no_record(html, "Deploys go through staging first, always.")


def test_a_viewer_sees_the_sources_too(viewer_client, home):
    _history(home)
    write_store(home, "memory", ["Deploys go through staging first."])
    html = viewer_client.get("/memory/").content.decode()
    assert "Open the transcript at this message" in html


def test_without_a_history_every_entry_says_no_record(owner_client, home):
    write_store(home, "memory", ["Prefers tea."])
    html = owner_client.get("/memory/").content.decode()
    assert _has_no_record(html, "Prefers tea.")


def test_the_maintenance_page_lists_entries_older_than_the_chosen_age(owner_client, home):
    db = HistoryBuilder(home)
    db.session(SESSION, source="cli")
    db.call("old", SESSION, {"action": "add", "content": "Uses Python 3.9."}, success("memory"), at=1_600_000_000.0)
    db.call("new", SESSION, {"action": "add", "content": "Uses Python 3.13."}, success("memory"),
            at=time.time() - 86400)
    db.close()
    write_store(home, "memory", ["Uses Python 3.9.", "Uses Python 3.13.", "Likes tea."])

    html = owner_client.get("/memory/memory/maintenance/").content.decode()
    assert 'data-category="stale"' not in html  # no age chosen, no such finding

    html = owner_client.get("/memory/memory/maintenance/", {"older_than": "30"}).content.decode()
    assert html.count('data-category="stale"') == 1
    stale = html[html.index('data-category="stale"'):]
    stale = stale[:stale.index("</li>")]
    assert "Uses Python 3.9." in stale and f'?hit={db.ids["old"]}' in stale


def test_a_bad_age_is_explained_at_the_field_and_the_page_still_shows(owner_client, home):
    write_store(home, "memory", ["Likes tea."])
    for bad in ("abc", "0", "999999"):
        response = owner_client.get("/memory/memory/maintenance/", {"older_than": bad})
        html = response.content.decode()
        assert response.status_code == 200
        assert 'id="older-than-error"' in html and "Enter a whole number of days, from 1 to 36500." in html
        assert 'data-category="stale"' not in html


def test_the_demo_shows_provenance_links_and_a_masked_secret(owner_client, home):
    seed_demo_home(home)
    caching.clear_all()
    html = owner_client.get("/memory/").content.decode()
    assert "in a cli session." in _entry_html(html, "Prefers docker compose over raw docker run.")
    assert "in a telegram session." in _entry_html(html, "喜欢简洁的回答。")
    assert "The demo OpenAI key [secret: OPENAI_API_KEY] is for local testing only." in html
    assert "demo-not-a-real-key" not in html

"""The Sessions list follows state.db: its stream carries a fingerprint only, to viewers too, and an
open list shows a session the agent (another process) commits, pushed through the stream."""

from __future__ import annotations

import multiprocessing
import time
from pathlib import Path

import pytest

from admin_panel.selectors.sessions import history_fingerprint
from memory_core.history.schema import create_state_db, insert_message, insert_session
from tests.conftest import keep_for_docs, screenshot
from tests.event_streams import assert_only_a_fingerprint, assert_sent_to_sign_in_with_no_data, stream_body
from tests.faults.panel import PANEL_PASSWORD, prepare_panel, serve

STREAM = "/sessions/-/events/"
SECRET = "sk-live-4f9a8b7c6d5e4f3a2b1c"
SHOW_TIMEOUT_MS = 180_000  # a safety net against a hang only (a loaded machine)


def _history(home: Path) -> None:
    conn = create_state_db(home / "state.db")
    insert_session(conn, id="20260101_100000_aaaaaa", source="cli", started_at=1767261600.0,
                   title="Setting up the build")
    insert_message(conn, session_id="20260101_100000_aaaaaa", role="user", content=f"my key is {SECRET}",
                   timestamp=1767261601.0)
    conn.close()


def add_session(state_db: str, title: str) -> None:
    """The agent's side (run in another process): one new conversation, committed."""
    import sqlite3

    conn = sqlite3.connect(state_db, timeout=60, isolation_level=None)
    conn.execute("PRAGMA foreign_keys=ON")
    insert_session(conn, id="20260102_090000_bbbbbb", source="telegram", started_at=time.time(), title=title)
    insert_message(conn, session_id="20260102_090000_bbbbbb", role="user", content="hello", timestamp=time.time())
    conn.close()


@pytest.mark.django_db
def test_it_sends_an_anonymous_sessions_stream_to_sign_in_with_no_data(client, home):
    _history(home)

    response = client.get(STREAM)

    assert_sent_to_sign_in_with_no_data(response)


@pytest.mark.django_db
def test_it_gives_a_viewer_the_sessions_stream_with_only_the_fingerprint(viewer_client, home):
    _history(home)

    response = viewer_client.get(STREAM)
    assert_only_a_fingerprint(response, SECRET, "Setting up the build")


@pytest.mark.django_db
def test_it_refuses_a_signed_in_user_without_a_role_the_sessions_stream(client, other_user, home):
    _history(home)
    client.force_login(other_user)

    response = client.get(STREAM)

    assert response.status_code == 403
    assert b"data:" not in stream_body(response)


def test_the_history_fingerprint_changes_with_a_commit_and_only_then(tmp_path):
    _history(tmp_path)
    before = history_fingerprint(home=tmp_path)
    assert history_fingerprint(home=tmp_path) == before

    add_session(str(tmp_path / "state.db"), "Another conversation")

    assert history_fingerprint(home=tmp_path) != before


@pytest.mark.browser
@pytest.mark.slow
def test_it_pushes_a_session_the_agent_commits_to_the_open_list(page, tmp_path, record_property):
    home, data = tmp_path / "home", tmp_path / "data"
    prepare_panel(home=home, data_dir=data)
    _history(home)
    with serve(home=home, data_dir=data) as server:
        base = f"http://127.0.0.1:{server.port}"
        page.goto(f"{base}/accounts/login/")
        page.get_by_label("Username").fill("owner")
        page.get_by_label("Password").fill(PANEL_PASSWORD)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(f"{base}/")
        page.goto(f"{base}/sessions/")
        page.get_by_text("Setting up the build").wait_for()
        page.wait_for_function("() => document.documentElement.dataset.liveMode === 'stream'")

        process = multiprocessing.get_context("spawn").Process(
            target=add_session, args=(str(home / "state.db"), "Pushed from the agent's history"))
        process.start()
        process.join(timeout=180)
        committed = time.monotonic()
        assert process.exitcode == 0
        page.locator("#session-results", has_text="Pushed from the agent's history").wait_for(
            timeout=SHOW_TIMEOUT_MS)
        delay = time.monotonic() - committed

        print(f"sessions list: committed session on screen after {delay * 1000:.0f} ms")
        record_property("sessions_list_seconds", round(delay, 3))
        assert page.evaluate("document.documentElement.dataset.liveMode") == "stream"  # pushed, not polled
        page.get_by_text("Setting up the build").wait_for()  # the list grew; nothing was lost
        keep_for_docs(screenshot(page, "sessions-list-pushed"), issue=17)

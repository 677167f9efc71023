"""An idle tab costs nothing: the panel's own reads of ``state.db`` (which, for root, change the
write-ahead log's ctime and write to its -shm file) send no event to an open Sessions or Memory
stream; a commit by the agent sends exactly one."""

from __future__ import annotations

import os
import signal
import sqlite3
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from admin_panel.selectors.sessions import history_fingerprint
from memory_core import add_entry, fingerprint
from memory_core.history import open_history
from memory_core.history.schema import create_state_db, insert_message, insert_session
from tests.event_streams import FINGERPRINT_LINE, OpenStream
from tests.faults.panel import Browser, prepare_panel, serve
from tests.memory_view.helpers import write_store

SESSIONS_STREAM = "/sessions/-/events/"
MEMORY_STREAM = "/memory/events/"
SESSION_ID = "20260101_100000_aaaaaa"
READS = 25


def _history(home: Path) -> None:
    conn = create_state_db(home / "state.db")
    insert_session(conn, id=SESSION_ID, source="cli", started_at=1767261600.0, title="Setting up the build")
    insert_message(conn, session_id=SESSION_ID, role="user", content="hello", timestamp=1767261601.0)
    conn.close()


def _append_message(state_db: Path, content: str) -> None:
    """The agent's side: one message, one commit."""
    conn = sqlite3.connect(state_db, timeout=30, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        insert_message(conn, session_id=SESSION_ID, role="assistant", content=content, timestamp=time.time())
        conn.execute("COMMIT")
    finally:
        conn.close()


@contextmanager
def _server_paused(pid: int):
    """The server sees a write only once it is whole: its watch thread reads every event the write
    raised in one batch, not a commit half-way through (which would be a second, honest event)."""
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(pid, signal.SIGCONT)


def _read_history_as_the_panel_does(home: Path, browser: Browser) -> None:
    for _ in range(READS):
        with open_history(home) as history:
            history.conn.execute("SELECT count(*) FROM messages").fetchall()
        status, _body, _headers = browser.request("GET", "/sessions/")
        assert status == 200


@pytest.fixture
def served(tmp_path: Path):
    home, data = tmp_path / "home", tmp_path / "data"
    prepare_panel(home=home, data_dir=data)
    write_store(home, "memory", ["The build uses uv."])
    _history(home)
    with serve(home=home, data_dir=data) as server:
        browser = Browser(f"http://127.0.0.1:{server.port}")
        browser.sign_in()
        server.home, server.browser = home, browser
        server.cookie = "; ".join(f"{c.name}={c.value}" for c in browser.jar)
        yield server


@pytest.mark.slow
def test_it_sends_idle_sessions_and_memory_streams_nothing_while_the_panel_reads_and_one_event_per_change(served):
    sessions = OpenStream(served.port, SESSIONS_STREAM, served.cookie)
    memory = OpenStream(served.port, MEMORY_STREAM, served.cookie)
    try:
        assert sessions.response.status == memory.response.status == 200
        assert sessions.data() == history_fingerprint(home=served.home)
        memory_first = memory.data()
        assert FINGERPRINT_LINE.match(f"data: {memory_first}")

        for round_number in (1, 2):
            _read_history_as_the_panel_does(served.home, served.browser)
            with _server_paused(served.process.pid):
                _append_message(served.home / "state.db", f"Reply number {round_number}.")
            after = history_fingerprint(home=served.home)

            # The next event is the commit's: none came for the reads before it, and (on the second
            # round) none came after the first commit's event either.
            assert sessions.data() == after

        for _ in range(READS):
            status, _body, _headers = served.browser.request("GET", "/memory/")
            assert status == 200
        with _server_paused(served.process.pid):
            assert add_entry(home=served.home, target="memory", content="Deploys go out on Fridays.")["success"]

        # The memory stream's first event since it opened: the history's commits and every read
        # above sent it nothing.
        assert memory.data() == fingerprint(served.home) != memory_first
    finally:
        sessions.close()
        memory.close()


def test_it_keeps_the_history_fingerprint_through_the_panels_own_reads(tmp_path: Path):
    _history(tmp_path)
    before = history_fingerprint(home=tmp_path)

    for _ in range(READS):
        with open_history(tmp_path) as history:
            history.conn.execute("SELECT count(*) FROM messages").fetchall()
        assert history_fingerprint(home=tmp_path) == before

    _append_message(tmp_path / "state.db", "A reply.")
    assert history_fingerprint(home=tmp_path) != before

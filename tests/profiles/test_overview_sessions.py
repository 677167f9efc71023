"""The overview's sessions column: how many sessions each profile's history lists and when it was
last active, read from its own state.db (read-only)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from admin_panel.selectors.profiles import UNREADABLE_FILE, profiles_overview
from memory_core.history.schema import create_state_db, insert_message, insert_session

from .helpers import make_profile

pytestmark = pytest.mark.django_db

STARTED = datetime(2026, 11, 20, 9, 0, tzinfo=UTC).timestamp()
LAST_MESSAGE = datetime(2026, 11, 24, 17, 30, tzinfo=UTC).timestamp()


def _history(home: Path, *, sessions: int, archived: int = 0) -> None:
    conn = create_state_db(home / "state.db")
    for number in range(sessions + archived):
        sid = insert_session(conn, id=f"20261120_0900{number:02d}_abcdef", source="cli", started_at=STARTED + number,
                             archived=1 if number >= sessions else 0)
        insert_message(conn, session_id=sid, role="user", content="hello", timestamp=STARTED + number + 1)
    insert_message(conn, session_id="20261120_090000_abcdef", role="assistant", content="later", timestamp=LAST_MESSAGE)
    conn.close()


def _row(home: Path, name: str):
    return next(row for row in profiles_overview(home=home).rows if row.name == name)


def test_it_counts_each_profiles_listed_sessions_and_its_last_activity(home: Path) -> None:
    ops = make_profile(home, "ops")
    make_profile(home, "coder")
    _history(ops, sessions=3, archived=2)

    ops_row, coder_row = _row(home, "ops"), _row(home, "coder")

    assert (ops_row.cells["sessions"].value, ops_row.sessions.last_active) == (
        3, datetime.fromtimestamp(LAST_MESSAGE, tz=UTC))
    assert ops_row.cells["sessions"].url == "/profile/ops/sessions/"
    assert (coder_row.cells["sessions"].value, coder_row.sessions.last_active, coder_row.sessions.state) == (
        0, None, None)  # never ran: no state.db, and no problem either
    assert ("unreadable_file", "state.db") not in [(p.code, p.subject) for p in coder_row.problems]


def test_it_names_a_damaged_state_db_and_not_an_empty_one(home: Path) -> None:
    broken = make_profile(home, "broken")
    empty = make_profile(home, "empty")
    (broken / "state.db").write_bytes(b"this is not an SQLite database" * 100)
    create_state_db(empty / "state.db").close()

    assert (UNREADABLE_FILE, "state.db") in [(p.code, p.subject) for p in _row(home, "broken").problems]
    assert _row(home, "broken").sessions.state == "malformed"
    assert _row(home, "empty").problems == []
    assert _row(home, "empty").cells["sessions"].value == 0


def test_it_shows_the_count_and_the_time_on_the_page(viewer_client, home: Path) -> None:
    _history(make_profile(home, "ops"), sessions=2)
    html = viewer_client.get("/profiles/").content.decode()
    assert '<a href="/profile/ops/sessions/">2</a>' in html
    assert '<time datetime="2026-11-24T17:30:00+00:00" title="Nov. 24, 2026 17:30:00 UTC">' in html

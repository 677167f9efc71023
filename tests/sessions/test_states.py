"""Every state of state.db a reader can meet gives its own message, never a 500 (docs/agent_formats.md §Session
history, §Session history, §Reading history safely)."""

from __future__ import annotations

import sqlite3

import pytest

from memory_core.history import open_history
from memory_core.history.schema import create_state_db
from tests.sessions import fixture as fx

pytestmark = pytest.mark.django_db


def _page(client, url: str = "/sessions/") -> str:
    response = client.get(url)
    assert response.status_code in (200, 503)
    return response.content.decode()


def test_it_says_there_is_no_history_yet_and_creates_nothing(viewer_client, home):
    assert "No session history yet" in _page(viewer_client)
    assert viewer_client.get("/api/sessions/stats").json()["total"] == 0
    assert not (home / "state.db").exists()


def test_it_says_the_file_is_locked_while_another_program_holds_it(viewer_client, home):
    fx.build(home, wal=False)
    holder = sqlite3.connect(home / "state.db", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        assert "locked by another program" in _page(viewer_client)
        response = viewer_client.get("/api/sessions")
        assert response.status_code == 503 and response.json()["state"] == "locked"
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert "Docker networking" in _page(viewer_client)


def test_it_says_a_damaged_file_is_damaged(viewer_client, home):
    (home / "state.db").write_bytes(b"this is not a database at all" * 200)
    html = _page(viewer_client)
    assert "is damaged and cannot be read" in html and "hermes sessions repair" in html
    assert viewer_client.get("/api/sessions/search?q=x").json()["state"] == "malformed"


def test_it_says_a_file_with_a_damaged_page_is_damaged(viewer_client, home):
    fixture = fx.build(home, wal=False)
    data = bytearray(fixture.path.read_bytes())
    data[2 * 4096:2 * 4096 + 400] = b"\xff" * 400  # garble page 3: the sessions table's b-tree
    fixture.path.write_bytes(bytes(data))
    for url in ("/sessions/", "/sessions/?q=docker", f"/sessions/{fx.A}/", "/sessions/secrets/"):
        assert viewer_client.get(url).status_code in (200, 503)
    assert "is damaged and cannot be read" in _page(viewer_client)


def test_it_says_an_older_agent_wrote_a_file_without_needed_columns(viewer_client, home):
    conn = sqlite3.connect(home / "state.db")
    conn.executescript("CREATE TABLE schema_version(version INTEGER); INSERT INTO schema_version VALUES (5);"
                       "CREATE TABLE sessions(id TEXT PRIMARY KEY, source TEXT, started_at REAL);"
                       "CREATE TABLE messages(id INTEGER PRIMARY KEY, session_id TEXT, role TEXT, content TEXT,"
                       " timestamp REAL);")
    conn.close()
    assert "written by an older agent release" in _page(viewer_client)
    assert viewer_client.get("/api/sessions").json()["state"] == "old_schema"


def test_it_reads_a_newer_file_it_understands_and_says_so(viewer_client, home):
    fixture = fx.build(home)
    conn = sqlite3.connect(fixture.path)
    conn.execute("UPDATE schema_version SET version = 23")
    conn.execute("ALTER TABLE sessions ADD COLUMN future_column TEXT")
    conn.commit()
    conn.close()
    html = _page(viewer_client)
    assert "newer agent release than 0.19.0" in html and "Docker networking" in html


def test_it_refuses_a_newer_file_missing_columns_it_needs(viewer_client, home):
    conn = sqlite3.connect(home / "state.db")
    conn.executescript("CREATE TABLE schema_version(version INTEGER); INSERT INTO schema_version VALUES (30);"
                       "CREATE TABLE sessions(id TEXT PRIMARY KEY, source TEXT, started_at REAL);"
                       "CREATE TABLE messages(id INTEGER PRIMARY KEY, session_id TEXT);")
    conn.close()
    assert "newer agent release in a shape this panel does not know" in _page(viewer_client)


def test_it_lists_and_reads_without_fts5_and_says_search_is_unavailable(viewer_client, home):
    fixture = fx.build(home)
    conn = sqlite3.connect(fixture.path)
    for name in ("messages_fts", "messages_fts_trigram"):
        conn.execute(f"DROP TABLE {name}")
    conn.commit()
    conn.close()
    assert "Search is unavailable" in _page(viewer_client)
    assert "Search is unavailable" in _page(viewer_client, "/sessions/?q=docker")
    assert "Docker networking" in _page(viewer_client, f"/sessions/{fx.A}/")
    assert viewer_client.get("/api/sessions/search?q=docker").json() == {"results": []}


def test_it_searches_cjk_by_plain_matching_without_the_trigram_index(viewer_client, home):
    fixture = fx.build(home)
    conn = sqlite3.connect(fixture.path)
    conn.execute("DROP TABLE messages_fts_trigram")
    conn.commit()
    conn.close()
    assert "no trigram index" in _page(viewer_client)
    with open_history(home) as history:
        assert history.caps.fts and not history.caps.trigram
    results = viewer_client.get("/api/sessions/search?q=大别山").json()["results"]
    assert [r["match_message_id"] for r in results] == [fixture.ids["f2"]]  # LIKE: newest first


def test_it_warns_that_the_index_may_be_stale_when_triggers_are_missing(viewer_client, home):
    fixture = fx.build(home)
    conn = sqlite3.connect(fixture.path)
    conn.execute("DROP TRIGGER messages_fts_insert")
    conn.commit()
    conn.close()
    assert "recent messages may not be found" in _page(viewer_client)


def test_it_reads_a_file_in_delete_journal_mode(viewer_client, home):
    create_state_db(home / "state.db", wal=False).close()
    assert "0 sessions" in _page(viewer_client)

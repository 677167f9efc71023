"""Provenance read incrementally (issue 30): after the first read of a ``state.db`` only what the
agent appended is fetched, and any rewritten or deleted row, or a replaced file, brings a full
re-read whose result equals a fresh one."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from memory_core.history import open_history
from memory_core.history.memory_writes import (
    MemoryHistory,
    forget_kept,
    read_counts,
    read_memory_history,
    read_memory_history_full,
)
from memory_core.history.schema import insert_message
from tests.maintenance.history_builder import HistoryBuilder, success
from tests.sessions.fixture import memory_call

S1, S2 = "20260101_100000_aaaaaa", "20260102_100000_bbbbbb"


@pytest.fixture(autouse=True)
def _nothing_kept():
    forget_kept()
    yield
    forget_kept()


@pytest.fixture
def db(tmp_path: Path) -> HistoryBuilder:
    builder = HistoryBuilder(tmp_path)
    builder.session(S1, source="cli")
    builder.session(S2, source="telegram")
    builder.call("first", S1, {"action": "add", "content": "Deploys go through staging."}, success("memory"))
    builder.say(S1, "user", "thanks")
    yield builder
    builder.close()


def _read(home: Path) -> MemoryHistory:
    with open_history(home) as history:
        return read_memory_history(history)


def _fresh(home: Path) -> MemoryHistory:
    with open_history(home) as history:
        return read_memory_history_full(history)


def _texts(found: MemoryHistory) -> list[str]:
    return [op.content for write in found.writes for op in write.ops]


def test_it_reads_only_the_appended_rows_and_sees_a_new_memory_call(db):
    assert _texts(_read(db.home)) == ["Deploys go through staging."]
    # The running agent (another process) appends a turn that saves a new entry.
    script = (
        "import json, sqlite3, sys\n"
        "conn = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
        "conn.execute('BEGIN')\n"
        "conn.execute('INSERT INTO messages(session_id, role, content, tool_calls, timestamp) VALUES (?,?,?,?,?)',"
        " (sys.argv[2], 'assistant', '', sys.argv[3], 1767300000.0))\n"
        "conn.execute('INSERT INTO messages(session_id, role, content, tool_name, tool_call_id, timestamp)"
        " VALUES (?,?,?,?,?,?)', (sys.argv[2], 'tool', sys.argv[4], 'memory', 'call_new', 1767300001.0))\n"
        "conn.execute('COMMIT')\n"
    )
    subprocess.run([sys.executable, "-c", script, str(db.home / "state.db"), S2,
                    memory_call("call_new", {"action": "add", "target": "user", "content": "Name: Dana."}),
                    json.dumps(success("user"))], check=True)
    found = _read(db.home)
    assert _texts(found) == ["Deploys go through staging.", "Name: Dana."]
    assert found.writes[-1].session_id == S2 and found.writes[-1].source == "telegram"
    assert read_counts() == {"full": 1, "incremental": 1}
    assert found == _fresh(db.home)


def test_a_result_appended_after_its_call_and_a_sessions_first_success_are_both_seen(db):
    _read(db.home)
    # S2 had no successful result yet: its call row was not among the rows read.
    db.conn.execute("INSERT INTO messages(session_id, role, content, tool_calls, timestamp) VALUES (?,?,?,?,?)",
                    (S2, "assistant", "", memory_call("call_late", {"action": "add", "content": "Late fact."}),
                     1767400000.0))
    assert _texts(_read(db.home)) == ["Deploys go through staging."]  # unanswered: nothing written yet
    insert_message(db.conn, session_id=S2, role="tool", content=json.dumps(success("memory")),
                   timestamp=1767400001.0, tool_name="memory", tool_call_id="call_late")
    found = _read(db.home)
    assert _texts(found) == ["Deploys go through staging.", "Late fact."]
    assert read_counts()["incremental"] == 2
    assert found == _fresh(db.home)


def test_a_rewritten_result_brings_a_full_re_read_equal_to_a_fresh_one(db):
    _read(db.home)
    db.call("second", S2, {"action": "add", "content": "Backups at 02:00."}, success("memory"))
    _read(db.home)
    # The first call's result is rewritten in place (its size unchanged is no cover).
    failed = json.dumps({"success": False, "error": "Memory at 2,190/2,200 chars."})
    db.conn.execute("UPDATE messages SET content = ? WHERE tool_call_id = 'call_first' AND role = 'tool'",
                    (failed,))
    found = _read(db.home)
    assert _texts(found) == ["Backups at 02:00."]
    assert read_counts()["full"] == 2
    assert found == _fresh(db.home)


def test_a_rewritten_call_is_seen_too(db):
    _read(db.home)
    db.conn.execute("UPDATE messages SET tool_calls = ? WHERE id = ?",
                    (memory_call("call_first", {"action": "add", "content": "Deploys go through prod."}),
                     db.ids["first"]))
    found = _read(db.home)
    assert _texts(found) == ["Deploys go through prod."]
    assert found == _fresh(db.home)


def test_a_deleted_row_brings_a_full_re_read(db):
    db.call("second", S2, {"action": "add", "content": "Backups at 02:00."}, success("memory"))
    assert len(_read(db.home).writes) == 2
    db.conn.execute("DELETE FROM messages WHERE session_id = ?", (S1,))
    found = _read(db.home)
    assert _texts(found) == ["Backups at 02:00."]
    assert read_counts()["full"] == 2
    assert found == _fresh(db.home)


def test_a_deleted_last_row_under_a_reused_id_is_not_mistaken_for_the_old_one(db):
    # A table without AUTOINCREMENT reuses the largest id once its row is deleted.
    db.conn.execute("DELETE FROM sqlite_sequence WHERE name = 'messages'")
    _read(db.home)
    last = db.conn.execute("SELECT max(id) FROM messages").fetchone()[0]
    db.conn.execute("DELETE FROM messages WHERE id = ?", (last,))
    db.conn.execute("INSERT INTO messages(id, session_id, role, content, tool_name, tool_call_id, timestamp)"
                    " VALUES (?,?,?,?,?,?,?)", (last, S2, "tool", json.dumps(success("memory")), "memory",
                                                "call_reused", 1767500001.0))
    db.conn.execute("INSERT INTO messages(session_id, role, content, tool_calls, timestamp) VALUES (?,?,?,?,?)",
                    (S2, "assistant", "", memory_call("call_reused", {"action": "add", "content": "Reused."}),
                     1767500000.0))
    found = _read(db.home)
    assert "Reused." in _texts(found)
    assert found == _fresh(db.home)


def test_a_replaced_file_is_read_from_scratch(db, tmp_path):
    assert _texts(_read(db.home)) == ["Deploys go through staging."]
    (tmp_path / "other").mkdir()
    other = HistoryBuilder(tmp_path / "other")
    other.session(S1, source="discord")
    other.call("only", S1, {"action": "add", "content": "From the restored copy."}, success("memory"))
    other.close()
    db.close()
    os.replace(other.home / "state.db", db.home / "state.db")  # a new inode at the same path
    found = _read(db.home)
    assert _texts(found) == ["From the restored copy."]
    assert found.writes[0].source == "discord"
    assert read_counts()["full"] == 2


def test_two_profiles_keep_their_own_reads(db, tmp_path):
    (tmp_path / "profiles" / "work").mkdir(parents=True)
    other = HistoryBuilder(tmp_path / "profiles" / "work")
    other.session(S1, source="slack")
    other.call("work", S1, {"action": "add", "content": "Work fact."}, success("memory"))
    assert _texts(_read(db.home)) == ["Deploys go through staging."]
    assert _texts(_read(other.home)) == ["Work fact."]
    other.call("more", S1, {"action": "add", "content": "More work."}, success("memory"))
    other.close()
    assert _texts(_read(db.home)) == ["Deploys go through staging."]
    assert _texts(_read(other.home)) == ["Work fact.", "More work."]


def test_copies_of_a_compactions_carried_tail_count_once(db):
    # v30 semantics on any shape with the columns: the original is marked compacted, the copy is live.
    _read(db.home)
    db.conn.execute("UPDATE messages SET active = 0, compacted = 1 WHERE session_id = ?", (S1,))
    db.call("copy", S1, {"action": "add", "content": "Deploys go through staging."}, success("memory"),
            call_id="call_first")
    found = _read(db.home)
    assert [(w.message_id, _texts(MemoryHistory(writes=(w,), usage=()))) for w in found.writes] == [
        (db.ids["first"], ["Deploys go through staging."])]
    assert len(found.usage) == 1
    assert found == _fresh(db.home)


def test_an_unchanged_file_is_answered_without_reading_rows_again(db):
    first = _read(db.home)
    assert _read(db.home) is first
    with sqlite3.connect(db.home / "state.db") as conn:
        assert conn.execute("SELECT count(*) FROM messages").fetchone()[0] == 3

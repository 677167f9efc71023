"""Provenance on every shape of ``state.db`` a user may have (docs/history.md): 0.19.0's, a fresh
v30 file, a 0.19.0 file upgraded in place, and v30 whose CJK index's tokenizer the panel cannot
load. The same history gives the same writes, and an appended turn is read incrementally."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from memory_core.history import open_history
from memory_core.history.memory_writes import forget_kept, read_counts, read_memory_history, read_memory_history_full
from memory_core.history.schema import (
    create_state_db,
    create_state_db_v30,
    insert_message,
    insert_session,
    make_cjk_tokenizer_unloadable,
    upgrade_to_v30,
)
from tests.maintenance.history_builder import T0, success
from tests.sessions.fixture import memory_call

SHAPES = ("0.19.0", "v30", "v30-upgraded", "v30-cjk-missing")
S1, S2 = "20260101_100000_aaaaaa", "20260102_100000_bbbbbb"


@pytest.fixture(autouse=True)
def _nothing_kept():
    forget_kept()
    yield
    forget_kept()


def _call(conn: sqlite3.Connection, session_id: str, call_id: str, arguments: dict, result: dict | None,
          at: float, **columns: object) -> int:
    message_id = insert_message(conn, session_id=session_id, role="assistant", content="", timestamp=at,
                                tool_calls=memory_call(call_id, arguments), **columns)
    if result is not None:
        insert_message(conn, session_id=session_id, role="tool", content=json.dumps(result, ensure_ascii=False),
                       timestamp=at + 1, tool_name="memory", tool_call_id=call_id, **columns)
    return message_id


def _build(home: Path, shape: str) -> sqlite3.Connection:
    path = home / "state.db"
    if shape in ("v30", "v30-cjk-missing"):
        conn = create_state_db_v30(path, cjk_table=shape == "v30-cjk-missing")
    else:
        conn = create_state_db(path)
    insert_session(conn, id=S1, source="cli", started_at=T0)
    insert_session(conn, id=S2, source="cron", started_at=T0 + 100)
    _call(conn, S1, "c1", {"action": "add", "content": "Deploys go through staging."}, success("memory"), T0 + 10)
    # A user-store result whose text never says "memory" outside its tool name.
    _call(conn, S2, "c2", {"action": "add", "target": "user", "content": "Name: Dana."},
          {"success": True, "done": True, "target": "user", "usage": "1% — 11/1,375 chars", "entry_count": 1,
           "message": "Entry added.", "note": "Write saved."}, T0 + 110)
    _call(conn, S1, "c3", {"action": "add", "content": "Too long."}, {"success": False, "error": "Over."}, T0 + 20)
    # Compaction summarized the first turn away and carried it forward as a live copy.
    conn.execute("UPDATE messages SET active = 0, compacted = 1 WHERE tool_call_id = 'c1' OR id = 1")
    _call(conn, S1, "c1", {"action": "add", "content": "Deploys go through staging."}, success("memory"), T0 + 30)
    if shape == "v30-upgraded":
        upgrade_to_v30(conn)
    if shape == "v30-cjk-missing":
        make_cjk_tokenizer_unloadable(conn)
    return conn


def _read(home: Path, *, full: bool = False):
    with open_history(home) as history:
        return (read_memory_history_full if full else read_memory_history)(history)


@pytest.mark.parametrize("shape", SHAPES)
def test_every_shape_gives_the_same_writes(tmp_path, shape):
    conn = _build(tmp_path, shape)
    conn.close()
    found = _read(tmp_path)
    assert [(w.session_id, w.source, w.ops[0].content) for w in found.writes] == [
        (S1, "cli", "Deploys go through staging."), (S2, "cron", "Name: Dana.")]
    assert [(p.target, p.chars, p.limit) for p in found.usage] == [("memory", 40, 2200), ("user", 11, 1375)]
    assert found == _read(tmp_path, full=True)


@pytest.mark.parametrize("shape", ["0.19.0", "v30", "v30-upgraded"])
def test_an_appended_turn_is_read_incrementally_on_every_shape_the_agent_can_write(tmp_path, shape):
    conn = _build(tmp_path, shape)
    _read(tmp_path)
    _call(conn, S2, "c4", {"action": "add", "target": "user", "content": "Prefers tea."},
          success("user", chars=24, limit=1375), T0 + 200)
    found = _read(tmp_path)
    assert found.writes[-1].ops[0].content == "Prefers tea."
    assert read_counts() == {"full": 1, "incremental": 1}
    assert found == _read(tmp_path, full=True)
    conn.close()


def test_a_file_upgraded_in_place_is_read_again_from_scratch(tmp_path):
    conn = _build(tmp_path, "0.19.0")
    before = _read(tmp_path)
    upgrade_to_v30(conn)  # same file, same inode, new columns and triggers
    _call(conn, S1, "c5", {"action": "add", "content": "After the upgrade."}, success("memory"), T0 + 300)
    found = _read(tmp_path)
    assert read_counts()["full"] == 2
    assert found.writes[:-1] == before.writes and found.writes[-1].ops[0].content == "After the upgrade."
    conn.close()

"""Provenance on hand-built ``state.db`` files: which recorded ``memory`` call wrote each entry's
current text (docs/agent_formats.md §Memory tool calls in history), with the store's own normalisation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_core.history import open_history
from memory_core.history.memory_writes import read_memory_history
from memory_core.history.schema import insert_message
from memory_core.maintenance import analyse_store
from memory_core.maintenance.provenance import trace_entries
from tests.maintenance.history_builder import T0, HistoryBuilder, success

S1, S2, S3 = "20260101_100000_aaaaaa", "20260102_100000_bbbbbb", "20260103_100000_cccccc"
NOW = T0 + 40 * 86400


@pytest.fixture
def db(tmp_path: Path) -> HistoryBuilder:
    builder = HistoryBuilder(tmp_path)
    builder.session(S1, source="cli")
    builder.session(S2, source="telegram")
    builder.session(S3, source="discord")
    yield builder
    builder.close()


def _trace(db: HistoryBuilder, memory: list[str], user: list[str] | None = None):
    with open_history(db.home) as history:
        found = read_memory_history(history)
    return trace_entries({"memory": memory, "user": user or []}, found.writes, now=NOW), found


def test_it_traces_a_single_add_to_its_session_and_message(db):
    db.call("add", S2, {"action": "add", "target": "memory", "content": "  Deploys go through staging.  "},
            success("memory"))
    traced, _ = _trace(db, ["Deploys go through staging."])
    source = traced["memory"]["Deploys go through staging."]
    assert (source.write.session_id, source.write.message_id, source.write.source) == (S2, db.ids["add"], "telegram")
    assert source.age_days == pytest.approx((NOW - source.write.at) / 86400)


def test_it_ignores_a_failed_a_staged_and_an_unanswered_write(db):
    db.call("failed", S1, {"action": "add", "content": "Failed text."},
            {"success": False, "error": "Memory at 2,190/2,200 chars."})
    db.call("staged", S1, {"action": "add", "content": "Staged text."},
            {"success": True, "staged": True, "pending_id": "0a1b2c3d", "message": "Staged for approval."})
    db.call("unanswered", S1, {"action": "add", "content": "Unanswered text."}, None)
    db.call("broken", S1, {"action": "add", "content": "Broken result."}, "not json")
    db.call("ok", S3, {"action": "add", "content": "Stored text."}, success("memory"))
    texts = ["Failed text.", "Staged text.", "Unanswered text.", "Broken result.", "Stored text."]
    traced, _ = _trace(db, texts)
    assert list(traced["memory"]) == ["Stored text."]


def test_it_traces_the_add_and_replace_operations_of_a_batch(db):
    db.call("first", S1, {"action": "add", "content": "Old editor: vim."}, success("memory"))
    db.call("batch", S2, {"target": "memory", "action": "remove", "operations": [
        {"action": "add", "content": "Uses fish shell."},
        {"action": "replace", "old_text": "vim", "content": "Editor: neovim."},
        {"action": "remove", "old_text": "nothing here"},
    ]}, success("memory"))
    traced, _ = _trace(db, ["Editor: neovim.", "Uses fish shell."])
    assert {text: s.write.message_id for text, s in traced["memory"].items()} == {
        "Editor: neovim.": db.ids["batch"], "Uses fish shell.": db.ids["batch"]}


def test_a_failed_batch_counts_for_none_of_its_operations(db):
    db.call("batch", S1, {"operations": [{"action": "add", "content": "One."}, {"action": "add", "content": "Two."}]},
            {"success": False, "error": "Memory at 2,190/2,200 chars."})
    traced, _ = _trace(db, ["One.", "Two."])
    assert traced["memory"] == {}


def test_a_replace_chain_traces_the_entry_to_its_last_link(db):
    db.call("v1", S1, {"action": "add", "content": "Release day is Monday."}, success("memory"))
    db.call("v2", S2, {"action": "replace", "old_text": "Monday", "content": "Release day is Tuesday."},
            success("memory", message="Entry replaced."))
    db.call("v3", S3, {"action": "replace", "old_text": "Tuesday", "content": "Release day is Thursday."},
            success("memory", message="Entry replaced."))
    traced, _ = _trace(db, ["Release day is Thursday."])
    assert traced["memory"]["Release day is Thursday."].write.message_id == db.ids["v3"]
    # The chain's earlier texts are no longer in the file: nothing to trace for them.
    traced, _ = _trace(db, ["Release day is Monday."])
    assert traced["memory"]["Release day is Monday."].write.message_id == db.ids["v1"]


def test_an_entry_written_twice_keeps_the_write_that_put_it_there(db):
    db.call("first", S1, {"action": "add", "content": "Prefers tea."}, success("memory"))
    # A second single add of the same text wrote nothing; a batch add of it was skipped.
    db.call("again", S2, {"action": "add", "content": "Prefers tea."},
            success("memory", message="Entry already exists (no duplicate added)."))
    db.call("batch", S2, {"operations": [{"action": "add", "content": "Prefers tea."},
                                         {"action": "add", "content": "Likes jazz."}]}, success("memory"))
    traced, _ = _trace(db, ["Prefers tea.", "Likes jazz."])
    assert traced["memory"]["Prefers tea."].write.message_id == db.ids["first"]
    assert traced["memory"]["Likes jazz."].write.message_id == db.ids["batch"]

    # Once removed, adding it again is a new write.
    db.call("remove", S3, {"action": "remove", "old_text": "tea"}, success("memory", message="Entry removed."))
    db.call("readd", S3, {"action": "add", "content": "Prefers tea."}, success("memory"))
    traced, _ = _trace(db, ["Prefers tea."])
    assert traced["memory"]["Prefers tea."].write.message_id == db.ids["readd"]


def test_an_entry_edited_by_hand_afterwards_has_no_record(db):
    db.call("add", S1, {"action": "add", "content": "Uses vim."}, success("memory"))
    traced, _ = _trace(db, ["Uses vim (since 2019)."])
    assert traced["memory"] == {}


def test_matching_uses_the_stores_normalisation_and_the_right_target(db):
    db.call("crlf", S1, {"action": "add", "target": "user", "content": "\r\n Line one\r\nline two \r\n"},
            success("user"))
    db.call("cjk", S2, {"action": "add", "target": "user", "content": "用户喜欢简洁的回答。"}, success("user"))
    db.call("split", S3, {"action": "add", "content": "Part A\n§\nPart B"}, success("memory"))
    db.call("other", S3, {"action": "add", "target": "user", "content": "Only in USER.md."}, success("user"))
    traced, _ = _trace(db, ["Part A", "Part B", "Only in USER.md.", "line one\nline two"],
                       ["Line one\nline two", "用户喜欢简洁的回答。"])
    assert set(traced["user"]) == {"Line one\nline two", "用户喜欢简洁的回答。"}
    assert set(traced["memory"]) == {"Part A", "Part B"}  # case-sensitive; other target not matched


def test_rewound_and_copied_rows_still_count_at_their_earliest_row(db):
    first = db.call("orig", S1, {"action": "add", "content": "Backups run at 02:00."}, success("memory"),
                    call_id="call_copy")
    db.conn.execute("UPDATE messages SET active = 0 WHERE session_id = ?", (S1,))
    # /branch copies the rows into a new session with newer timestamps and the same call id.
    db.call("copy", S2, {"action": "add", "content": "Backups run at 02:00."}, success("memory"),
            call_id="call_copy")
    traced, _ = _trace(db, ["Backups run at 02:00."])
    assert traced["memory"]["Backups run at 02:00."].write.message_id == first


def test_a_flat_call_item_with_dict_arguments_is_understood(db):
    at = T0 + 5000
    mid = insert_message(db.conn, session_id=S1, role="assistant", content="", timestamp=at,
                         tool_calls=json.dumps([{"id": "flat1", "name": "memory",
                                                 "arguments": {"action": "add", "content": "Flat call."}}]))
    insert_message(db.conn, session_id=S1, role="tool", content=json.dumps(success("memory")), timestamp=at + 1,
                   tool_name="memory", tool_call_id="flat1")
    traced, _ = _trace(db, ["Flat call."])
    assert traced["memory"]["Flat call."].write.message_id == mid


def test_successful_results_give_the_budget_history(db):
    db.call("one", S1, {"action": "add", "content": "One."}, success("memory", chars=1200, limit=2200))
    db.call("two", S1, {"action": "add", "target": "user", "content": "Two."}, success("user", chars=300, limit=1375))
    db.call("bad", S1, {"action": "add", "content": "Three."}, {"success": False, "error": "x", "usage": "1/2 chars"})
    _, found = _trace(db, [])
    assert [(p.target, p.chars, p.limit) for p in found.usage] == [("memory", 1200, 2200), ("user", 300, 1375)]


def test_the_age_finding_uses_provenance(db):
    db.call("old", S1, {"action": "add", "content": "Old fact."}, success("memory"), at=T0)
    db.call("new", S1, {"action": "add", "content": "New fact."}, success("memory"), at=NOW - 86400)
    traced, _ = _trace(db, ["Old fact.", "New fact.", "Unknown fact."])
    analysis = analyse_store(["Old fact.", "New fact.", "Unknown fact."], 2200,
                             provenance=traced["memory"], max_age_days=30)
    assert [(f.category, f.text) for f in analysis.findings] == [("stale", "Old fact.")]
    assert analyse_store(["Old fact."], 2200, provenance=traced["memory"], max_age_days=45).findings == ()


def test_a_reused_call_id_takes_the_result_of_its_own_session(db):
    # Some models number their calls per turn ("call_0"): a failure in one session is not
    # rescued by a success with the same id in another.
    db.call("fail", S1, {"action": "add", "content": "Never saved."},
            {"success": False, "error": "Memory at 2,190/2,200 chars."}, call_id="call_0")
    db.call("ok", S2, {"action": "add", "content": "Saved."}, success("memory"), call_id="call_0")
    traced, _ = _trace(db, ["Never saved.", "Saved."])
    assert list(traced["memory"]) == ["Saved."]


def test_without_the_full_text_index_the_table_is_scanned(db):
    db.conn.execute("DROP TRIGGER messages_fts_insert")
    db.call("add", S1, {"action": "add", "content": "Found by the scan."}, success("memory"))
    with open_history(db.home) as history:
        assert "messages_fts_insert" in history.caps.missing_triggers
    traced, _ = _trace(db, ["Found by the scan."])
    assert traced["memory"]["Found by the scan."].write.message_id == db.ids["add"]


def test_a_newer_agents_new_text_is_the_content_it_wrote(db):
    db.call("single", S1, {"action": "replace", "old_text": "Monday", "new_text": "Release day is Friday."},
            success("memory", message="Entry replaced."))
    db.call("batch", S2, {"operations": [{"action": "add", "new_text": "Uses fish shell."}]}, success("memory"))
    traced, _ = _trace(db, ["Release day is Friday.", "Uses fish shell."])
    assert {text: s.write.message_id for text, s in traced["memory"].items()} == {
        "Release day is Friday.": db.ids["single"], "Uses fish shell.": db.ids["batch"]}

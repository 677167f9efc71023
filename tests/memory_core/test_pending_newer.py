"""Pending records as newer agents write them (docs/memory_core.md "Newer agents"): a staged
replace/remove carries the whole entry it was reviewed against (``matched_entry``), approval
applies to exactly that entry or is refused with the agent's reason, and records in either
release's shape, or in none the panel knows, are kept as they are."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_core import MemoryStore, approve, list_pending, reject
from memory_core.config import store_from_config
from memory_core.history.schema import create_state_db
from memory_core.pending import pending_dir, unreadable_pending

DELIMITER = "\n§\n"
STALE = ("Entry changed since it was staged, so this write was not applied: '{}' is no longer in memory as "
         "reviewed. Recreate the change against the current entry or reject it; the pending record has been "
         "preserved.")
UNPINNED = ("This destructive pending write predates entry pinning and cannot be verified; nothing was applied. "
            "Reject it and recreate the change.")
BATCH_SUFFIX = " No operations were applied (batch is all-or-nothing)."


def _store_file(home: Path, target: str, entries: list[str]) -> Path:
    path = home / "memories" / ("USER.md" if target == "user" else "MEMORY.md")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(DELIMITER.join(entries), encoding="utf-8")
    return path


def _entries(home: Path, target: str = "memory") -> list[str]:
    path = home / "memories" / ("USER.md" if target == "user" else "MEMORY.md")
    return [piece.strip() for piece in path.read_text(encoding="utf-8").split(DELIMITER) if piece.strip()]


def _record(home: Path, pending_id: str, payload: dict, **extra: object) -> Path:
    """A record file as the agent writes it (``extra``: fields 0.19.0 does not know)."""
    record = {"id": pending_id, "subsystem": "memory", "action": payload.get("action", ""),
              "summary": "staged", "origin": "foreground", "created_at": 1767000000.0,
              "payload": payload, **extra}
    directory = pending_dir(home)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{pending_id}.json"
    path.write_text(json.dumps(record, ensure_ascii=False, indent=2), encoding="utf-8")
    return path


def _newer_agent(home: Path) -> None:
    """The home's state.db, upgraded by a newer agent (schema version past 0.19.0's 22)."""
    conn = create_state_db(home / "state.db")
    conn.execute("UPDATE schema_version SET version = 30")
    conn.close()


@pytest.fixture
def store(home: Path) -> MemoryStore:
    return store_from_config(home, load=False)


def test_a_pinned_replace_changes_exactly_the_entry_it_was_reviewed_against(home, store):
    _store_file(home, "memory", ["Editor: vim.", "Uses vim keys everywhere."])
    # old_text alone matches two entries (0.19.0 would refuse as ambiguous); the pin decides.
    _record(home, "0000000a", {"action": "replace", "target": "memory", "old_text": "vim",
                               "content": "Editor: neovim.", "matched_entry": "Editor: vim."})
    result = approve(home, store, "0000000a")
    assert result["success"] is True
    assert _entries(home) == ["Editor: neovim.", "Uses vim keys everywhere."]
    assert list_pending(home) == []


@pytest.mark.parametrize("newer", [False, True])
def test_a_pinned_write_whose_entry_changed_is_refused_and_kept_unchanged(home, store, newer):
    if newer:
        _newer_agent(home)
    path = _store_file(home, "memory", ["Editor: vim (since 2019)."])
    before = path.read_bytes()
    record = _record(home, "0000000b", {"action": "remove", "target": "memory", "old_text": "vim",
                                        "matched_entry": "Editor: vim."}, reviewed_by="dana", future={"x": 1})
    record_bytes = record.read_bytes()
    result = approve(home, store, "0000000b")
    assert result == {"success": False, "error": STALE.format("Editor: vim.")}
    assert path.read_bytes() == before
    assert record.read_bytes() == record_bytes  # kept, unknown fields and all


def test_a_pinned_batch_is_all_or_nothing_with_the_operations_position(home, store):
    path = _store_file(home, "memory", ["One.", "Two (edited)."])
    before = path.read_bytes()
    _record(home, "0000000c", {"action": "batch", "target": "memory", "operations": [
        {"action": "add", "content": "Three."},
        {"action": "remove", "old_text": "Two", "matched_entry": "Two."},
    ]})
    result = approve(home, store, "0000000c")
    assert result["success"] is False
    assert result["error"] == "Operation 2 (remove): " + STALE.format("Two.") + BATCH_SUFFIX
    assert path.read_bytes() == before
    assert [record["id"] for record in list_pending(home)] == ["0000000c"]


def test_an_unpinned_replace_is_refused_in_a_newer_agents_home_and_replayed_in_0_19_0s(home, store, tmp_path):
    payload = {"action": "replace", "target": "memory", "old_text": "vim", "content": "Editor: neovim."}
    _store_file(home, "memory", ["Editor: vim."])
    _record(home, "0000000d", payload)
    _newer_agent(home)
    assert approve(home, store, "0000000d") == {"success": False, "error": UNPINNED}
    assert _entries(home) == ["Editor: vim."] and len(list_pending(home)) == 1

    old_home = tmp_path / "old"
    old_home.mkdir()
    create_state_db(old_home / "state.db").close()  # 0.19.0's own file
    _store_file(old_home, "memory", ["Editor: vim."])
    _record(old_home, "0000000d", payload)
    assert approve(old_home, store_from_config(old_home, load=False), "0000000d")["success"] is True
    assert _entries(old_home) == ["Editor: neovim."]


def test_a_newer_agent_refuses_a_write_to_a_disabled_store(home):
    (home / "config.yaml").write_text("memory:\n  user_profile_enabled: false\n", encoding="utf-8")
    _newer_agent(home)
    _record(home, "0000000e", {"action": "add", "target": "user", "content": "Name: Dana."})
    result = approve(home, store_from_config(home, load=False), "0000000e")
    assert result == {"success": False, "error": "Built-in USER.md writes are disabled in memory config.",
                      "target": "user"}
    assert len(list_pending(home)) == 1


def test_a_newer_agents_batch_operation_may_say_new_text(home, store):
    _newer_agent(home)
    _store_file(home, "memory", ["Release day is Monday."])
    _record(home, "0000000f", {"action": "batch", "target": "memory", "operations": [
        {"action": "replace", "old_text": "Monday", "new_text": "Release day is Thursday.",
         "matched_entry": "Release day is Monday."}]})
    assert approve(home, store, "0000000f")["success"] is True
    assert _entries(home) == ["Release day is Thursday."]


def test_files_the_panel_cannot_read_are_listed_and_never_deleted(home, store):
    directory = pending_dir(home)
    directory.mkdir(parents=True)
    (directory / "0000aaaa.json").write_text("{not json", encoding="utf-8")
    (directory / "0000bbbb.json").write_text("[1, 2]", encoding="utf-8")
    (directory / "v2-0000cccc.json").write_text(json.dumps({"id": "v2-0000cccc", "payload": {}}), encoding="utf-8")
    _record(home, "0000dddd", {"action": "add", "target": "memory", "content": "Readable."})
    _store_file(home, "memory", [])

    assert [(item.name, item.reason) for item in unreadable_pending(home)] == [
        ("0000aaaa.json", "not_json"), ("0000bbbb.json", "not_object"), ("v2-0000cccc.json", "id_mismatch")]
    assert [record["id"] for record in list_pending(home)] == ["0000dddd"]
    assert approve(home, store, "0000dddd")["success"] is True
    assert reject(home, "0000aaaa", only_readable=True) == {"success": False, "error": (
        "Pending memory write '0000aaaa' is not a record the panel can read; it was kept as it is. "
        "Remove the file by hand if you are sure it is not needed.")}
    assert sorted(path.name for path in directory.iterdir()) == ["0000aaaa.json", "0000bbbb.json", "v2-0000cccc.json"]


def test_a_newer_agent_refuses_a_batch_that_would_empty_the_store(home, store, tmp_path):
    payload = {"action": "batch", "target": "memory", "operations": [
        {"action": "remove", "old_text": "One", "matched_entry": "One."}]}
    _newer_agent(home)
    path = _store_file(home, "memory", ["One."])
    _record(home, "000000a1", payload)
    result = approve(home, store, "000000a1")
    assert result["success"] is False
    assert result["error"] == ("Refusing to empty MEMORY.md: this batch would remove every entry from a previously "
                               "non-empty store. Keep at least one entry — merge overlapping entries into a shorter "
                               "one instead of removing the last one. To delete the final entry deliberately, use "
                               "single remove() calls." + BATCH_SUFFIX)
    assert path.read_text(encoding="utf-8") == "One."
    # 0.19.0 applies the same batch.
    old_home = tmp_path / "old"
    old_home.mkdir()
    _store_file(old_home, "memory", ["One."])
    _record(old_home, "000000a1", payload)
    assert approve(old_home, store_from_config(old_home, load=False), "000000a1")["success"] is True

"""The pending queue and the /memory subcommands (docs/agent_formats.md §Pending queue-§Pending queue, D17; vectors
53-58)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_core import MemoryStore, approve, handle_memory_command, list_pending, memory_tool, reject, stage
from memory_core.config import read_memory_config

from .conftest import read_bytes

FOOTER = "Apply: /memory approve <id>   Reject: /memory reject <id>"


def stage_add(home: Path, content: str, *, origin: str = "foreground", created_at: float | None = None) -> str:
    payload = {"action": "add", "target": "memory", "content": content, "old_text": None}
    clock = (lambda: created_at) if created_at is not None else None
    kwargs = {"clock": clock} if clock else {}
    return stage(home, payload=payload, summary=f"add to memory: {content}", origin=origin, **kwargs)["id"]


def stage_payload(home: Path, payload: dict, created_at: float) -> str:
    return stage(home, payload=payload, summary="staged", clock=lambda: created_at)["id"]


def test_it_lists_pending_writes_in_the_agents_words(home: Path, store: MemoryStore) -> None:
    assert handle_memory_command("pending", home=home, store=store) == "No pending memory writes."
    pending_id = stage_add(home, "Deploys go to Ubuntu 24.04")
    auto_id = stage_add(home, "auto", origin="background_review")
    assert handle_memory_command("pending", home=home, store=store) == (
        f"Pending memory writes (2):\n  {pending_id}  add to memory: Deploys go to Ubuntu 24.04\n"
        f"  {auto_id} [auto]  add to memory: auto\n\n{FOOTER}"
    )
    assert handle_memory_command("", home=home, store=store).startswith(
        "memory.write_approval = off\n\nPending memory writes (2):"
    )


def test_it_lists_a_write_staged_by_the_tool_exactly_as_the_agent_does(home: Path, make_store) -> None:
    gated = make_store(write_approval=True)
    staged = json.loads(memory_tool(action="add", content="Deploys go to Ubuntu 24.04", store=gated))
    pending_id = staged["pending_id"]
    assert handle_memory_command("pending", home=home, store=gated) == (
        f"Pending memory writes (1):\n  {pending_id}  add to memory: Deploys go to Ubuntu 24.04\n\n{FOOTER}"
    )


def test_it_approves_all_and_keeps_the_failures(home: Path, store: MemoryStore) -> None:
    first = stage_payload(home, {"action": "add", "target": "memory", "content": "q1", "old_text": None}, 1.0)
    second = stage_payload(home, {"action": "replace", "target": "memory", "content": "x", "old_text": "Deploys"}, 2.0)
    text = handle_memory_command(["approve", "all"], home=home, store=store)
    assert text == (
        "Approved 1 memory write(s).\nFailed:\n"
        f"  {second}: No entry matched 'Deploys'. Check current_entries below and retry with the exact text of "
        "the entry you want to replace."
    )
    assert [r["id"] for r in list_pending(home)] == [second]
    assert not (home / "pending" / "memory" / f"{first}.json").exists()
    assert read_bytes(home) == b"q1"


def test_it_answers_usage_unknown_ids_and_bad_values(home: Path, store: MemoryStore) -> None:
    assert handle_memory_command("approve", home=home, store=store) == "Usage: /memory approve|reject <id>  (or 'all')"
    assert handle_memory_command("reject ALL", home=home, store=store) == "Rejected 0 pending memory write(s)."
    assert handle_memory_command("approve 0badc0de", home=home, store=store) == "No pending memory writes."
    stage_add(home, "x")
    assert handle_memory_command("reject 0badc0de", home=home, store=store) == (
        "No pending memory write with id '0badc0de'."
    )
    assert handle_memory_command("approve 0badc0de", home=home, store=store) == (
        "No pending memory write with id '0badc0de'."
    )
    assert handle_memory_command("approval Bogus", home=home, store=store) == "Invalid value 'bogus'. Use: on or off."
    assert handle_memory_command("diff", home=home, store=store) is None


def test_it_switches_approval_on_and_off(home: Path, store: MemoryStore) -> None:
    assert handle_memory_command("approval", home=home, store=store) == (
        "memory.write_approval = off\nSet with: /memory approval <on|off>"
    )
    assert handle_memory_command("mode ON", home=home, store=store) == "memory.write_approval set to 'on'."
    assert read_memory_config(home).write_approval is True
    assert "write_approval: true" in (home / "config.yaml").read_text(encoding="utf-8")
    assert handle_memory_command("approval disable", home=home, store=store) == "memory.write_approval set to 'off'."
    assert read_memory_config(home).write_approval is False


def test_it_rejects_one_record_and_all_records(home: Path, store: MemoryStore) -> None:
    one, two, three = (stage_add(home, text) for text in ("a", "b", "c"))
    assert handle_memory_command(f"drop {one}", home=home, store=store) == f"Rejected pending memory write '{one}'."
    assert handle_memory_command("deny all", home=home, store=store) == "Rejected 2 pending memory write(s)."
    assert list_pending(home) == []
    assert reject(home, two) == {"success": False, "error": f"No pending memory write with id '{two}'."}
    assert three


@pytest.mark.parametrize("bad_id", ["../../x", "DD2886BF", "dd2886b", "dd2886bff", "", "dd2886b/"])
def test_it_validates_ids_before_any_path_is_touched(home: Path, store: MemoryStore, bad_id: str) -> None:
    (home / "x.json").write_text("{}", encoding="utf-8")
    stage_add(home, "keep me")
    message = f"Invalid pending id '{bad_id}'. Ids are 8 lower-case hex characters."
    assert handle_memory_command(["reject", bad_id], home=home, store=store) == message
    assert handle_memory_command(["approve", bad_id], home=home, store=store) == message
    assert reject(home, bad_id) == {"success": False, "error": message}
    assert approve(home, store, bad_id) == {"success": False, "error": message}
    assert (home / "x.json").exists()
    assert len(list_pending(home)) == 1


def test_it_checks_a_staged_batch_like_a_direct_call(home: Path, store: MemoryStore) -> None:
    bogus = stage_payload(
        home, {"action": "batch", "target": "bogus", "operations": [{"action": "add", "content": "x"}]}, 1
    )
    not_list = stage_payload(home, {"action": "batch", "target": "memory", "operations": {"action": "add"}}, 2)
    empty = stage_payload(home, {"action": "batch", "target": "user"}, 3)
    unknown = stage_payload(home, {"action": "batch", "operations": [{"action": "frobnicate"}]}, 4)
    zap = stage_payload(home, {"action": "zap"}, 5)
    assert approve(home, store, bogus)["error"] == "Invalid target 'bogus'. Use 'memory' or 'user'."
    assert (
        approve(home, store, not_list)["error"] == "operations must be a list of {action, content?, old_text?} objects."
    )
    assert approve(home, store, empty)["error"] == "operations list is empty."
    assert approve(home, store, unknown)["error"].startswith("Operation 1 (frobnicate): unknown action.")
    assert approve(home, store, zap) == {"success": False, "error": "Unknown staged action 'zap'."}
    assert {r["id"] for r in list_pending(home)} == {bogus, not_list, empty, unknown, zap}
    assert not (home / "memories" / "MEMORY.md").exists()


def test_it_reports_a_malformed_staged_operation_as_a_failure(home: Path, store: MemoryStore) -> None:
    bad = stage_payload(home, {"action": "batch", "target": "memory", "operations": ["not an object"]}, 1)
    result = approve(home, store, bad)
    assert result["success"] is False and "must be an object" in result["error"]
    assert len(list_pending(home)) == 1


def test_it_applies_an_approved_write_even_while_approval_is_on(home: Path, make_store) -> None:
    store = make_store(write_approval=True)
    pending_id = stage_add(home, "approved fact")
    result = approve(home, store, pending_id)
    assert result["message"] == "Entry added."
    assert read_bytes(home) == b"approved fact"
    assert list_pending(home) == []


def test_it_lists_only_records_named_by_their_own_valid_id(home: Path, caplog) -> None:
    good = stage_add(home, "good", created_at=5.0)
    older = stage_add(home, "older", created_at=1.0)
    queue = home / "pending" / "memory"
    (queue / "notanid.json").write_text(json.dumps({"id": "notanid", "created_at": 0}), encoding="utf-8")
    (queue / "abcdef12.json").write_text(json.dumps({"id": "12345678"}), encoding="utf-8")
    (queue / "0000aaaa.json").write_bytes(b"\xef\xbb\xbf" + json.dumps({"id": "0000aaaa"}).encode())
    (queue / "1111bbbb.json").write_text("{not json", encoding="utf-8")
    assert [r["id"] for r in list_pending(home)] == [older, good]
    assert "Skipping unreadable pending record" in caplog.text


def test_it_says_the_store_is_unavailable_without_one(home: Path) -> None:
    pending_id = stage_add(home, "x")
    assert handle_memory_command("approve all", home=home, store=None) == (
        f"Approved 0 memory write(s).\nFailed:\n  {pending_id}: memory store unavailable"
    )

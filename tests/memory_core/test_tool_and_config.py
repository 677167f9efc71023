"""The agent-side tool dispatcher and approval gate (docs/agent_formats.md §Memory tool, §Pending queue)
and config (§Memory settings)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_core import MemoryStore, list_pending, memory_tool, read_memory_config, store_from_config
from memory_core.config import approval_is_on, set_write_approval

from .conftest import write_file

STAGED_MESSAGE = "Staged for approval (memory.write_approval is on). Not yet saved — review with /memory pending."


def call(**kwargs) -> dict:
    return json.loads(memory_tool(**kwargs))


def test_it_rejects_a_target_other_than_memory_or_user(store: MemoryStore) -> None:
    text = memory_tool(action="add", target="soul", content="x", store=store)
    assert text == "{\"error\": \"Invalid target 'soul'. Use 'memory' or 'user'.\", \"success\": false}"


def test_it_reports_an_unavailable_store_first() -> None:
    assert call(action="add", target="soul", content="x", store=None) == {
        "error": "Memory is not available. It may be disabled in config or this environment.",
        "success": False,
    }


def test_it_checks_the_action_and_its_arguments(store: MemoryStore) -> None:
    store.add("memory", "alpha one")
    assert call(store=store) == {"error": "Unknown action 'None'. Use: add, replace, remove", "success": False}
    assert call(action="frob", store=store)["error"] == "Unknown action 'frob'. Use: add, replace, remove"
    assert call(action="add", content="", store=store)["error"] == "Content is required for 'add' action."
    assert call(action="replace", old_text="alpha", store=store)["error"] == (
        "content is required for 'replace' action."
    )
    assert call(action="remove", store=store) == {
        "success": False,
        "error": (
            "'remove' needs old_text -- a short unique substring of the entry to remove. None was provided. "
            "Reissue the remove with old_text set to part of one of the current_entries below."
        ),
        "current_entries": ["alpha one"],
        "usage": "9/500",
    }
    assert call(operations={"a": 1}, store=store)["error"] == (
        "operations must be a list of {action, content?, old_text?} objects."
    )
    assert store.consolidation_failures == 0


def test_it_dispatches_to_the_store_and_keeps_non_ascii_text_readable(store: MemoryStore) -> None:
    text = memory_tool(action="add", target=None, content="Café ☕", store=store)
    assert '"message": "Entry added."' in text and "Café ☕" not in text and "—" in text
    assert call(operations=[{"action": "add", "content": "b"}], store=store)["message"] == "Applied 1 operation(s)."
    assert call(operations=[], action="add", content="opslist", store=store)["message"] == "Entry added."
    assert store.memory_entries == ["Café ☕", "b", "opslist"]


@pytest.mark.parametrize(
    ("raw", "on"),
    [
        ("true", True),
        ('"On "', True),
        ("approve", True),
        ("yes", True),
        ("1", False),
        ('"off"', False),
        ("maybe", False),
        ("null", False),
    ],
)
def test_it_reads_write_approval_like_the_agent(home: Path, raw: str, on: bool) -> None:
    (home / "config.yaml").write_text(f"memory:\n  write_approval: {raw}\n", encoding="utf-8")
    assert read_memory_config(home).write_approval is on


def test_it_defaults_write_approval_to_off_when_absent_or_broken(home: Path) -> None:
    assert read_memory_config(home).write_approval is False
    (home / "config.yaml").write_text("memory: [\n", encoding="utf-8")
    config = read_memory_config(home)
    assert config.write_approval is False
    assert "not valid YAML" in config.error
    assert approval_is_on(1) is False


@pytest.mark.parametrize(
    ("memory_section", "limits"),
    [
        ("{memory_char_limit: 300, user_char_limit: abc}", (300, 1375)),
        ("{memory_char_limit: abc, user_char_limit: 10}", (2200, 1375)),
        ("[1]", (2200, 1375)),
        ("", (2200, 1375)),
        ("{memory_char_limit: 2.9, user_char_limit: true}", (2, 1)),
        ("{memory_char_limit: '800', user_char_limit: -5}", (800, -5)),
    ],
)
def test_it_reads_limits_stopping_at_the_first_bad_value(home: Path, memory_section: str, limits) -> None:
    (home / "config.yaml").write_text(f"memory: {memory_section}\n", encoding="utf-8")
    store = store_from_config(home)
    assert (store.memory_char_limit, store.user_char_limit) == limits


def test_it_builds_a_loaded_store_with_the_enabled_flags(home: Path) -> None:
    (home / "config.yaml").write_text("memory:\n  memory_enabled: 0\n  write_approval: on\n", encoding="utf-8")
    write_file(home, "USER.md", "Name: Dana")
    store = store_from_config(home)
    assert (store.memory_enabled, store.user_profile_enabled, store.write_approval) == (False, True, True)
    assert store.user_entries == ["Name: Dana"]


def test_it_toggles_write_approval_keeping_comments(home: Path) -> None:
    (home / "config.yaml").write_text("# my settings\nmodel: x  # keep\nmemory:\n  provider: ''\n", encoding="utf-8")
    set_write_approval(home, True)
    text = (home / "config.yaml").read_text(encoding="utf-8")
    assert "# my settings" in text and "# keep" in text and "write_approval: true" in text
    assert read_memory_config(home).write_approval is True
    set_write_approval(home, False)
    assert read_memory_config(home).write_approval is False


@pytest.fixture
def gated(make_store) -> MemoryStore:
    return make_store(write_approval=True)


def test_it_stages_a_write_when_approval_is_on_and_nobody_can_answer(gated: MemoryStore, home: Path) -> None:
    result = call(action="add", content="Deploys go to Ubuntu 24.04", store=gated)
    assert list(result) == ["success", "staged", "pending_id", "message"]
    assert result["success"] is True and result["staged"] is True and result["message"] == STAGED_MESSAGE
    pending_id = result["pending_id"]
    assert len(pending_id) == 8 and all(c in "0123456789abcdef" for c in pending_id)
    record = json.loads((home / "pending" / "memory" / f"{pending_id}.json").read_text(encoding="utf-8"))
    assert list(record) == ["id", "subsystem", "action", "summary", "origin", "created_at", "payload"]
    assert record["summary"] == "add to memory: Deploys go to Ubuntu 24.04"
    assert record["origin"] == "foreground"
    assert record["payload"] == {
        "action": "add",
        "target": "memory",
        "content": "Deploys go to Ubuntu 24.04",
        "old_text": None,
    }
    assert not (home / "memories" / "MEMORY.md").exists()
    removal = call(action="remove", old_text="Deploys", store=gated)
    assert list_pending(home)[-1]["id"] == removal["pending_id"]
    assert list_pending(home)[-1]["summary"] == "remove from memory: Deploys"


def test_it_summarises_a_staged_batch_line_by_line(gated: MemoryStore, home: Path) -> None:
    ops = [
        {"action": "add", "content": "b1"},
        None,
        {"old_text": "q"},
        {"action": "replace", "old_text": "a", "content": "b"},
    ]
    result = call(operations=ops, target="user", store=gated)
    (record,) = list_pending(home)
    assert record["id"] == result["pending_id"]
    assert record["action"] == "batch"
    assert record["summary"] == "apply 4 op(s) to user profile: - add: b1\n- ?: \n- ?: \n- replace: a -> b"
    assert record["payload"] == {"action": "batch", "target": "user", "operations": ops}


@pytest.mark.parametrize("answer", ["once", "session"])
def test_it_writes_when_the_user_approves(gated: MemoryStore, home: Path, answer: str) -> None:
    calls = []

    def callback(command, description, **kwargs):
        calls.append((command, description, kwargs))
        return answer

    result = call(action="add", content="fact once", store=gated, approval_callback=callback)
    assert result["message"] == "Entry added."
    assert calls == [("fact once", "Save to memory: add to memory", {"allow_permanent": False})]
    assert list_pending(home) == []


def test_it_reports_a_denial_and_stages_nothing(gated: MemoryStore, home: Path) -> None:
    result = call(action="add", content="x", store=gated, approval_callback=lambda *a, **k: "deny")
    assert result == {"error": "Memory write denied by user. The change was not saved.", "success": False}
    assert list_pending(home) == []
    assert not (home / "memories" / "MEMORY.md").exists()


def _broken(*args, **kwargs):
    raise RuntimeError("terminal went away")


@pytest.mark.parametrize("callback", [lambda *a, **k: "always", _broken])
def test_it_stages_on_any_other_answer_or_a_failing_prompt(gated: MemoryStore, home: Path, callback) -> None:
    assert call(action="add", content="x", store=gated, approval_callback=callback)["staged"] is True
    assert len(list_pending(home)) == 1


def test_it_stages_background_review_writes_even_with_a_callback(gated: MemoryStore, home: Path) -> None:
    result = call(
        action="add",
        content="auto fact",
        store=gated,
        approval_callback=lambda *a, **k: "once",
        origin="background_review",
    )
    assert result["staged"] is True
    assert list_pending(home)[0]["origin"] == "background_review"


def test_it_still_answers_with_an_id_when_staging_fails_on_disk(gated: MemoryStore, home: Path) -> None:
    (home / "pending").write_text("not a directory", encoding="utf-8")
    result = call(action="add", content="x", store=gated)
    assert result["staged"] is True and len(result["pending_id"]) == 8

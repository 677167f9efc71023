"""add, replace, remove and their results, messages and matching rules (docs/agent_formats.md §Store operations, §Store
operations)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from memory_core import MemoryStore

from .conftest import read_bytes, write_file

NOTE = "Write saved. This update is complete — do not repeat it."
SUCCESS_KEYS = ["success", "done", "target", "usage", "entry_count", "message", "note"]


def seeded(make_store: Callable[..., MemoryStore], home: Path, entries: list[str], **limits: int) -> MemoryStore:
    write_file(home, "MEMORY.md", "\n§\n".join(entries))
    return make_store(**limits)


def test_it_adds_stripped_content_with_the_exact_success_result(store: MemoryStore, home: Path) -> None:
    result = store.add("memory", "  Python 3.12 project  ")
    assert result == {
        "success": True,
        "done": True,
        "target": "memory",
        "usage": "3% — 19/500 chars",
        "entry_count": 1,
        "message": "Entry added.",
        "note": NOTE,
    }
    assert list(result) == SUCCESS_KEYS
    assert read_bytes(home) == b"Python 3.12 project"


def test_it_answers_a_repeated_add_without_touching_the_file(store: MemoryStore, home: Path) -> None:
    store.add("memory", "Python 3.12 project")
    before = os.stat(home / "memories" / "MEMORY.md")
    result = store.add("memory", "Python 3.12 project")
    after = os.stat(home / "memories" / "MEMORY.md")
    assert result["success"] is True
    assert result["message"] == "Entry already exists (no duplicate added)."
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_it_refuses_whitespace_only_content_before_touching_disk(store: MemoryStore, home: Path) -> None:
    assert store.add("memory", " \t ") == {"success": False, "error": "Content cannot be empty."}
    assert not (home / "memories" / "MEMORY.md").exists()
    assert not (home / "memories" / "MEMORY.md.lock").exists()


def test_it_refuses_content_with_a_nul_character_and_writes_nothing(store: MemoryStore, home: Path) -> None:
    store.add("memory", "keep")
    before = read_bytes(home)
    result = store.add("memory", "bad\x00value")
    assert result["success"] is False
    assert "NUL" in result["error"]
    assert list(result) == ["success", "error"]
    assert store.replace("memory", "keep", "x\x00y")["error"] == result["error"]
    batch = store.apply_batch("memory", [{"action": "add", "content": "a\x00"}])
    assert batch == {"success": False, "error": f"Operation 1: {result['error']}"}
    assert read_bytes(home) == before
    assert store.consolidation_failures == 0


def test_it_refuses_an_add_at_the_limit_with_the_consolidation_message(home: Path, make_store) -> None:
    store = make_store(memory_limit=10)
    assert store.add("memory", "0123456789")["usage"] == "100% — 10/10 chars"
    result = store.add("memory", "x")
    assert result == {
        "success": False,
        "error": (
            "Memory at 10/10 chars. Adding this entry (1 chars) would exceed the limit. Consolidate now: use "
            "'replace' to merge overlapping entries into shorter ones or 'remove' stale or less important "
            "entries (see current_entries below), then retry this add — all in this turn."
        ),
        "current_entries": ["0123456789"],
        "usage": "10/10",
    }
    assert store.consolidation_failures == 1


def test_it_groups_thousands_in_the_budget_message_but_not_the_entry_length(home: Path, make_store) -> None:
    store = seeded(make_store, home, ["y" * 2197], memory_limit=2200)
    result = store.add("memory", "z" * 1234)
    assert result["error"].startswith(
        "Memory at 2,197/2,200 chars. Adding this entry (1234 chars) would exceed the limit."
    )


def test_it_accepts_an_add_that_lands_exactly_on_the_limit(home: Path, make_store) -> None:
    store = seeded(make_store, home, ["a" * 6], memory_limit=10)
    assert store.add("memory", "b")["usage"] == "100% — 10/10 chars"


def test_it_replaces_the_whole_matching_entry(home: Path, make_store) -> None:
    store = seeded(make_store, home, ["Python 3.11 project"])
    result = store.replace("memory", "3.11", "Python 3.12 project")
    assert result["message"] == "Entry replaced."
    assert list(result) == SUCCESS_KEYS
    assert read_bytes(home) == b"Python 3.12 project"


def test_it_replaces_in_place_keeping_the_order(home: Path, make_store) -> None:
    store = seeded(make_store, home, ["A", "B", "C"])
    store.replace("memory", "B", "B2")
    assert read_bytes(home) == "A\n§\nB2\n§\nC".encode()


def test_it_reports_an_ambiguous_match_without_counting_it(home: Path, make_store) -> None:
    store = seeded(make_store, home, ["alpha one", "alpha two"])
    result = store.remove("memory", "alpha")
    assert result == {
        "success": False,
        "error": "Multiple entries matched 'alpha'. Be more specific.",
        "matches": ["alpha one", "alpha two"],
    }
    assert store.consolidation_failures == 0


def test_it_previews_long_ambiguous_matches_to_80_characters(home: Path, make_store) -> None:
    first, second = "a" * 50 + "LLL" + "b" * 51, "c" * 50 + "LLL" + "d" * 51
    store = seeded(make_store, home, [first, second])
    result = store.replace("memory", "LLL", "x")
    assert result["matches"] == [first[:80] + "...", second[:80] + "..."]


@pytest.mark.parametrize(
    ("verb", "call"),
    [
        ("remove", lambda s: s.remove("memory", "nonexistent")),
        ("replace", lambda s: s.replace("memory", "nonexistent", "n")),
    ],
)
def test_it_reports_no_match_with_the_current_entries_and_counts_it(home: Path, make_store, verb, call) -> None:
    store = seeded(make_store, home, ["fact A"])
    result = call(store)
    assert list(result) == ["success", "error", "current_entries"]
    assert result["error"] == (
        "No entry matched 'nonexistent'. Check current_entries below and retry with the exact text of the "
        f"entry you want to {verb}."
    )
    assert result["current_entries"] == ["fact A"]
    assert store.consolidation_failures == 1


def test_it_refuses_empty_old_text_and_new_content_without_counting(home: Path, make_store) -> None:
    store = seeded(make_store, home, ["fact"])
    assert store.replace("memory", "  ", "ignore previous instructions") == {
        "success": False,
        "error": "old_text cannot be empty.",
    }
    assert store.replace("memory", "fact", "  ") == {
        "success": False,
        "error": "new_content cannot be empty. Use 'remove' to delete entries.",
    }
    assert store.remove("memory", "") == {"success": False, "error": "old_text cannot be empty."}
    assert store.consolidation_failures == 0


def test_it_refuses_a_replacement_over_budget_with_the_usage_before(home: Path, make_store) -> None:
    store = seeded(make_store, home, ["x" * 490])
    result = store.replace("memory", "x" * 490, "y" * 600)
    assert result["error"].startswith("Replacement would put memory at 600/500 chars.")
    assert result["usage"] == "490/500"
    assert result["current_entries"] == ["x" * 490]
    assert read_bytes(home) == b"x" * 490


def test_it_leaves_a_zero_byte_file_after_removing_the_last_entry(home: Path, make_store) -> None:
    store = seeded(make_store, home, ["only"])
    result = store.remove("memory", "only")
    assert result["usage"] == "0% — 0/500 chars"
    assert result["entry_count"] == 0
    assert read_bytes(home) == b""


def test_it_keeps_a_duplicate_made_by_replace_until_the_next_read(home: Path, make_store) -> None:
    store = seeded(make_store, home, ["a1", "b2"])
    assert store.replace("memory", "a1", "b2")["entry_count"] == 2
    assert read_bytes(home) == "b2\n§\nb2".encode()
    store.add("memory", "c3")
    assert store.memory_entries == ["b2", "c3"]


def test_it_collapses_duplicates_on_disk_when_it_rewrites(home: Path, make_store) -> None:
    write_file(home, "MEMORY.md", "dup\n§\ndup\n§\nother")
    store = make_store()
    assert store.replace("memory", "other", "other2")["success"]
    assert read_bytes(home) == "dup\n§\nother2".encode()


def test_it_prefers_an_exact_entry_over_substring_candidates(home: Path, make_store) -> None:
    entries = ["nginx", "server A runs nginx", "server B runs nginx"]
    store = seeded(make_store, home, entries)
    assert store.remove("memory", "nginx")["message"] == "Entry removed."
    assert store.memory_entries == entries[1:]
    store = seeded(make_store, home, entries)
    assert store.replace("memory", "nginx", "nginx 1.27")["success"]
    assert store.memory_entries == ["nginx 1.27", *entries[1:]]
    store = seeded(make_store, home, entries)
    assert store.apply_batch("memory", [{"action": "remove", "old_text": "nginx"}])["success"]
    assert store.memory_entries == entries[1:]
    assert store.remove("memory", "runs nginx")["error"] == "Multiple entries matched 'runs nginx'. Be more specific."


def test_it_keeps_each_target_in_its_own_file_and_echoes_the_target(store: MemoryStore, home: Path) -> None:
    assert store.add("user", "Name: Dana")["target"] == "user"
    result = store.add("notes", "goes to MEMORY.md")
    assert result["target"] == "notes"
    assert read_bytes(home, "USER.md") == b"Name: Dana"
    assert read_bytes(home) == b"goes to MEMORY.md"
    assert store.entries("user") == ["Name: Dana"]


def test_it_re_reads_the_file_inside_every_mutation(home: Path, make_store) -> None:
    store = make_store()
    write_file(home, "MEMORY.md", "written by the agent")
    assert store.add("memory", "from the panel")["entry_count"] == 2
    assert read_bytes(home) == "written by the agent\n§\nfrom the panel".encode()


def test_it_refreshes_the_live_list_even_when_the_mutation_fails(home: Path, make_store) -> None:
    store = make_store()
    write_file(home, "MEMORY.md", "appeared meanwhile")
    store.remove("memory", "absent")
    assert store.memory_entries == ["appeared meanwhile"]


def test_it_raises_type_error_for_non_string_arguments(store: MemoryStore, home: Path) -> None:
    with pytest.raises(TypeError):
        store.add("memory", None)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        store.remove("memory", 5)  # type: ignore[arg-type]
    assert not (home / "memories" / "MEMORY.md").exists()


def test_it_refuses_content_that_cannot_be_stored_as_utf8(store: MemoryStore, home: Path) -> None:
    # What a command line turns undecodable bytes into (surrogateescape).
    result = store.add("memory", "bad \udcff byte")
    assert result == {
        "success": False,
        "error": "Content is not valid Unicode text (it contains a lone surrogate code point). Remove it and retry.",
    }
    assert store.apply_batch("memory", [{"action": "add", "content": "\ud800"}])["error"].startswith("Operation 1: ")
    assert not (home / "memories" / "MEMORY.md").exists()


def test_it_raises_runtime_error_and_leaves_no_temp_file_when_a_write_fails(tmp_path: Path) -> None:
    from memory_core.files import atomic_write_text

    target = tmp_path / "memories" / "MEMORY.md"
    (target / "occupied").mkdir(parents=True)  # a non-empty directory cannot be replaced by a file
    with pytest.raises(RuntimeError, match=r"^Failed to write memory file .*MEMORY\.md: "):
        atomic_write_text(target, "text")
    assert sorted(p.name for p in target.parent.iterdir()) == ["MEMORY.md"]
    blocked = tmp_path / "not-a-dir"
    blocked.write_text("x", encoding="utf-8")
    with pytest.raises(RuntimeError):
        atomic_write_text(blocked / "MEMORY.md", "text")

"""Drift guard and backups (docs/agent_formats.md §Drift guard and backups, D12c)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from memory_core import MemoryStore

from .conftest import read_bytes, run_unprivileged, write_file

DRIFT_KEYS = ["success", "error", "drift_backup", "remediation"]


def test_it_refuses_to_rewrite_an_appended_file_and_saves_a_backup(home: Path, make_store) -> None:
    store = make_store()
    store.add("memory", "User likes brevity.")
    with open(home / "memories" / "MEMORY.md", "a", encoding="utf-8") as handle:
        handle.write("\n\n## Vendor Master\n" + "x" * 800 + "\nend")
    before = read_bytes(home)
    result = store.replace("memory", "User likes", "z")
    assert list(result) == DRIFT_KEYS
    backup = Path(result["drift_backup"])
    assert backup.parent == (home / "memories").absolute()
    assert backup.name.startswith("MEMORY.md.bak.") and backup.name[len("MEMORY.md.bak.") :].isdigit()
    assert "Vendor Master" in backup.read_text(encoding="utf-8")
    assert f"A snapshot was saved to {backup}." in result["error"]
    assert result["error"].startswith("Refusing to write MEMORY.md: file on disk has content that wouldn't")
    assert result["remediation"].startswith("Open the .bak file")
    assert read_bytes(home) == before
    assert store.consolidation_failures == 0
    over = store.add("memory", "x")
    assert over["error"].startswith("Memory at 842/500 chars.")


@pytest.mark.parametrize("call", ["replace", "remove", "batch"])
def test_it_treats_an_empty_piece_as_drift_for_every_checked_operation(home: Path, make_store, call) -> None:
    write_file(home, "MEMORY.md", "x\n§\n\n§\ny")
    store = make_store()
    result = {
        "replace": lambda: store.replace("memory", "x", "z"),
        "remove": lambda: store.remove("memory", "x"),
        "batch": lambda: store.apply_batch("memory", [{"action": "add", "content": "z"}]),
    }[call]()
    assert "drift_backup" in result
    assert read_bytes(home) == "x\n§\n\n§\ny".encode()
    assert store.memory_entries == ["x", "y"]


def test_it_lets_add_rewrite_a_drifted_file_cleanly(home: Path, make_store) -> None:
    write_file(home, "MEMORY.md", "x\n§\n\n§\ny")
    store = make_store()
    assert store.add("memory", "new")["success"]
    assert read_bytes(home) == "x\n§\ny\n§\nnew".encode()


@pytest.mark.parametrize(
    ("text", "old_text", "drifted"),
    [
        ("a fact \n§\nanother fact", "another", True),
        ("\n§\na", "a", True),
        ("a\n§\n", "a", True),
        ("Existing entry.\nextra content no delimiter", "extra", False),
        ("a\n§\n§\nb", "b", False),
        ("dup\n§\ndup", "dup", False),
        ("\n\n  a\n§\nb  \n\n", "a", False),
        ("a\r\n§\r\nb", "a", False),
        ("\ufeffa\n§\nb", "a", False),
    ],
)
def test_it_applies_the_round_trip_rule(home: Path, make_store, text: str, old_text: str, drifted: bool) -> None:
    write_file(home, "MEMORY.md", text)
    store = make_store()
    result = store.remove("memory", old_text)
    assert ("drift_backup" in result) is drifted
    assert result["success"] is not drifted


def test_it_reports_drift_before_no_match(home: Path, make_store) -> None:
    write_file(home, "MEMORY.md", "a \n§\nb")
    store = make_store()
    assert "drift_backup" in store.remove("memory", "zzz")


def test_it_replaces_the_last_entry_of_a_file_appended_within_the_limit(home: Path, make_store) -> None:
    write_file(home, "MEMORY.md", "Existing entry.\nextra content no delimiter")
    store = make_store()
    assert store.replace("memory", "extra", "z")["success"]
    assert read_bytes(home) == b"z"


def test_it_never_overwrites_an_earlier_backup_in_the_same_second(home: Path) -> None:
    write_file(home, "MEMORY.md", "first \n§\nb")
    store = MemoryStore(home, 500, 300, clock=lambda: 1_700_000_000.0)
    store.load_from_disk()
    first = store.remove("memory", "b")["drift_backup"]
    write_file(home, "MEMORY.md", "second \n§\nb")
    second = store.remove("memory", "b")["drift_backup"]
    assert first.endswith("MEMORY.md.bak.1700000000")
    assert second.endswith("MEMORY.md.bak.1700000000.1")
    assert Path(first).read_text(encoding="utf-8") == "first \n§\nb"
    assert Path(second).read_text(encoding="utf-8") == "second \n§\nb"


def test_it_never_writes_a_backup_through_a_symlink(home: Path, tmp_path: Path) -> None:
    write_file(home, "MEMORY.md", "a \n§\nb")
    victim = tmp_path / "victim.txt"
    victim.write_text("precious", encoding="utf-8")
    os.symlink(victim, home / "memories" / "MEMORY.md.bak.1700000000")
    store = MemoryStore(home, clock=lambda: 1_700_000_000.0)
    store.load_from_disk()
    backup = store.remove("memory", "b")["drift_backup"]
    assert backup.endswith(".bak.1700000000.1")
    assert victim.read_text(encoding="utf-8") == "precious"


def test_it_writes_backups_with_the_default_file_mode(home: Path) -> None:
    write_file(home, "MEMORY.md", "a \n§\nb")
    store = MemoryStore(home)
    store.load_from_disk()
    old = os.umask(0o022)
    try:
        backup = store.remove("memory", "b")["drift_backup"]
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(backup).st_mode) == 0o644


def _remove_in_read_only_directory(home_text: str) -> dict:
    home = Path(home_text)
    memories = home / "memories"
    memories.mkdir()
    (memories / "MEMORY.md").write_text("a \n§\nb", encoding="utf-8")
    (memories / "MEMORY.md.lock").touch()
    os.chmod(memories, 0o555)  # noqa: S103 - a read-only directory makes the backup fail
    store = MemoryStore(home, 500, 300)
    store.load_from_disk()
    result = store.remove("memory", "b")
    return {"result": result, "file": (memories / "MEMORY.md").read_text(encoding="utf-8")}


def test_it_marks_a_failed_backup_and_still_leaves_the_file_alone(unprivileged_home: Path) -> None:
    outcome = run_unprivileged(_remove_in_read_only_directory, str(unprivileged_home))
    result = outcome["result"]
    assert result["drift_backup"].endswith(" (BACKUP FAILED — file unchanged on disk)")
    assert f"A snapshot was saved to {result['drift_backup']}." in result["error"]
    assert outcome["file"] == "a \n§\nb"

"""Unreadable files (D14), the lock protocol (docs/agent_formats.md §Locking, D16)."""

from __future__ import annotations

import fcntl
import multiprocessing
import os
import stat
import threading
from pathlib import Path

import pytest

from memory_core import MemoryStore

from .conftest import read_bytes, run_unprivileged, write_file

SPAWN = multiprocessing.get_context("spawn")


def test_it_loads_undecodable_bytes_as_unreadable_and_refuses_every_write(home: Path) -> None:
    write_file(home, "MEMORY.md", b"\xff\xfeA")
    store = MemoryStore(home, 500, 300)
    store.load_from_disk()
    assert store.memory_entries == []
    assert store.load_errors == {"memory": "invalid UTF-8 at byte 0"}
    assert store.format_for_system_prompt("memory") is None
    refusal = {
        "success": False,
        "error": (
            "Refusing to write MEMORY.md: the file exists but could not be read (invalid UTF-8 at byte 0). It "
            "was left unchanged; fix its permissions or encoding, or move it aside, then retry."
        ),
    }
    assert store.add("memory", "x") == refusal
    assert store.replace("memory", "A", "x") == refusal
    assert store.remove("memory", "A") == refusal
    assert store.apply_batch("memory", [{"action": "add", "content": "x"}]) == refusal
    assert read_bytes(home) == b"\xff\xfeA"
    assert store.consolidation_failures == 0
    assert store.add("user", "y")["success"] is True


def test_it_reports_the_offset_of_the_first_bad_byte(home: Path) -> None:
    write_file(home, "USER.md", b"ok text " + b"\xc3\x28")
    store = MemoryStore(home)
    store.load_from_disk()
    assert store.load_errors == {"user": "invalid UTF-8 at byte 8"}


def test_it_refuses_to_write_over_a_directory_at_the_store_path(home: Path) -> None:
    (home / "memories" / "MEMORY.md").mkdir(parents=True)
    store = MemoryStore(home)
    store.load_from_disk()
    assert store.load_errors == {"memory": "Is a directory"}
    result = store.add("memory", "new entry")
    assert result["error"].startswith(
        "Refusing to write MEMORY.md: the file exists but could not be read (Is a directory)."
    )
    assert (home / "memories" / "MEMORY.md").is_dir()


def _permission_scenario(home_text: str) -> dict:
    home = Path(home_text)
    path = home / "memories" / "MEMORY.md"
    path.parent.mkdir()
    path.write_text("keep1\n§\nkeep2", encoding="utf-8")
    os.chmod(path, 0)
    store = MemoryStore(home, 500, 300)
    store.load_from_disk()
    errors = store.load_errors
    refused = store.add("memory", "new entry")
    os.chmod(path, 0o600)
    after = store.add("memory", "new entry")
    return {"errors": errors, "refused": refused, "after": after, "bytes": path.read_bytes()}


def test_it_refuses_to_write_a_file_it_may_not_read_and_keeps_its_entries(unprivileged_home: Path) -> None:
    outcome = run_unprivileged(_permission_scenario, str(unprivileged_home))
    assert outcome["errors"] == {"memory": "Permission denied"}
    assert outcome["refused"]["error"].startswith(
        "Refusing to write MEMORY.md: the file exists but could not be read (Permission denied)."
    )
    assert outcome["after"]["entry_count"] == 3
    assert outcome["bytes"] == "keep1\n§\nkeep2\n§\nnew entry".encode()


def test_it_creates_the_lock_file_private_and_empty(store: MemoryStore, home: Path) -> None:
    store.add("memory", "x")
    lock = home / "memories" / "MEMORY.md.lock"
    assert stat.S_IMODE(lock.stat().st_mode) == 0o600
    assert lock.stat().st_size == 0
    assert not (home / "memories" / "USER.md.lock").exists()


@pytest.mark.parametrize("dangling", [True, False])
def test_it_refuses_a_symlinked_lock_file_and_leaves_its_target_alone(
    store: MemoryStore, home: Path, tmp_path: Path, dangling: bool
) -> None:
    target = tmp_path / "elsewhere.txt"
    if not dangling:
        target.write_text("untouched", encoding="utf-8")
    (home / "memories").mkdir(exist_ok=True)
    os.symlink(target, home / "memories" / "MEMORY.md.lock")
    result = store.add("memory", "x")
    assert result["success"] is False
    assert result["error"].startswith("Refusing to write MEMORY.md: cannot open lock file MEMORY.md.lock (")
    assert list(result) == ["success", "error"]
    assert not (home / "memories" / "MEMORY.md").exists()
    if dangling:
        assert not target.exists()
    else:
        assert target.read_text(encoding="utf-8") == "untouched"


def test_it_follows_a_symlinked_store_file_inside_the_home_and_keeps_the_link(store: MemoryStore, home: Path) -> None:
    real = home / "notes" / "real-memory.md"
    real.parent.mkdir()
    real.write_text("linked fact", encoding="utf-8")
    (home / "memories").mkdir(exist_ok=True)
    os.symlink(real, home / "memories" / "MEMORY.md")
    store.add("memory", "second")
    assert (home / "memories" / "MEMORY.md").is_symlink()
    assert real.read_text(encoding="utf-8") == "linked fact\n§\nsecond"


def _hold_lock(path: str, how: str, ready, release) -> None:
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    if how == "flock":
        fcntl.flock(fd, fcntl.LOCK_EX)
    else:
        fcntl.lockf(fd, fcntl.LOCK_EX)
    ready.set()
    release.wait(180)
    os.close(fd)


def _add_in_thread(store: MemoryStore) -> tuple[threading.Thread, list]:
    results: list = []
    thread = threading.Thread(target=lambda: results.append(store.add("memory", "waited")))
    thread.start()
    return thread, results


@pytest.mark.parametrize(
    ("lock_name", "how", "blocks"),
    [
        ("MEMORY.md.lock", "flock", True),
        ("MEMORY.md.lock", "lockf", False),
        ("MEMORY.md", "flock", False),
        ("USER.md.lock", "flock", False),
    ],
)
def test_it_waits_only_for_an_flock_on_the_same_lock_file(home: Path, lock_name: str, how: str, blocks: bool) -> None:
    memories = home / "memories"
    memories.mkdir()
    store = MemoryStore(home)
    ready, release = SPAWN.Event(), SPAWN.Event()
    holder = SPAWN.Process(target=_hold_lock, args=(str(memories / lock_name), how, ready, release))
    holder.start()
    try:
        assert ready.wait(180)
        thread, results = _add_in_thread(store)
        thread.join(0.5 if blocks else 180)
        assert thread.is_alive() is blocks
    finally:
        release.set()
        holder.join(180)
    thread.join(180)
    assert results and results[0]["success"] is True
    assert read_bytes(home) == b"waited"

"""A write that fails on the file system says what happened in words and never shows an absolute
path (issue 29): a read-only memories/ folder, for root too (its override of file modes dropped)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.faults.panel import without_root_override
from tests.serving import child_env

REPO = Path(__file__).resolve().parent.parent.parent


def test_it_says_in_words_that_memories_is_read_only_without_any_absolute_path(tmp_path):
    home = tmp_path / "home"
    (home / "memories").mkdir(parents=True)
    (home / "memories" / "MEMORY.md").write_text("Old fact.", encoding="utf-8")
    (home / "memories" / "MEMORY.md.lock").touch()
    (home / "memories").chmod(0o555)
    try:
        command = subprocess.run(
            [*without_root_override(), sys.executable, "-m", "memory_core", "add", "memory", "New fact.",
             "--home", str(home)],
            cwd=REPO, env=child_env(), capture_output=True, text=True, timeout=120,
        )
    finally:
        (home / "memories").chmod(0o755)
    said = command.stdout + command.stderr

    assert command.returncode == 1, said
    assert said.strip() == "Error: memories/ is read-only (permission denied): nothing was changed."
    assert str(tmp_path) not in said and ".mem_" not in said
    assert (home / "memories" / "MEMORY.md").read_text(encoding="utf-8") == "Old fact."
    assert sorted(p.name for p in (home / "memories").iterdir()) == ["MEMORY.md", "MEMORY.md.lock"]


def test_it_keeps_the_agents_exception_text_and_adds_the_reason_in_words(tmp_path):
    from memory_core.files import StoreWriteError, atomic_write_text

    target = tmp_path / "home" / "memories" / "MEMORY.md"
    (target / "occupied").mkdir(parents=True)  # a non-empty directory cannot be replaced by a file

    try:
        atomic_write_text(target, "text", home=tmp_path / "home")
    except StoreWriteError as exc:
        caught = exc
    assert str(caught).startswith(f"Failed to write memory file {target}: ")
    assert str(tmp_path) not in caught.reason
    assert caught.reason.startswith("MEMORY.md could not be written (")

"""Temp files of a save killed with SIGKILL are removed when the panel starts (issue 29); only the
panel's own names, only in the home's own folders, never through a link, never one in use."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from provider_schemas.saving.leftovers import remove_leftover_temps
from tests.faults.panel import prepare_panel, serve
from tests.serving import REPO, child_env

pytestmark = pytest.mark.slow

# Each writer dies by SIGKILL at the moment its temp file is complete, before the rename.
KILLED_MEMORY_SAVE = """
import os, signal, sys
os.replace = lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL)
import memory_core
memory_core.add_entry(home=sys.argv[1], target="memory", content="A fact being saved.")
"""
KILLED_PROVIDER_SAVE = """
import os, signal, sys
from pathlib import Path
from provider_schemas.saving import transaction
from provider_schemas.saving.locks import home_lock
os.replace = lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL)
home = Path(sys.argv[1])
target = home / sys.argv[2]
with home_lock(home):
    transaction.commit([transaction.FileWrite(target, target.name, b"NEW=1\\n", target.read_bytes(), 0o600)], [], None)
"""


def _killed(script: str, *args: str) -> None:
    result = subprocess.run([sys.executable, "-c", script, *args], cwd=REPO, env=child_env(), timeout=120,
                            capture_output=True, text=True)
    assert result.returncode == -signal.SIGKILL, result.stdout + result.stderr


def _names(folder: Path) -> list[str]:
    return sorted(os.listdir(folder))


def test_it_removes_the_temp_files_of_killed_saves_at_start_up_and_nothing_else(tmp_path):
    home, data, outside = tmp_path / "home", tmp_path / "data", tmp_path / "outside"
    prepare_panel(home=home, data_dir=data)
    (home / "memories").mkdir()
    (home / "memories" / "MEMORY.md").write_text("Old fact.", encoding="utf-8")
    (home / ".env").write_text("OLD=1\n", encoding="utf-8")
    (home / "hindsight").mkdir()
    (home / "hindsight" / "config.json").write_text("{}\n", encoding="utf-8")
    _killed(KILLED_MEMORY_SAVE, str(home))
    _killed(KILLED_PROVIDER_SAVE, str(home), ".env")
    _killed(KILLED_PROVIDER_SAVE, str(home), "hindsight/config.json")
    leftovers = [p for p in [*home.iterdir(), *(home / "memories").iterdir(), *(home / "hindsight").iterdir()]
                 if p.name.endswith(".tmp")]
    assert len(leftovers) == 3, leftovers
    # Not the panel's names, a folder it does not know, and a folder reached through a link: kept.
    others = [home / ".env.tmp", home / "memories" / ".mem_notours.tmp", home / "notes.memory-panel.abc.tmp",
              home / "hindsight" / "deeper" / ".config.json.memory-panel.abc123.tmp"]
    outside.mkdir()
    (outside / ".config.json.memory-panel.abc123.tmp").write_text("theirs", encoding="utf-8")
    (home / "linked").symlink_to(outside, target_is_directory=True)
    for path in others:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("keep", encoding="utf-8")
    before = {p: p.read_bytes() for p in others}

    with serve(home=home, data_dir=data):
        after = [p for p in leftovers if p.exists()]

    assert after == []
    assert {p: p.read_bytes() for p in others if p.exists()} == before
    assert _names(outside) == [".config.json.memory-panel.abc123.tmp"]
    assert (home / "memories" / "MEMORY.md").read_text(encoding="utf-8") == "Old fact."
    assert (home / ".env").read_text(encoding="utf-8") == "OLD=1\n"


def test_it_keeps_a_temp_file_changed_since_start_up_or_under_a_held_store_lock(tmp_path):
    home = tmp_path / "home"
    (home / "memories").mkdir(parents=True)
    started = time.time()
    fresh = home / ".env.memory-panel.abc123.tmp"
    fresh.write_text("being written", encoding="utf-8")
    os.utime(fresh, (started + 60, started + 60))  # changed after this process started
    locked = home / "memories" / ".mem_0123abcd.tmp"
    locked.write_text("being written", encoding="utf-8")
    os.utime(locked, (started - 60, started - 60))
    old = home / ".config.yaml.memory-panel.x1.tmp"
    old.write_text("left over", encoding="utf-8")
    os.utime(old, (started - 60, started - 60))
    holder = os.open(home / "memories" / "MEMORY.md.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(holder, fcntl.LOCK_EX)  # a writer of MEMORY.md is in its critical section
        removed = remove_leftover_temps(home=home, started=started)
    finally:
        os.close(holder)

    assert removed == [".config.yaml.memory-panel.x1.tmp"]
    assert fresh.exists() and locked.exists() and not old.exists()
    assert remove_leftover_temps(home=home, started=started) == ["memories/.mem_0123abcd.tmp"]

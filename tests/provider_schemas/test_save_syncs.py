"""A two-file save pays for its durability once: syncs that need no order between them run at the
same time, and every one still happens before the save answers (docs/performance.md §PUT: the
same durability, paid once)."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from provider_schemas import save_provider
from provider_schemas.saving.journal import journal_path

NEW = {"note": "new note", "api_key": "sk-new-2222"}
DEADLINE = 180  # seconds; only stops a hang when the syncs never meet


class SyncLog:
    """os.fsync of files under the home: which paths were synced, in which order, on which thread."""

    def __init__(self, home: Path, monkeypatch: pytest.MonkeyPatch, *, meet_on_temps: bool = False) -> None:
        self.root = os.path.realpath(home)
        self.synced: list[str] = []
        self.events: list[tuple[str, str]] = []
        self.lock = threading.Lock()
        self.barrier = threading.Barrier(2, timeout=DEADLINE) if meet_on_temps else None
        original_fsync, original_replace = os.fsync, os.replace

        def fsync(fd: int) -> None:
            path = os.readlink(f"/proc/self/fd/{fd}")
            if path == self.root or path.startswith(self.root + os.sep):
                if self.barrier is not None and path.endswith(".tmp"):
                    self.barrier.wait()  # both temps' syncs must be in flight at once
                original_fsync(fd)
                with self.lock:
                    self.synced.append(path)
                    self.events.append(("fsync", path))
                return
            original_fsync(fd)

        def replace(src, dst, *args, **kwargs):
            original_replace(src, dst, *args, **kwargs)
            with self.lock:
                self.events.append(("replace", os.path.realpath(dst)))

        monkeypatch.setattr(os, "fsync", fsync)
        monkeypatch.setattr(os, "replace", replace)


def test_it_syncs_the_temporaries_of_a_two_file_save_at_the_same_time(agent_home, plugin, monkeypatch):
    plugin("jsonprov")
    log = SyncLog(agent_home, monkeypatch, meet_on_temps=True)

    save_provider(home=agent_home, name="jsonprov", values=NEW)

    assert json.loads((agent_home / "jsonprov.json").read_text())["note"] == "new note"
    assert "sk-new-2222" in (agent_home / ".env").read_text()
    assert sum(path.endswith(".tmp") for path in log.synced) == 2


def test_it_syncs_temps_then_the_journal_then_the_renamed_files_folders_before_answering(
    agent_home, plugin, monkeypatch
):
    plugin("jsonprov")
    log = SyncLog(agent_home, monkeypatch)

    save_provider(home=agent_home, name="jsonprov", values=NEW)

    kinds = [(event, Path(path).name) for event, path in log.events]
    journal = journal_path(agent_home)
    temps = [i for i, (event, name) in enumerate(kinds) if event == "fsync" and name.endswith(".tmp")]
    journal_syncs = [i for i, (event, path) in enumerate(log.events) if event == "fsync" and path in (
        os.path.realpath(journal), os.path.realpath(journal.parent))]
    renames = [i for i, (event, _name) in enumerate(kinds) if event == "replace"]
    folder_syncs = [i for i, (event, path) in enumerate(log.events)
                    if event == "fsync" and path == os.path.realpath(agent_home)]
    assert len(temps) == 2 and len(journal_syncs) == 2 and len(renames) == 2
    assert max(temps) < min(journal_syncs) and max(journal_syncs) < min(renames)
    assert folder_syncs and folder_syncs[-1] > max(renames)
    assert not journal.exists()

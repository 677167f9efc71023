"""serve --demo seeds a home where every memory state of the view can be seen."""

from __future__ import annotations

import pytest

from admin_panel.demo import seed_demo_home
from memory_core import list_pending
from memory_core.state import list_backups, read_all_states

pytestmark = pytest.mark.django_db


def test_it_seeds_markup_a_blocked_entry_a_backup_and_two_pending_writes(tmp_path):
    home = tmp_path / "demo"

    seed_demo_home(home)
    seed_demo_home(home)  # a second run adds nothing twice

    states = read_all_states(home=home)
    memory = states["memory"]
    assert memory.readable and memory.drift is None and not memory.over_budget
    assert memory.blocked_count == 1
    assert any("onerror=alert(1)" in entry.text for entry in memory.entries)
    backups = list_backups(home, "memory")
    assert len(backups) == 1
    backup_text = (home / "memories" / backups[0].name).read_text(encoding="utf-8")
    assert "Staging runbook" in backup_text and "## Vendor Master" in backup_text
    assert sorted(record["payload"]["action"] for record in list_pending(home)) == ["add", "replace"]


def test_it_renders_every_demo_page(owner_client, home):
    seed_demo_home(home)
    backup = list_backups(home, "memory")[0].name

    for path in (
        "/memory/",
        "/memory/blocked/",
        "/memory/pending/",
        "/memory/snapshot/",
        "/memory/memory/backups/",
        f"/memory/memory/backups/{backup}/",
    ):
        assert owner_client.get(path).status_code == 200, path

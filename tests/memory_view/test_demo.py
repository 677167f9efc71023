"""serve --demo seeds a home where every memory state of the view can be seen."""

from __future__ import annotations

import pytest

from admin_panel.demo import seed_demo_home
from admin_panel.demo_memory import apply_demo_state
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


@pytest.mark.parametrize(
    ("state", "badge"),
    [
        ("disabled", "Disabled by config"),
        ("missing", "Missing"),
        ("unreadable", "Unreadable"),
        ("drift", "Drift detected"),
        ("over-budget", "Over budget"),
    ],
)
def test_it_puts_the_demo_user_profile_in_each_state_on_request(owner_client, home, state, badge):
    seed_demo_home(home)

    apply_demo_state(home, state)

    user = read_all_states(home=home)["user"]
    memory = read_all_states(home=home)["memory"]
    assert user.status != "ok" or user.over_budget or not user.enabled
    assert memory.status == "ok"  # the rest of the demo stays usable
    response = owner_client.get("/memory/")
    assert response.status_code == 200
    user_column = response.content.decode().split('id="store-user"', 1)[1]
    assert f">{badge}</span>" in user_column


def test_it_refuses_a_demo_state_without_the_demo(tmp_path):
    from django.core.management import call_command
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="only with --demo"):
        call_command("serve", "--demo-state", "drift")

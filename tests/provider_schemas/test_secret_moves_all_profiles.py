"""A move of every profile is one operation: a SIGKILL between two profiles is finished at the next start."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from provider_schemas import keyring_service
from provider_schemas.saving.secret_moves import (
    every_profile_home,
    finish_interrupted_group,
    group_journal_path,
    move_secrets_of_homes,
)

REPO = Path(__file__).resolve().parents[2]
NAMES = ("default", "play", "work")


def panel_entries(service, home: Path) -> dict[str, str]:
    own = keyring_service(home)
    return {user: value for (svc, user), value in service.items().items() if svc == own}


@pytest.fixture
def profiles(home: Path) -> dict[str, Path]:
    homes = {"default": home}
    for name in NAMES[1:]:
        homes[name] = home / "profiles" / name
        homes[name].mkdir(parents=True)
    for name, path in homes.items():
        (path / ".env").write_text(f"# {name}\nMEM0_API_KEY=m0-{name}\nKEEP=1\n")
        (path / ".env").chmod(0o600)
    return homes


def where(real_keyring, path: Path, name: str) -> set[str]:
    """The stores holding this profile's key."""
    stores = set()
    if f"m0-{name}" in (path / ".env").read_text():
        stores.add("env_file")
    if panel_entries(real_keyring, path).get("MEM0_API_KEY") == f"m0-{name}":
        stores.add("keyring")
    return stores


def kill_after(home: Path, to: str, count: int) -> None:
    """Run the move in a real process, SIGKILL it once it says ``count`` profiles are committed."""
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.pausing_move", str(home), to, str(count)],
        cwd=REPO, env=dict(os.environ), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = child.stdout.readline()
        assert line.strip() == f"paused after {count}", child.stderr.read()
        os.kill(child.pid, signal.SIGKILL)
        assert child.wait(timeout=300) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        for stream in (child.stdin, child.stdout, child.stderr):
            stream.close()


def test_it_finishes_a_move_to_the_keyring_killed_after_the_first_profile(profiles, real_keyring):
    home = profiles["default"]
    kill_after(home, "keyring", 1)
    # Killed in the middle: one profile moved, the others not; every key is in one store.
    assert group_journal_path(home).exists()
    states = {name: where(real_keyring, path, name) for name, path in profiles.items()}
    assert sorted(map(sorted, states.values())) == [["env_file"], ["env_file"], ["keyring"]]

    recovery = finish_interrupted_group(home)  # what the next start does

    assert recovery is not None and recovery.completed and recovery.to == "keyring"
    for name, path in profiles.items():
        assert where(real_keyring, path, name) == {"keyring"}
        assert (path / ".env").read_text() == f"# {name}\nKEEP=1\n"
    assert not group_journal_path(home).exists()
    assert finish_interrupted_group(home) is None  # done once


def test_it_finishes_a_move_back_to_env_killed_after_two_profiles(profiles, real_keyring):
    home = profiles["default"]
    move_secrets_of_homes(homes=every_profile_home(home), to="keyring")
    kill_after(home, "env_file", 2)
    states = {name: where(real_keyring, path, name) for name, path in profiles.items()}
    assert sorted(map(sorted, states.values())) == [["env_file"], ["env_file"], ["keyring"]]

    recovery = finish_interrupted_group(home)

    assert recovery is not None and recovery.completed
    for name, path in profiles.items():
        assert where(real_keyring, path, name) == {"env_file"}
        assert panel_entries(real_keyring, path) == {}


def test_it_deletes_nothing_and_tries_again_when_the_keyring_is_locked_at_the_next_start(profiles, real_keyring):
    home = profiles["default"]
    kill_after(home, "keyring", 2)
    real_keyring.lock()

    recovery = finish_interrupted_group(home)

    assert recovery is not None and not recovery.completed and recovery.problem == "locked"
    assert group_journal_path(home).exists()  # kept for the next start
    real_keyring.unlock()
    states = {name: where(real_keyring, path, name) for name, path in profiles.items()}
    assert all(len(found) == 1 for found in states.values())  # never in neither store

    again = finish_interrupted_group(home)

    assert again is not None and again.completed
    assert all(where(real_keyring, path, name) == {"keyring"} for name, path in profiles.items())


def test_it_finishes_an_interrupted_move_before_starting_another(profiles, real_keyring):
    home = profiles["default"]
    kill_after(home, "keyring", 1)

    plans = move_secrets_of_homes(homes=every_profile_home(home), to="keyring")

    assert all(plan.empty for plan in plans)  # the interrupted one was finished first
    assert all(where(real_keyring, path, name) == {"keyring"} for name, path in profiles.items())
    assert not group_journal_path(home).exists()


@pytest.mark.django_db
def test_it_finishes_the_move_at_start_up_and_sends_new_secrets_of_every_profile_to_its_store(profiles, real_keyring):
    from admin_panel.models import AuditEntry
    from admin_panel.selectors.audit import describe
    from admin_panel.selectors.providers import secret_store_for
    from admin_panel.services.providers import finish_interrupted_secret_move

    home = profiles["default"]
    kill_after(home, "keyring", 2)

    recovery = finish_interrupted_secret_move(home=home)  # what ``serve`` runs before serving

    assert recovery is not None and recovery.completed
    assert all(secret_store_for(home=path, fresh=True) == "keyring" for path in profiles.values())
    entries = AuditEntry.objects.filter(kind=AuditEntry.Kind.SECRET_STORE)
    assert sorted(e.home for e in entries) == sorted(str(os.path.realpath(p)) for p in profiles.values())
    assert all(e.details == {"old": "env_file", "new": "keyring", "interrupted": True} for e in entries)
    assert describe(entries[0]) == "Finished an interrupted move of every profile's stored secrets to the OS keyring"
    assert finish_interrupted_secret_move(home=home) is None


@pytest.mark.django_db
def test_it_finishes_an_interrupted_move_of_every_profile_before_moving_a_single_one(profiles, real_keyring):
    from admin_panel.selectors.providers import secret_store_for
    from admin_panel.services.providers import move_secrets

    kill_after(profiles["default"], "keyring", 1)

    move_secrets(home=profiles["work"], to="env_file", channel="command")

    assert where(real_keyring, profiles["work"], "work") == {"env_file"}
    assert where(real_keyring, profiles["play"], "play") == {"keyring"}  # the interrupted move was finished
    assert where(real_keyring, profiles["default"], "default") == {"keyring"}
    assert secret_store_for(home=profiles["play"], fresh=True) == "keyring"
    assert secret_store_for(home=profiles["work"], fresh=True) == "env_file"

"""Moving every stored secret between .env and the real Secret Service: all or nothing, crash-safe."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.backends import SecretService

from provider_schemas import keyring_service
from provider_schemas.errors import SaveFailed, SecretStoreUnavailable, StorageParseError
from provider_schemas.saving import journal
from provider_schemas.saving.locks import recover
from provider_schemas.saving.secret_moves import (
    MoveChanged,
    every_profile_home,
    move_secrets,
    move_secrets_of_homes,
    plan_move,
)
from provider_schemas.secret_stores.probe import PROBE_USERNAME

REPO = Path(__file__).resolve().parents[2]
HEAD = "# Agent secrets, kept by hand\n\nexport OTHER_TOOL=keep-me   # not a provider secret\n"
MEM0 = "MEM0_API_KEY=m0-real-value\n"
MIDDLE = "# the honcho one is quoted\n"
HONCHO = 'HONCHO_API_KEY="hc value with spaces"\n'
TAIL = "UNRELATED='single quoted'\n\n# last comment, no newline"
ENV_TEXT = HEAD + MEM0 + MIDDLE + HONCHO + TAIL
WITHOUT_SECRETS = HEAD + MIDDLE + TAIL
VALUES = {"MEM0_API_KEY": "m0-real-value", "HONCHO_API_KEY": "hc value with spaces"}


@pytest.fixture
def env_home(home: Path) -> Path:
    path = home / ".env"
    path.write_text(ENV_TEXT, encoding="utf-8")
    path.chmod(0o600)
    return home


def panel_entries(service, home: Path) -> dict[str, str]:
    own = keyring_service(home)
    return {user: value for (svc, user), value in service.items().items() if svc == own}


def assert_no_journal(home: Path) -> None:
    assert not journal.journal_path(home).exists()
    assert not [n for n in os.listdir(home) if journal.TEMP_MARK in n]


def test_it_moves_every_secret_to_the_real_keyring_and_leaves_the_rest_of_env_byte_for_byte(
    env_home: Path, real_keyring
):
    plan = move_secrets(home=env_home, to="keyring", expected=["HONCHO_API_KEY", "MEM0_API_KEY"])

    assert plan.variables == ["HONCHO_API_KEY", "MEM0_API_KEY"]
    assert panel_entries(real_keyring, env_home) == VALUES
    assert (env_home / ".env").read_bytes() == WITHOUT_SECRETS.encode()
    assert stat.S_IMODE((env_home / ".env").stat().st_mode) == 0o600
    assert_no_journal(env_home)


def test_it_moves_them_back_to_env_and_empties_the_keyring(env_home: Path, real_keyring):
    move_secrets(home=env_home, to="keyring")

    plan = move_secrets(home=env_home, to="env_file")

    assert plan.names == ["HONCHO_API_KEY", "MEM0_API_KEY"]
    assert panel_entries(real_keyring, env_home) == {}
    text = (env_home / ".env").read_text()
    assert text.startswith(WITHOUT_SECRETS + "\n")
    assert "MEM0_API_KEY=m0-real-value\n" in text and 'HONCHO_API_KEY="hc value with spaces"\n' in text
    assert stat.S_IMODE((env_home / ".env").stat().st_mode) == 0o600
    assert_no_journal(env_home)


def test_it_keeps_the_value_the_agent_sees_when_a_secret_is_in_both_stores(env_home: Path, real_keyring):
    keyring.set_password(keyring_service(env_home), "MEM0_API_KEY", "stale keyring copy")

    plan = move_secrets(home=env_home, to="env_file")

    assert (plan.names, plan.dropped) == ([], ["MEM0_API_KEY"])
    assert (env_home / ".env").read_bytes() == ENV_TEXT.encode()
    assert panel_entries(real_keyring, env_home) == {}


def test_it_refuses_a_move_to_a_locked_keyring_and_changes_nothing(env_home: Path, real_keyring):
    real_keyring.lock()

    with pytest.raises(SecretStoreUnavailable) as caught:
        move_secrets(home=env_home, to="keyring")

    assert caught.value.check.problem == "locked"
    real_keyring.unlock()
    assert (env_home / ".env").read_bytes() == ENV_TEXT.encode()
    assert panel_entries(real_keyring, env_home) == {}


def test_it_refuses_a_move_whose_secrets_changed_since_they_were_confirmed(env_home: Path, real_keyring):
    with pytest.raises(MoveChanged):
        move_secrets(home=env_home, to="keyring", expected=["MEM0_API_KEY"])

    assert (env_home / ".env").read_bytes() == ENV_TEXT.encode()
    assert panel_entries(real_keyring, env_home) == {}


class SecondSetFails(KeyringBackend):
    """The real Secret Service, except that the second panel entry set fails (a full keyring)."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.real, self.sets = SecretService.Keyring(), 0

    def get_password(self, service, username):
        return self.real.get_password(service, username)

    def set_password(self, service, username, password):
        if not username.startswith(PROBE_USERNAME):
            self.sets += 1
            if self.sets == 2:
                raise OSError("no space left in the collection")
        self.real.set_password(service, username, password)

    def delete_password(self, service, username):
        self.real.delete_password(service, username)


def test_it_rolls_everything_back_when_the_keyring_fails_half_way(env_home: Path, real_keyring):
    keyring.set_keyring(SecondSetFails())

    with pytest.raises((SaveFailed, SecretStoreUnavailable)):
        move_secrets(home=env_home, to="keyring")

    assert (env_home / ".env").read_bytes() == ENV_TEXT.encode()
    assert panel_entries(real_keyring, env_home) == {}
    assert_no_journal(env_home)


def _killed_move(home: Path, to: str, method: str, nth: int) -> None:
    child = subprocess.run(
        [sys.executable, "-m", "tests.killing_keyring", str(home), to, method, str(nth)],
        cwd=REPO, env=dict(os.environ), capture_output=True, timeout=300,
    )
    assert child.returncode == -signal.SIGKILL, child.stderr.decode()
    assert journal.journal_path(home).exists()  # really interrupted in the middle


def test_it_finishes_a_move_to_the_keyring_killed_between_two_entries(env_home: Path, real_keyring):
    _killed_move(env_home, "keyring", "set_password", 2)
    # Killed: one entry set, .env untouched; every value is still somewhere.
    assert (env_home / ".env").read_bytes() == ENV_TEXT.encode()
    assert len(panel_entries(real_keyring, env_home)) == 1

    recovery = recover(home=env_home)  # what the next start does

    assert recovery is not None and recovery.completed
    assert panel_entries(real_keyring, env_home) == VALUES
    assert (env_home / ".env").read_bytes() == WITHOUT_SECRETS.encode()
    assert stat.S_IMODE((env_home / ".env").stat().st_mode) == 0o600
    assert_no_journal(env_home)


def test_it_finishes_a_move_to_env_killed_before_the_keyring_entries_were_deleted(env_home: Path, real_keyring):
    move_secrets(home=env_home, to="keyring")
    _killed_move(env_home, "env_file", "delete_password", 1)
    # Killed after .env was replaced: both stores hold the values.
    assert "MEM0_API_KEY=m0-real-value" in (env_home / ".env").read_text()
    assert panel_entries(real_keyring, env_home) == VALUES

    recovery = recover(home=env_home)

    assert recovery is not None and recovery.completed
    assert panel_entries(real_keyring, env_home) == {}
    text = (env_home / ".env").read_text()
    assert text.startswith(WITHOUT_SECRETS) and "HONCHO_API_KEY=" in text
    assert_no_journal(env_home)


def test_it_deletes_nothing_when_a_killed_move_cannot_be_finished_because_the_keyring_is_locked(
    env_home: Path, real_keyring
):
    _killed_move(env_home, "keyring", "set_password", 2)
    real_keyring.lock()

    recovery = recover(home=env_home)

    assert recovery is not None and not recovery.completed
    assert recovery.failed_copy is not None and recovery.failed_copy.exists()
    assert (env_home / ".env").read_bytes() == ENV_TEXT.encode()  # every value still in .env
    real_keyring.unlock()
    # Nothing is lost and the move can simply be run again.
    move_secrets(home=env_home, to="keyring")
    assert panel_entries(real_keyring, env_home) == VALUES


def test_it_plans_nothing_for_a_home_without_stored_secrets(home: Path, real_keyring):
    (home / ".env").write_text("OTHER=1\n")

    assert plan_move(home=home, to="keyring").empty
    assert plan_move(home=home, to="env_file").empty


def _profiles(home: Path) -> list[Path]:
    homes = [home]
    for name in ("play", "work"):
        profile = home / "profiles" / name
        profile.mkdir(parents=True)
        (profile / ".env").write_text(f"# {name}\nMEM0_API_KEY=m0-{name}\n")
        homes.append(profile)
    return homes


def test_it_moves_every_profile_when_asked(env_home: Path, real_keyring):
    homes = _profiles(env_home)

    plans = move_secrets_of_homes(homes=every_profile_home(env_home), to="keyring")

    assert [p.home for p in plans] == [Path(os.path.realpath(h)) for h in homes]
    assert panel_entries(real_keyring, env_home) == VALUES
    for name in ("play", "work"):
        assert panel_entries(real_keyring, env_home / "profiles" / name) == {"MEM0_API_KEY": f"m0-{name}"}
        assert (env_home / "profiles" / name / ".env").read_text() == f"# {name}\n"


def test_it_moves_no_profile_when_one_of_them_cannot_be_moved(env_home: Path, real_keyring):
    _profiles(env_home)
    (env_home / "profiles" / "work" / ".env").write_bytes(b"MEM0_API_KEY=\xff\xfe\n")  # not UTF-8

    with pytest.raises(StorageParseError):
        move_secrets_of_homes(homes=every_profile_home(env_home), to="keyring")

    assert real_keyring.items() == {}
    assert (env_home / ".env").read_bytes() == ENV_TEXT.encode()


class FailsForOneHome(KeyringBackend):
    """The real Secret Service, except that entries of one home's service cannot be set."""

    priority = 1  # type: ignore[assignment]

    def __init__(self, service: str) -> None:
        super().__init__()
        self.real, self.service = SecretService.Keyring(), service

    def get_password(self, service, username):
        return self.real.get_password(service, username)

    def set_password(self, service, username, password):
        if service == self.service and not username.startswith(PROBE_USERNAME):
            raise OSError("the collection refused the entry")
        self.real.set_password(service, username, password)

    def delete_password(self, service, username):
        self.real.delete_password(service, username)


def test_it_puts_back_the_profiles_already_moved_when_a_later_one_fails(env_home: Path, real_keyring):
    _profiles(env_home)
    keyring.set_keyring(FailsForOneHome(keyring_service(env_home / "profiles" / "work")))

    with pytest.raises((SaveFailed, SecretStoreUnavailable)):
        move_secrets_of_homes(homes=every_profile_home(env_home), to="keyring")

    assert real_keyring.items() == {}
    assert (env_home / ".env").read_bytes() == ENV_TEXT.encode()
    for name in ("play", "work"):
        assert (env_home / "profiles" / name / ".env").read_text() == f"# {name}\nMEM0_API_KEY=m0-{name}\n"
    assert_no_journal(env_home)

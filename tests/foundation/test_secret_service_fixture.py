"""The real keyring tests fail under CI=true when the Secret Service tools are missing, and are
skipped elsewhere (a developer's machine without gnome-keyring)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
REAL_KEYRING_TEST = (
    "tests/provider_schemas/test_keyring_probe.py"
    "::test_it_finds_an_unlocked_real_secret_service_usable_and_leaves_no_probe_entry"
)


def _run_without_tools(tmp_path: Path, *, ci: str) -> subprocess.CompletedProcess[str]:
    empty = tmp_path / "empty-path"
    empty.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_XDIST_WORKER", "PYTEST_ADDOPTS")}
    env.update(PATH=str(empty), CI=ci)
    return subprocess.run(
        [sys.executable, "-m", "pytest", REAL_KEYRING_TEST, "-n", "0", "-q", "-rs", "-p", "no:cacheprovider"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=600,
    )


@pytest.mark.parametrize(("ci", "outcome"), [("true", "1 error"), ("", "1 skipped")])
def test_it_fails_the_real_keyring_tests_in_ci_and_skips_them_elsewhere_without_the_tools(tmp_path, ci, outcome):
    result = _run_without_tools(tmp_path, ci=ci)

    assert outcome in result.stdout, result.stdout + result.stderr
    assert "a real Secret Service needs dbus-daemon, gnome-keyring-daemon" in result.stdout
    assert (result.returncode != 0) == (ci == "true")


def test_it_lists_and_clears_the_test_keyring_past_an_item_deleted_during_the_listing(real_keyring):
    """A keyring check deletes its probe while the test keyring is being listed: the listing and
    ``clear()`` skip it instead of failing with ``ItemNotFoundException``."""
    import keyring

    from tests.secret_service import _present_items

    names = {"first", "second", "third"}
    for name in names:
        keyring.set_password("memory-panel:test", name, f"value-{name}")
    with real_keyring.connect() as conn:
        listing = _present_items(conn)
        opened = next(listing).get_attributes()["username"]  # the listing is taken, the rest not yet opened
        deleted, kept = sorted(names - {opened})
        keyring.delete_password("memory-panel:test", deleted)
        rest = [item.get_attributes()["username"] for item in listing]

    assert rest == [kept]
    assert real_keyring.items() == {("memory-panel:test", name): f"value-{name}" for name in (opened, kept)}
    real_keyring.clear()
    assert real_keyring.items() == {}


def test_it_starts_a_separate_keyring_per_session_and_tells_how_its_daemon_ended(real_keyring):
    from tests.secret_service import SecretServiceSession

    other = SecretServiceSession()
    other.start()
    try:
        assert other.address != real_keyring.address and other.items() == {}
        assert other.exited() == ""
        other._daemon.kill()
        other._daemon.wait()
        assert "exited with status -9" in other.exited()
    finally:
        other.stop()
    assert real_keyring.exited() == ""  # the other daemon's end is not this one's

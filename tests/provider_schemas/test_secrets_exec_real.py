"""``manage.py secrets exec`` against the real Secret Service, in real child processes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import keyring

from provider_schemas import keyring_service

REPO = Path(__file__).resolve().parents[2]


def _exec(home: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(HERMES_HOME=str(home), DJANGO_SETTINGS_MODULE="admin_panel.settings")
    return subprocess.run(
        [sys.executable, "manage.py", "secrets", "exec", "--", *argv],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300,
    )


def _files_holding(root: Path, value: str) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and value.encode() in p.read_bytes()]


def test_it_gives_the_child_the_keyring_values_and_writes_them_nowhere(home: Path, real_keyring):
    (home / ".env").write_text("# only this\nOTHER=1\n")
    service = keyring_service(home)
    keyring.set_password(service, "MEM0_API_KEY", "m0-exec-value")
    keyring.set_password(service, "HONCHO_API_KEY", "hc exec value")
    keyring.set_password(service, "NOT_DECLARED", "never-passed")

    child = _exec(home, "env")

    assert child.returncode == 0, child.stderr
    lines = child.stdout.splitlines()
    assert "MEM0_API_KEY=m0-exec-value" in lines and "HONCHO_API_KEY=hc exec value" in lines
    assert f"HERMES_HOME={home}" in lines
    assert "never-passed" not in child.stdout  # only declared secrets are handed over
    assert "Starting env with 2 secret(s) from the keyring." in child.stderr
    for value in ("m0-exec-value", "hc exec value"):
        assert value not in child.stderr
        assert _files_holding(home, value) == []
    assert (home / ".env").read_text() == "# only this\nOTHER=1\n"


def test_it_runs_nothing_and_says_why_when_the_keyring_is_locked(home: Path, real_keyring):
    keyring.set_password(keyring_service(home), "MEM0_API_KEY", "m0-locked-value")
    real_keyring.lock()

    child = _exec(home, sys.executable, "-c", "print('the child ran')")

    assert child.returncode == 1
    assert "the child ran" not in child.stdout
    assert "the keyring is locked" in child.stderr
    assert "m0-locked-value" not in child.stderr + child.stdout

"""The panel's own data is private: another user on the machine can neither read the database, its
journals or the secret key, nor reuse a session key found in the database as a cookie."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import pwd
import shutil
import sqlite3
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.contrib.sessions.models import Session
from django.test import Client

from tests.conftest import PASSWORD
from tests.faults.panel import PANEL_PASSWORD, Browser, prepare_panel, serve
from tests.serving import REPO, child_env

ATTACKER = "nobody"
# serve under a umask that takes nothing away: the modes must come from the panel, not the umask.
UMASK_ZERO = ["sh", "-c", 'umask 0 && exec "$0" "$@"']


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def open_folder() -> Iterator[Path]:
    """A folder every user may enter (0755, like a home directory): what keeps another user out
    of the panel's data below it is the panel's own modes, not the test's temporary folder."""
    path = Path(tempfile.mkdtemp(prefix="memory-panel-open-"))
    path.chmod(0o755)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _as_another_user(paths: list[Path], database: Path) -> dict[str, str]:
    """What another user gets when opening each path read-only, and when reading the session keys
    with sqlite3 as the red team did: "ok" or the error. Runs in a forked child that drops to
    ``nobody`` (the test runs as root)."""
    if os.geteuid() != 0:
        if os.environ.get("CI") == "true":
            pytest.fail("this test reads the files as another user, which needs root to switch user")
        pytest.skip("switching to another user needs root")
    attacker = pwd.getpwnam(ATTACKER)
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child reports through the pipe
        outcome: dict[str, str] = {}
        try:
            os.setgroups([])
            os.setgid(attacker.pw_gid)
            os.setuid(attacker.pw_uid)
            for path in paths:
                try:
                    os.close(os.open(path, os.O_RDONLY))
                    outcome[path.name] = "ok"
                except OSError as exc:
                    outcome[path.name] = errno.errorcode.get(exc.errno or 0, str(exc))
            try:
                with contextlib.closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True)) as connection:
                    connection.execute("SELECT session_key FROM django_session").fetchall()
                outcome["sqlite3"] = "ok"
            except sqlite3.Error as exc:
                outcome["sqlite3"] = str(exc)
        finally:
            os.write(write_end, json.dumps(outcome).encode())
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        report = json.loads(pipe.read() or b"{}")
    os.waitpid(child, 0)
    return report


def _manage_with_umask_zero(*args: str, home: Path, data_dir: Path) -> None:
    env = child_env(HERMES_HOME=str(home), PANEL_DATA_DIR=str(data_dir), DJANGO_SUPERUSER_PASSWORD=PANEL_PASSWORD)
    subprocess.run([*UMASK_ZERO, sys.executable, str(REPO / "manage.py"), *args], cwd=REPO, env=env,
                   check=True, capture_output=True, timeout=180)


@pytest.mark.slow
def test_it_keeps_the_database_its_journals_and_the_secret_key_from_another_user(open_folder):
    home = open_folder / "hermes"
    data = home / "panel"
    _manage_with_umask_zero("migrate", "--noinput", "-v", "0", home=home, data_dir=data)
    _manage_with_umask_zero("createsuperuser", "--noinput", "--username", "owner", "--email", "o@example.invalid",
                            home=home, data_dir=data)
    control = open_folder / "readable-by-anyone"
    control.write_text("x")
    control.chmod(0o644)

    with serve(home=home, data_dir=data, prefix=UMASK_ZERO) as server:
        Browser(f"http://127.0.0.1:{server.port}").sign_in()  # a session row, and the journals in use
        files = [data / "panel.sqlite3", data / "panel.sqlite3-wal", data / "panel.sqlite3-shm", data / "secret_key"]
        modes = {path.name: _mode(path) for path in files}
        seen_by_another_user = _as_another_user([control, *files], data / "panel.sqlite3")

    assert _mode(data) == 0o700
    assert modes == dict.fromkeys(modes, 0o600)
    assert seen_by_another_user.pop(control.name) == "ok"  # the switch of user worked: a 0644 file opens
    assert seen_by_another_user == {**dict.fromkeys(modes, "EACCES"), "sqlite3": "unable to open database file"}


@pytest.mark.slow
def test_it_does_not_accept_a_session_key_read_from_the_database_file_as_a_cookie(tmp_path):
    home, data = tmp_path / "home", tmp_path / "data"
    prepare_panel(home=home, data_dir=data)
    with serve(home=home, data_dir=data) as server:
        base = f"http://127.0.0.1:{server.port}"
        owner = Browser(base)
        owner.sign_in()
        with contextlib.closing(sqlite3.connect(f"file:{data / 'panel.sqlite3'}?mode=ro", uri=True)) as database:
            stored = [row[0] for row in database.execute("SELECT session_key FROM django_session")]
        attacker = Browser(base)
        attacker.opener.addheaders = [("Cookie", f"sessionid={stored[0]}")]
        attack = attacker.request("GET", "/people/")
        rightful = owner.request("GET", "/people/")

    assert len(stored) == 1
    assert attack[0] == 302
    assert {name.lower(): value for name, value in attack[2].items()}["location"].startswith("/accounts/login/")
    assert rightful[0] == 200


@pytest.mark.django_db
def test_it_stores_only_a_digest_of_each_session_key(home, owner):
    client = Client()
    assert client.login(username="owner", password=PASSWORD)
    cookie = client.cookies["sessionid"].value

    stored = list(Session.objects.values_list("session_key", flat=True))
    stolen = Client()
    stolen.cookies["sessionid"] = stored[0]

    assert stored != [cookie] and len(stored) == 1
    assert cookie not in stored[0]
    assert stolen.get("/people/").status_code == 302
    assert client.get("/people/").status_code == 200


@pytest.mark.slow
def test_it_makes_an_open_data_folder_private_at_start_up_and_says_so(tmp_path):
    home, data = tmp_path / "home", tmp_path / "data"
    prepare_panel(home=home, data_dir=data)
    data.chmod(0o755)
    for path in data.iterdir():
        path.chmod(0o644)

    with serve(home=home, data_dir=data) as server:
        server.wait_for_line("serving on")
        modes = {path.name: _mode(path) for path in data.iterdir()}

    assert _mode(data) == 0o700
    assert modes == dict.fromkeys(modes, 0o600)
    assert "the panel data folder was open to other users (mode 0755); it is now 0700" in server.output
    assert "panel.sqlite3 was readable by other users (mode 0644); it is now 0600" in server.output


@pytest.mark.slow
@pytest.mark.parametrize("command", [["serve", "--port", "0"], ["user", "list"]])
def test_it_refuses_to_start_on_an_open_data_folder_it_cannot_make_private(tmp_path, command):
    home, data = tmp_path / "home", tmp_path / "data"
    prepare_panel(home=home, data_dir=data)
    data.chmod(0o755)
    os.chown(data, pwd.getpwnam(ATTACKER).pw_uid, -1)

    result = subprocess.run([sys.executable, str(REPO / "manage.py"), *command], cwd=REPO, timeout=180,
                            env=child_env(HERMES_HOME=str(home), PANEL_DATA_DIR=str(data)),
                            capture_output=True, text=True)

    assert result.returncode != 0
    assert "can be read by other users (mode 0755) and belongs to another user" in result.stderr
    assert "PANEL_DATA_DIR" in result.stderr
    assert "Traceback" not in result.stderr
    assert _mode(data) == 0o755  # another user's folder is not changed


@pytest.mark.slow
def test_it_keeps_its_data_usable_and_private_under_a_umask_that_takes_the_owners_bits_away(tmp_path):
    home, data = tmp_path / "home", tmp_path / "data"
    env = child_env(HERMES_HOME=str(home), PANEL_DATA_DIR=str(data), DJANGO_SUPERUSER_PASSWORD=PANEL_PASSWORD)
    strict = ["sh", "-c", 'umask 0277 && exec "$0" "$@"']
    for args in (["migrate", "--noinput", "-v", "0"], ["createsuperuser", "--noinput", "--username", "owner",
                                                        "--email", "o@example.invalid"]):
        result = subprocess.run([*strict, sys.executable, str(REPO / "manage.py"), *args], cwd=REPO, env=env,
                                capture_output=True, text=True, timeout=180)
        assert result.returncode == 0, result.stderr

    assert _mode(data) == 0o700
    assert {path.name: _mode(path) for path in data.iterdir()} == {"panel.sqlite3": 0o600, "secret_key": 0o600}

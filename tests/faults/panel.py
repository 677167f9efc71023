"""A real panel for fault tests: an account and an API token prepared through the management
commands, then ``serve`` as a separate process (optionally without the root override of file
permissions, so a chmod really denies access)."""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.serving import REPO, ServerProcess, child_env, free_port

PANEL_PASSWORD = "fault suite passphrase 42"
# Per account name: the prepared home and data folder that ``prepare_panel`` copies, and its token.
_prepared: dict[str, tuple[Path, Path, str]] = {}


def _manage(*args: str, home: Path, data_dir: Path, stdin: str | None = None) -> str:
    env = child_env(HERMES_HOME=str(home), PANEL_DATA_DIR=str(data_dir), DJANGO_SUPERUSER_PASSWORD=PANEL_PASSWORD)
    result = subprocess.run([sys.executable, str(REPO / "manage.py"), *args], cwd=REPO, env=env,
                            capture_output=True, text=True, timeout=180, input=stdin)
    if result.returncode != 0:
        raise AssertionError(f"manage.py {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")
    return result.stdout


def prepare_panel(*, home: Path, data_dir: Path, username: str = "owner") -> str:
    """Migrate, create a staff account and return an API token for it.

    The commands run once per test process and account name; every later call copies that data
    folder (the database with its account, token and audit rows, the secret key) and points the
    audit rows at ``home``, which is what the commands would have written there."""
    home.mkdir(parents=True, exist_ok=True)
    if username not in _prepared:
        template = Path(tempfile.mkdtemp(prefix="panel-prepared-"))
        atexit.register(shutil.rmtree, template, True)
        template_home, template_data = template / "home", template / "data"
        template_home.mkdir()
        _manage("migrate", "--noinput", "-v", "0", home=template_home, data_dir=template_data)
        _manage("createsuperuser", "--noinput", "--username", username, "--email", "owner@example.invalid",
                home=template_home, data_dir=template_data)
        token = _manage("api_token", "create", "--user", username, home=template_home,
                        data_dir=template_data).strip()
        _prepared[username] = (template_home, template_data, token)
    template_home, template_data, token = _prepared[username]
    shutil.copytree(template_data, data_dir, dirs_exist_ok=True)
    with contextlib.closing(sqlite3.connect(data_dir / "panel.sqlite3")) as database, database:
        for old, new in {(str(template_home), str(home)),
                         (os.path.realpath(template_home), os.path.realpath(home))}:
            database.execute("UPDATE admin_panel_auditentry SET home = ? WHERE home = ?", (new, old))
    return token


def without_root_override() -> list[str]:
    """A command prefix that makes file permissions apply even to root (drops the DAC capabilities)."""
    if os.geteuid() != 0:
        return []
    return ["setpriv", "--bounding-set", "-dac_override,-dac_read_search"]


@contextmanager
def serve(*, home: Path, data_dir: Path, prefix: list[str] | None = None, threads: int = 4) -> Iterator[ServerProcess]:
    """``manage.py serve`` in its own process; killed (not just terminated) at the end."""
    import threading

    port = free_port()
    env = child_env(HERMES_HOME=str(home), PANEL_DATA_DIR=str(data_dir))
    process = subprocess.Popen(
        [*(prefix or []), sys.executable, str(REPO / "manage.py"), "serve", "--port", str(port),
         "--threads", str(threads)],
        cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    server = ServerProcess(process=process, port=port)

    def pump() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            server.lines.append(line)

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    try:
        server.wait_until_listening()
        yield server
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=180)
        reader.join(timeout=180)


class Browser:
    """A minimal cookie-keeping HTTP client for a real server: signs in through the login form and
    sends the CSRF token like a browser would."""

    def __init__(self, base: str) -> None:
        import http.cookiejar

        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar),
                                                  _NoRedirect())

    def _csrf(self) -> str:
        return next((c.value for c in self.jar if c.name == "csrftoken"), "")

    def request(self, method: str, path: str, data: dict[str, str] | None = None,
                headers: dict[str, str] | None = None, body: bytes | None = None,
                timeout: float = 180) -> tuple[int, str, dict[str, str]]:
        import urllib.error
        import urllib.parse

        payload = body
        all_headers = {"Referer": self.base + "/", **(headers or {})}
        if data is not None:
            payload = urllib.parse.urlencode({**data, "csrfmiddlewaretoken": self._csrf()}).encode()
            all_headers["Content-Type"] = "application/x-www-form-urlencoded"
        if method != "GET":
            all_headers.setdefault("X-CSRFToken", self._csrf())
        request = urllib.request.Request(self.base + path, data=payload, method=method, headers=all_headers)
        try:
            with self.opener.open(request, timeout=timeout) as response:
                return response.status, response.read().decode("utf-8", "replace"), dict(response.headers)
        except urllib.error.HTTPError as error:
            with error:
                return error.code, error.read().decode("utf-8", "replace"), dict(error.headers)

    def sign_in(self, username: str = "owner", password: str = PANEL_PASSWORD) -> None:
        self.request("GET", "/accounts/login/")
        status, body, _headers = self.request("POST", "/accounts/login/",
                                              {"username": username, "password": password})
        assert status == 302, (status, body[:500])


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Redirects are answers to check (a save answers 302), not something to follow."""

    def redirect_request(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        return None

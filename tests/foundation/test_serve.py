"""``manage.py serve`` runs a real server on loopback."""

from __future__ import annotations

import json
import socket
import sqlite3
import urllib.request
from pathlib import Path

import pytest
from django.core.management import load_command_class

from tests.faults.panel import Browser, prepare_panel, serve
from tests.faults.panel import _manage as manage
from tests.serving import running_server


def prepare_panel_token(*, home: Path, data_dir: Path) -> str:
    return manage("api_token", "create", "--user", "owner", home=home, data_dir=data_dir).strip()

pytestmark = pytest.mark.slow


def _listening_addresses(port: int) -> set[str]:
    """Local addresses with a listening TCP socket on ``port``, read from /proc/net/tcp{,6}."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            local, state = fields[1], fields[3]
            address, port_hex = local.rsplit(":", 1)
            if state == "0A" and int(port_hex, 16) == port:  # 0A = LISTEN
                found.add(address)
    return found


def _non_loopback_ipv4() -> str | None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: nothing is sent by a UDP connect
            address = probe.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") else address


def test_it_defaults_to_loopback_port_8000():
    parser = load_command_class("admin_panel", "serve").create_parser("manage.py", "serve")
    options = parser.parse_args([])

    assert options.host == "127.0.0.1"
    assert options.port == 8000


def test_it_binds_only_loopback_by_default(tmp_path):
    with running_server(hermes_home=tmp_path / "home", data_dir=tmp_path / "data") as server:
        server.wait_until_listening()

        assert _listening_addresses(server.port) == {"0100007F"}  # 127.0.0.1, little-endian hex
        with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/accounts/login/") as response:
            assert response.status == 200
            # serve names itself; Django's development server says "WSGIServer/...".
            assert response.headers.get("Server") == "memory-panel"
        outside = _non_loopback_ipv4()
        if outside:
            with pytest.raises(OSError):
                socket.create_connection((outside, server.port), timeout=1).close()

    assert "serving on http://127.0.0.1:" in server.output


def test_it_binds_another_address_when_told(tmp_path):
    with running_server(hermes_home=tmp_path / "home", data_dir=tmp_path / "data",
                        extra_args=("--host", "0.0.0.0")) as server:
        server.wait_until_listening()

        assert _listening_addresses(server.port) == {"00000000"}
    assert "exposes the panel beyond this machine" in server.output


def test_it_serves_static_files_with_debug_off(tmp_path):
    with running_server(hermes_home=tmp_path / "home", data_dir=tmp_path / "data") as server:
        server.wait_until_listening()
        with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/static/admin_panel/css/panel.css") as response:
            body = response.read().decode()

    assert "prefers-color-scheme: dark" in body


def test_it_creates_the_home_the_database_and_a_persistent_secret_key(tmp_path):
    home, data = tmp_path / "home", tmp_path / "data"
    with running_server(hermes_home=home, data_dir=data) as server:
        server.wait_until_listening()
    first_key = (data / "secret_key").read_text()

    with running_server(hermes_home=home, data_dir=data) as server:
        server.wait_until_listening()

    assert home.is_dir()
    assert (data / "panel.sqlite3").is_file()
    assert (data / "secret_key").stat().st_mode & 0o777 == 0o600
    assert (data / "secret_key").read_text() == first_key


def test_it_seeds_and_serves_a_demo_home(tmp_path):
    demo = tmp_path / "demo"
    with running_server(hermes_home=tmp_path / "unused", data_dir=tmp_path / "unused-data",
                        extra_args=("--demo", str(demo))) as server:
        server.wait_for_line("/accounts/first-run/")
        server.wait_until_listening()

    assert f"HERMES_HOME={demo}" in server.output
    assert (demo / "memories" / "MEMORY.md").is_file()
    assert (demo / "panel" / "panel.sqlite3").is_file()
    assert not (tmp_path / "unused-data" / "panel.sqlite3").exists()


def test_it_is_already_listening_when_it_prints_its_address(tmp_path):
    with running_server(hermes_home=tmp_path / "home", data_dir=tmp_path / "data") as server:
        server.wait_for_line("serving on")

        # No retry: a person (or a browser) may open the printed link at once.
        socket.create_connection(("127.0.0.1", server.port), timeout=2).close()


def test_it_says_the_port_is_taken_without_printing_a_sign_in_link(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with running_server(hermes_home=tmp_path / "home", data_dir=tmp_path / "data",
                            extra_args=("--port", str(port))) as server:
            server.process.wait(timeout=180)

    assert server.process.returncode != 0
    assert f"Cannot listen on 127.0.0.1:{port}" in server.output
    assert "/accounts/first-run/" not in server.output


def test_it_serves_a_demo_whose_user_profile_is_in_the_state_asked_for(tmp_path):
    demo = tmp_path / "demo"
    with running_server(hermes_home=tmp_path / "unused", data_dir=tmp_path / "unused-data",
                        extra_args=("--demo", str(demo), "--demo-state", "unreadable")) as server:
        server.wait_for_line("serving on")

    assert "Demo state unreadable: USER.md is not valid UTF-8" in server.output
    with pytest.raises(UnicodeDecodeError):
        (demo / "memories" / "USER.md").read_bytes().decode("utf-8")


def test_it_streams_a_long_export_whole_and_answers_a_put_with_a_body(tmp_path):
    home, data = tmp_path / "home", tmp_path / "data"
    token = prepare_panel(home=home, data_dir=data)
    for _ in range(3):  # more audit rows: each token made is audited
        prepare_panel_token(home=home, data_dir=data)
    with serve(home=home, data_dir=data) as server:
        browser = Browser(f"http://127.0.0.1:{server.port}")
        browser.sign_in()
        status, body, headers = browser.request("GET", "/audit/?format=jsonl")
        with sqlite3.connect(data / "panel.sqlite3") as database:
            (rows,) = database.execute("SELECT count(*) FROM admin_panel_auditentry").fetchone()
        # A PUT's body is read in full on the event loop before its request thread starts.
        put = urllib.request.Request(
            f"http://127.0.0.1:{server.port}/api/memory/provider", method="PUT", data=b'{"provider": ""}',
            headers={"X-Hermes-Session-Token": token, "Content-Type": "application/json"})
        with urllib.request.urlopen(put, timeout=180) as response:
            activated = json.loads(response.read())

    assert status == 200
    # A streaming response, relayed as produced (no length known in advance).
    assert {k.lower(): v for k, v in headers.items()}.get("transfer-encoding") == "chunked"
    records = [json.loads(line) for line in body.splitlines()]
    assert rows >= 4 and len(records) == rows
    assert len({record["id"] for record in records}) == rows
    assert activated == {"ok": True, "active": ""}

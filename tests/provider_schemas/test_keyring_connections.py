"""The panel's Secret Service calls borrow a few long-lived connections instead of opening one per
call (docs/security.md, "Few connections to the keyring"), against a real gnome-keyring."""

from __future__ import annotations

import os
import re
import signal
import socket
from pathlib import Path

import pytest
from jeepney import DBusAddress, new_method_call

from provider_schemas.secret_stores import probe, session_bus
from provider_schemas.secret_stores.keyring_store import KeyringStore, keyring_service


@pytest.fixture
def connections_opened(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the D-Bus connections the panel opens from now on."""
    from jeepney.io import blocking

    real_open = blocking.open_dbus_connection
    opened: list[int] = []

    def counting(*args, **kwargs):
        opened.append(1)
        return real_open(*args, **kwargs)

    monkeypatch.setattr(blocking, "open_dbus_connection", counting)
    return opened


def open_sessions(real_keyring) -> list[str]:
    """The Secret Service sessions the daemon holds (its children of /org/freedesktop/secrets/session)."""
    target = DBusAddress("/org/freedesktop/secrets/session", bus_name="org.freedesktop.secrets",
                         interface="org.freedesktop.DBus.Introspectable")
    with real_keyring.connect() as conn:
        xml = conn.send_and_get_reply(new_method_call(target, "Introspect"), timeout=180).body[0]
    return re.findall(r'<node name="([^"]+)"', xml)


def test_it_makes_a_run_of_keyring_calls_on_one_connection(real_keyring, tmp_path: Path, connections_opened):
    store = KeyringStore(tmp_path)
    for number in range(5):
        store.set("MEM0_API_KEY", f"m0-{number}")
        assert store.get("MEM0_API_KEY") == f"m0-{number}"
    assert probe.check_keyring(home=tmp_path).usable
    store.delete("MEM0_API_KEY")

    assert len(connections_opened) == 1
    assert real_keyring.items() == {}


def test_it_closes_the_secret_service_sessions_each_call_opened(real_keyring, tmp_path: Path):
    store = KeyringStore(tmp_path)
    store.set("MEM0_API_KEY", "m0-sessions")
    for _ in range(6):
        assert store.get("MEM0_API_KEY") == "m0-sessions"

    assert open_sessions(real_keyring) == []  # none left behind on the kept connection


def test_it_replaces_a_kept_connection_that_the_bus_closed(real_keyring, tmp_path: Path, connections_opened):
    store = KeyringStore(tmp_path)
    store.set("MEM0_API_KEY", "m0-before")
    [kept] = session_bus._pool
    kept.sock.shutdown(socket.SHUT_RDWR)  # what the connection sees when the bus drops it

    store.set("MEM0_API_KEY", "m0-after")

    assert len(connections_opened) == 2
    assert real_keyring.items() == {(keyring_service(tmp_path), "MEM0_API_KEY"): "m0-after"}


def test_it_sends_each_call_to_the_bus_of_the_moment(real_keyring, tmp_path: Path, monkeypatch):
    from tests.secret_service import SecretServiceSession

    KeyringStore(tmp_path).set("MEM0_API_KEY", "m0-first-bus")
    second = SecretServiceSession()
    second.start()
    try:
        monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", second.address)
        KeyringStore(tmp_path).set("MEM0_API_KEY", "m0-second-bus")
        on_second = second.items()
    finally:
        second.stop()

    assert on_second == {(keyring_service(tmp_path), "MEM0_API_KEY"): "m0-second-bus"}
    assert real_keyring.items() == {(keyring_service(tmp_path), "MEM0_API_KEY"): "m0-first-bus"}


def test_it_reports_a_secret_service_that_stops_answering_on_a_kept_connection(
    real_keyring, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    assert probe.check_keyring(home=tmp_path).usable  # a connection is now kept
    monkeypatch.setattr(session_bus, "BUS_HANG_GUARD_SECONDS", 0.5)
    daemon = real_keyring._daemon.pid
    os.kill(daemon, signal.SIGSTOP)  # the bus answers, the Secret Service behind it does not
    try:
        result = probe.check_keyring(home=tmp_path)
    finally:
        os.kill(daemon, signal.SIGCONT)

    assert (result.usable, result.problem) == (False, probe.NO_SERVICE)
    assert "did not answer within 0.5 seconds" in result.english()
    assert session_bus._pool == []  # the connection that waited in vain is not lent again
    assert probe.check_keyring(home=tmp_path).usable

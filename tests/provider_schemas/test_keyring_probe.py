"""The keyring check against a real Secret Service and against keyring's own fallback backends."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import keyring
import pytest
from keyring.backends import SecretService, fail, null

from provider_schemas.secret_stores import probe
from provider_schemas.secret_stores.keyring_store import KeyringStore, keyring_service


def test_it_finds_an_unlocked_real_secret_service_usable_and_leaves_no_probe_entry(real_keyring, tmp_path: Path):
    result = probe.check_keyring(home=tmp_path)
    assert result.usable, result.english()
    assert result.backend == "keyring.backends.SecretService.Keyring"
    assert real_keyring.items() == {}


def test_it_finds_the_keyring_usable_from_checks_made_at_the_same_moment(real_keyring, tmp_path: Path):
    # A page and its stream, or two tabs, check the same home's keyring at once: each check's probe
    # entry is its own, so none reads another's value or finds it deleted under it.
    start = threading.Barrier(6)
    results: list[probe.KeyringCheck] = []

    def check() -> None:
        start.wait()
        for _ in range(5):
            results.append(probe.check_keyring(home=tmp_path))

    threads = [threading.Thread(target=check) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(results) == 30
    assert [r.english() for r in results if not r.usable] == []
    assert real_keyring.items() == {}


def test_it_reports_a_locked_collection_as_locked_and_writes_nothing(real_keyring, tmp_path: Path):
    real_keyring.lock()
    result = probe.check_keyring(home=tmp_path)
    assert not result.usable
    assert result.problem == probe.LOCKED
    assert result.detail == ""  # seen on the collection itself, without asking for an unlock prompt
    assert "locked" in result.english()
    assert "gnome-keyring or KWallet" in result.english()
    real_keyring.unlock()
    assert real_keyring.items() == {}


def test_it_reports_the_fail_backend_with_headless_advice_in_a_process_without_a_session(tmp_path: Path):
    # A fresh process on a server without a desktop session: keyring falls back to its fail backend.
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    code = (
        "from provider_schemas.secret_stores.probe import check_keyring;"
        f"r = check_keyring(home={str(tmp_path)!r}); print(r.problem, r.platform, r.backend)"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[2], timeout=120)
    assert out.stdout.split() == [probe.FAIL_BACKEND, probe.HEADLESS, "keyring.backends.fail.Keyring"]


def test_it_refuses_the_null_backend_that_stores_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    previous = keyring.get_keyring()
    keyring.set_keyring(null.Keyring())
    try:
        result = probe.check_keyring(home=tmp_path)
    finally:
        keyring.set_keyring(previous)
    assert (result.usable, result.problem) == (False, probe.NULL_BACKEND)


def test_it_reports_a_secret_service_backend_without_a_bus_as_unreachable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", f"unix:path={tmp_path / 'no-bus'}")
    previous = keyring.get_keyring()
    keyring.set_keyring(SecretService.Keyring())
    try:
        result = probe.check_keyring(home=tmp_path)
    finally:
        keyring.set_keyring(previous)
    assert (result.usable, result.problem) == (False, probe.NO_SERVICE)


@pytest.mark.parametrize(
    ("platform", "env", "expected"),
    [
        ("linux", {}, probe.HEADLESS),
        ("linux", {"DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/1000/bus"}, probe.LINUX),
        ("darwin", {}, probe.MACOS),
        ("win32", {}, probe.WINDOWS),
    ],
)
def test_it_gives_advice_for_the_platform_it_runs_on(platform, env, expected, monkeypatch: pytest.MonkeyPatch):
    for name in ("DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(sys, "platform", platform)
    assert probe.current_platform() == expected
    check = probe.KeyringCheck(False, "x", probe.LOCKED, platform=expected)
    words = {probe.HEADLESS: ".env", probe.LINUX: "gnome-keyring", probe.MACOS: "keychain",
             probe.WINDOWS: "Credential Manager"}
    assert words[expected] in check.english()


def test_it_turns_a_keyring_locked_after_the_check_into_the_same_diagnosis(real_keyring, tmp_path: Path):
    store = KeyringStore(tmp_path)
    real_keyring.lock()
    with pytest.raises(Exception) as caught:
        store.set("MEM0_API_KEY", "m0-value-never-shown")
    error = caught.value
    assert error.check.problem == probe.LOCKED
    assert "m0-value-never-shown" not in str(error)
    real_keyring.unlock()
    assert (keyring_service(tmp_path), "MEM0_API_KEY") not in real_keyring.items()


def test_it_does_not_count_keyrings_fail_backend_as_usable(tmp_path: Path):
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    try:
        assert probe.check_keyring(home=tmp_path).problem == probe.FAIL_BACKEND
    finally:
        keyring.set_keyring(previous)


class _DropsCalls(SecretService.Keyring):
    """The real Secret Service backend, except that its first ``drops`` writes are lost on the bus."""

    def __init__(self, drops: int) -> None:
        super().__init__()
        self.drops = drops

    def set_password(self, service: str, username: str, password: str) -> None:
        if self.drops:
            self.drops -= 1
            raise ConnectionError("Message recipient disconnected from message bus without replying")
        super().set_password(service, username, password)


@pytest.mark.parametrize(("drops", "usable"), [(1, True), (2, False)])
def test_it_asks_again_once_before_calling_a_secret_service_that_dropped_a_call_unreachable(
    real_keyring, tmp_path: Path, drops: int, usable: bool
):
    keyring.set_keyring(_DropsCalls(drops))

    result = probe.check_keyring(home=tmp_path)

    assert (result.usable, result.problem) == (usable, "" if usable else probe.NO_SERVICE)
    assert real_keyring.items() == {}


# jeepney gives the bus one second to answer a new connection unless told otherwise; the pause is
# well past every such one-second wait a check could have made (a lock check and two round trips).
PAUSE_LONGER_THAN_THE_OLD_LIMITS = 4.0


def _check_in_a_thread(home: Path) -> tuple[threading.Thread, list[probe.KeyringCheck]]:
    results: list[probe.KeyringCheck] = []
    thread = threading.Thread(target=lambda: results.append(probe.check_keyring(home=home)), daemon=True)
    thread.start()
    return thread, results


def test_it_finds_a_secret_service_usable_while_its_bus_is_slow_to_answer(real_keyring, tmp_path: Path):
    # What a loaded machine does to the bus, made certain: the check waits for it, never races it.
    with real_keyring.bus_paused():
        thread, results = _check_in_a_thread(tmp_path)
        thread.join(PAUSE_LONGER_THAN_THE_OLD_LIMITS)
        assert thread.is_alive(), results  # still waiting on the bus, not given up on it
    thread.join(120)  # only stops a hang

    assert [r.english() for r in results] == ["The keyring (keyring.backends.SecretService.Keyring) is usable."]
    assert real_keyring.items() == {}


def test_it_reports_a_bus_that_stops_answering_as_an_unreachable_service_after_its_hang_guard(
    real_keyring, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    from provider_schemas.secret_stores import session_bus

    monkeypatch.setattr(session_bus, "BUS_HANG_GUARD_SECONDS", 0.5)  # a hung bus, without waiting 30 s
    with real_keyring.bus_paused():
        thread, results = _check_in_a_thread(tmp_path)
        thread.join(120)

    assert [(r.usable, r.problem) for r in results] == [(False, probe.NO_SERVICE)]
    assert "the D-Bus session bus did not answer within 0.5 seconds" in results[0].english()
    assert "gnome-keyring or KWallet" in results[0].english()


def test_it_keeps_every_secret_service_call_of_the_process_patient_with_the_bus(real_keyring, tmp_path: Path):
    store = KeyringStore(tmp_path)  # what saves and moves use: the keyring package's own calls
    with real_keyring.bus_paused():
        writer = threading.Thread(target=store.set, args=("MEM0_API_KEY", "m0-slow-bus"), daemon=True)
        writer.start()
        writer.join(PAUSE_LONGER_THAN_THE_OLD_LIMITS)
        assert writer.is_alive()
    writer.join(120)

    assert real_keyring.items() == {(keyring_service(tmp_path), "MEM0_API_KEY"): "m0-slow-bus"}

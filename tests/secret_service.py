"""A real Secret Service for tests: a private D-Bus session bus with gnome-keyring-daemon on it.

Nothing of the machine's own session is used: the bus, the keyring files (``XDG_DATA_HOME``) and
the runtime folder live in a temporary folder, and the default ("login") collection is created
and unlocked with a test password. ``lock()``/``unlock()`` lock and unlock it the way a desktop
session does (unlocking uses gnome-keyring's own master-password call, as no prompt can be shown).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

TEST_PASSWORD = b"memory-panel test keyring"
# The fixture's own connections get the bus this long to answer (jeepney's default is one second,
# which a loaded machine can exceed): it only stops a bus that hangs.
BUS_HANG_GUARD_SECONDS = 120.0
TOOLS = ("dbus-daemon", "gnome-keyring-daemon")
SECRET_SERVICE_BACKEND = "keyring.backends.SecretService.Keyring"


# The distribution's session bus settings (its high limits: the built-in ones are a system bus's
# and refuse calls under the suite's load) without its service folders: the bus must never start a
# second gnome-keyring itself (D-Bus activation, triggered by the readiness check's first call).
# Two daemons fight over the service name, and calls in flight end with "Message recipient
# disconnected from message bus without replying".
SESSION_BUS_CONFIG = Path("/usr/share/dbus-1/session.conf")


def bus_config(*, folder: Path) -> str:
    text = SESSION_BUS_CONFIG.read_text(encoding="utf-8")
    text = re.sub(r"<standard_session_servicedirs\s*/>|<servicedir>[^<]*</servicedir>", "", text)
    return re.sub(r"<listen>[^<]*</listen>", f"<listen>unix:tmpdir={folder}</listen>", text)


def missing_tools() -> list[str]:
    return [tool for tool in TOOLS if shutil.which(tool) is None]


class SecretServiceSession:
    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="panel-secret-service-"))
        self.address = ""
        self.log = self.root / "gnome-keyring.log"
        self._pids: list[int] = []
        self._daemon: subprocess.Popen[bytes] | None = None
        self._connection: Any = None
        self._connection_lock = threading.RLock()

    # -- lifecycle --------------------------------------------------------------------------------

    def environment(self) -> dict[str, str]:
        """Variables that point a process (``keyring``, ``secret-tool``) at this service."""
        return {"DBUS_SESSION_BUS_ADDRESS": self.address, "PYTHON_KEYRING_BACKEND": SECRET_SERVICE_BACKEND}

    def _daemon_env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DBUS_", "XDG_", "GNOME_KEYRING"))}
        for name in ("data", "config", "runtime", "home"):
            (self.root / name).mkdir(mode=0o700, exist_ok=True)
        env.update(
            HOME=str(self.root / "home"),
            XDG_DATA_HOME=str(self.root / "data"),
            XDG_CONFIG_HOME=str(self.root / "config"),
            XDG_RUNTIME_DIR=str(self.root / "runtime"),
        )
        return env

    def start(self) -> None:
        env = self._daemon_env()
        config = self.root / "bus.conf"
        config.write_text(bus_config(folder=self.root / "runtime"), encoding="utf-8")
        bus = subprocess.run(
            ["dbus-daemon", f"--config-file={config}", "--fork", "--nopidfile", "--print-address=1",
             "--print-pid=1"],
            env=env, capture_output=True, text=True, check=True, timeout=180,
        )
        lines = bus.stdout.split()
        self.address, self._pids = lines[0], [int(lines[1])]
        env["DBUS_SESSION_BUS_ADDRESS"] = self.address
        # In the foreground, as our own child: its exit status and what it printed say why, should
        # it ever leave the bus during a test (``exited()``).
        with open(self.log, "wb") as log:
            self._daemon = subprocess.Popen(
                ["gnome-keyring-daemon", "--foreground", "--unlock", "--components=secrets"],
                env=env, stdin=subprocess.PIPE, stdout=log, stderr=subprocess.STDOUT,
            )
        assert self._daemon.stdin is not None
        self._daemon.stdin.write(TEST_PASSWORD)
        self._daemon.stdin.close()
        self._wait_until_ready()

    def exited(self) -> str:
        """Empty while the daemon runs; else its exit status and the end of its output."""
        if self._daemon is None or self._daemon.poll() is None:
            return ""
        output = self.log.read_text(encoding="utf-8", errors="replace")[-2000:] if self.log.exists() else ""
        return f"gnome-keyring-daemon exited with status {self._daemon.returncode}; its output:\n{output}"

    def _wait_until_ready(self) -> None:
        # Ready once the daemon owns the service name on the bus *and* has created and unlocked the
        # login collection behind the "default" alias (ReadAlias answers "/" until then). Polled,
        # with a generous safety net: a loaded machine only makes it take longer.
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            with contextlib.suppress(Exception):
                if self.collection_path() != "/" and not self.is_locked():
                    return
            time.sleep(0.05)
        raise RuntimeError("gnome-keyring-daemon did not appear on the test bus")

    def stop(self) -> None:
        self._drop_connection()
        if self._daemon is not None and self._daemon.poll() is None:
            self._daemon.terminate()
            try:
                self._daemon.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._daemon.kill()
                self._daemon.wait()
        for pid in self._pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        shutil.rmtree(self.root, ignore_errors=True)

    # -- D-Bus calls ------------------------------------------------------------------------------

    @contextlib.contextmanager
    def connect(self) -> Iterator[Any]:
        """This service's one connection for the fixture's own calls, lent to one caller at a time
        and patient with a busy machine. One, not one per call: gnome-keyring can abort when a new
        client's first request races its bookkeeping of that client (docs/security.md, "Few
        connections to the keyring"), and the fixture asks often (readiness, listings)."""
        from jeepney.io.blocking import open_dbus_connection

        with self._connection_lock:
            if self._connection is None:
                self._connection = open_dbus_connection(bus=self.address, auth_timeout=BUS_HANG_GUARD_SECONDS)
            try:
                yield self._connection
            except OSError:  # timed out or cut: a reply may be left unread, so start afresh next time
                self._drop_connection()
                raise

    def _drop_connection(self) -> None:
        with self._connection_lock:
            if self._connection is not None:
                with contextlib.suppress(OSError):
                    self._connection.close()
                self._connection = None

    @contextlib.contextmanager
    def bus_paused(self) -> Iterator[None]:
        """The bus stopped (SIGSTOP) for the block: it accepts connections and answers nothing,
        as an overloaded or hung bus does; it answers again afterwards."""
        os.kill(self._pids[0], signal.SIGSTOP)
        try:
            yield
        finally:
            os.kill(self._pids[0], signal.SIGCONT)

    def _call(self, path: str, interface: str, method: str, signature: str = "", body: tuple = ()) -> tuple:
        from jeepney import DBusAddress, MessageType, new_method_call
        with self.connect() as conn:
            target = DBusAddress(path, bus_name="org.freedesktop.secrets", interface=interface)
            reply = conn.send_and_get_reply(new_method_call(target, method, signature, body), timeout=180)
            if reply.header.message_type == MessageType.error:
                raise RuntimeError(f"{method}: {reply.body}")
            return reply.body

    def collection_path(self) -> str:
        return self._call("/org/freedesktop/secrets", "org.freedesktop.Secret.Service", "ReadAlias", "s",
                          ("default",))[0]

    def lock(self) -> None:
        self._call("/org/freedesktop/secrets", "org.freedesktop.Secret.Service", "Lock", "ao",
                   ([self.collection_path()],))

    def unlock(self) -> None:
        from jeepney import DBusAddress, new_method_call
        # The plain session and the master-password call must share one connection.
        with self.connect() as conn:
            service = DBusAddress("/org/freedesktop/secrets", bus_name="org.freedesktop.secrets",
                                  interface="org.freedesktop.Secret.Service")
            session = conn.send_and_get_reply(new_method_call(service, "OpenSession", "sv", ("plain", ("s", ""))),
                                              timeout=180).body[1]
            internal = DBusAddress("/org/freedesktop/secrets", bus_name="org.freedesktop.secrets",
                                   interface="org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface")
            secret = (session, b"", TEST_PASSWORD, "text/plain")
            conn.send_and_get_reply(
                new_method_call(internal, "UnlockWithMasterPassword", "o(oayays)", (self.collection_path(), secret)),
                timeout=180,
            )

    def is_locked(self) -> bool:
        from jeepney import DBusAddress, Properties
        with self.connect() as conn:
            target = DBusAddress(self.collection_path(), bus_name="org.freedesktop.secrets",
                                 interface="org.freedesktop.Secret.Collection")
            return bool(conn.send_and_get_reply(Properties(target).get("Locked"), timeout=180).body[0][1])

    def items(self, *, probes: bool = True) -> dict[tuple[str, str], str]:
        """Every (service, username) → secret in the default collection (read with secretstorage).

        ``probes=False`` leaves out the keyring checks' own probe entries: while a page is open, a
        check (its stream, a poll) may be between writing its probe and deleting it."""
        from secretstorage.exceptions import ItemNotFoundException

        from provider_schemas.secret_stores.probe import PROBE_USERNAME

        with self.connect() as conn:
            out: dict[tuple[str, str], str] = {}
            for item in _present_items(conn):
                try:
                    attributes = item.get_attributes()
                    secret = item.get_secret().decode()
                except ItemNotFoundException:
                    continue  # a keyring check's probe, deleted by its check since the listing
                username = attributes.get("username", "")
                if not probes and username.startswith(PROBE_USERNAME):
                    continue
                out[(attributes.get("service", ""), username)] = secret
            return out

    def clear(self) -> None:
        from secretstorage.exceptions import ItemNotFoundException

        with self.connect() as conn:
            for item in _present_items(conn):
                with contextlib.suppress(ItemNotFoundException):  # a probe its check deleted first
                    item.delete()


def _present_items(conn: Any) -> Iterator[Any]:
    """The default collection's items that still exist when opened.

    ``Collection.get_all_items`` opens each listed item inside its own generator, so an item
    deleted between the listing and its opening (a keyring check's probe) raises from the
    iteration itself, where the caller cannot skip it."""
    import secretstorage
    from jeepney import DBusAddress, Properties
    from secretstorage.exceptions import ItemNotFoundException

    collection = secretstorage.Collection(conn)
    listing = DBusAddress(collection.collection_path, bus_name="org.freedesktop.secrets",
                          interface="org.freedesktop.Secret.Collection")
    for path in conn.send_and_get_reply(Properties(listing).get("Items"), timeout=180).body[0][1]:
        try:
            item = secretstorage.Item(conn, path)
        except ItemNotFoundException:
            continue
        yield item

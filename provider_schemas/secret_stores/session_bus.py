"""Connections to the D-Bus session bus for the Secret Service, without a speed test in them.

``secretstorage.dbus_init`` (which the ``keyring`` package's Secret Service backend calls for
every get, set and delete) opens its connection with jeepney's default of one second for the bus
to answer the authentication handshake. A busy machine can take longer than that, and the keyring
then looked unusable (a 503) although it worked: the outcome of a check depended on the machine's
speed. Here the bus gets ``BUS_HANG_GUARD_SECONDS``, a bound that only stops a bus that hangs
(docs/security.md, "The keyring check"); a bus that does not answer in that time is reported as an
unreachable Secret Service, with the reason in words. The connections are lent from a small pool
rather than opened per call: a stream of short-lived clients can make gnome-keyring abort
(docs/security.md, "Few connections to the keyring").

``install()`` puts ``patient_dbus_init`` in place of ``secretstorage.dbus_init``: the ``keyring``
backend looks that function up on the module at every call and offers no other way to choose the
connection's limit. secretstorage and jeepney exist on Linux only (keyring depends on them there).
"""

from __future__ import annotations

import os
import socket
import threading
from typing import Any

try:
    import secretstorage
    from secretstorage.exceptions import SecretServiceNotAvailableException
except ImportError:  # macOS, Windows: no Secret Service backend, nothing to install
    secretstorage = None

    class SecretServiceNotAvailableException(Exception):  # type: ignore[no-redef]
        pass


# Long enough that only a bus that has stopped answering reaches it; short enough that a page
# asking a hung Secret Service still answers (the check stops at the first call that ran out of
# time: probe.py). Tests may set a shorter one to see that reason.
BUS_HANG_GUARD_SECONDS = 30.0


class BusNotAnswering(SecretServiceNotAvailableException):
    """The session bus accepted the connection but did not complete its handshake, or did not
    answer a call, in time."""


# Connections kept open between keyring calls (docs/security.md, "Few connections to the keyring"):
# gnome-keyring can abort when a new client's first request races its bookkeeping of that client,
# and the keyring package would otherwise open (and close) a new connection for every call.
POOL_SIZE = 4

_pool: list[Any] = []  # idle jeepney connections of _pool_key
_pool_key: tuple[int, str] = (0, "")
_pool_lock = threading.Lock()

_SERVICE_INTERFACE = "org.freedesktop.Secret.Service"
_SESSION_INTERFACE = "org.freedesktop.Secret.Session"


def _key() -> tuple[int, str]:
    # Per process (a forked child must not share its parent's socket) and per bus address.
    return (os.getpid(), os.environ.get("DBUS_SESSION_BUS_ADDRESS", ""))


def _still_open(connection: Any) -> bool:
    """True unless the bus closed this idle connection (peeked without blocking or reading)."""
    try:
        return connection.sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) != b""
    except BlockingIOError:
        return True  # nothing to read: open and quiet
    except OSError:
        return False


class LentConnection:
    """A pooled connection lent to one keyring call. ``close()`` gives it back: it closes the Secret
    Service sessions the call opened (they would pile up in the daemon otherwise) and returns the
    connection to the pool, unless the call broke it."""

    def __init__(self, connection: Any) -> None:
        self._connection = connection
        self._sessions: list[str] = []
        self._broken = False
        self._returned = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._connection, name)

    def send_and_get_reply(self, message: Any, *, timeout: float | None = None) -> Any:
        try:
            reply = self._connection.send_and_get_reply(
                message, timeout=BUS_HANG_GUARD_SECONDS if timeout is None else timeout
            )
        except TimeoutError as exc:
            self._broken = True  # its reply may still come: never lend it again
            raise BusNotAnswering(
                f"the D-Bus session bus did not answer within {BUS_HANG_GUARD_SECONDS:g} seconds"
            ) from exc
        except OSError:
            self._broken = True
            raise
        fields = message.header.fields
        if _member(fields) == ("OpenSession", _SERVICE_INTERFACE) and _is_return(reply):
            self._sessions.append(reply.body[1])
        return reply

    def close(self) -> None:
        if self._returned:
            return
        self._returned = True
        for path in self._sessions:
            self._close_session(path)
        _give_back(self._connection, usable=not self._broken)

    def _close_session(self, path: str) -> None:
        from jeepney import DBusAddress, new_method_call

        if self._broken:
            return
        address = DBusAddress(path, bus_name="org.freedesktop.secrets", interface=_SESSION_INTERFACE)
        try:
            self._connection.send_and_get_reply(new_method_call(address, "Close"), timeout=BUS_HANG_GUARD_SECONDS)
        except Exception:
            self._broken = True


def _member(fields: dict) -> tuple[str, str]:
    from jeepney import HeaderFields

    return fields.get(HeaderFields.member, ""), fields.get(HeaderFields.interface, "")


def _is_return(reply: Any) -> bool:
    from jeepney import MessageType

    return reply.header.message_type == MessageType.method_return


def _give_back(connection: Any, *, usable: bool) -> None:
    with _pool_lock:
        if usable and _pool_key == _key() and len(_pool) < POOL_SIZE:
            _pool.append(connection)
            return
    connection.close()


def _borrow() -> Any | None:
    global _pool_key
    with _pool_lock:
        if _pool_key != _key():
            # Another bus, or a forked child's copies of its parent's sockets (closing the copies
            # leaves the parent's open; sending on them would mix two processes' messages).
            for connection in _pool:
                connection.close()
            _pool.clear()
            _pool_key = _key()
        while _pool:
            connection = _pool.pop()
            if _still_open(connection):
                return connection
            connection.close()
    return None


def patient_dbus_init() -> Any:
    """``secretstorage.dbus_init`` with a hang guard instead of a one-second limit, lending a pooled
    connection when one is idle."""
    from jeepney.io.blocking import open_dbus_connection
    from secretstorage.util import add_match_rules

    pooled = _borrow()
    if pooled is not None:
        return LentConnection(pooled)
    seconds = BUS_HANG_GUARD_SECONDS
    try:
        connection = open_dbus_connection(bus="SESSION", auth_timeout=seconds)
    except KeyError as exc:  # DBUS_SESSION_BUS_ADDRESS is not set
        raise SecretServiceNotAvailableException(f"Environment variable {exc.args[0]} is unset") from exc
    except TimeoutError as exc:
        raise BusNotAnswering(f"the D-Bus session bus did not answer within {seconds:g} seconds") from exc
    except (ConnectionError, ValueError) as exc:
        raise SecretServiceNotAvailableException(str(exc)) from exc
    try:
        add_match_rules(connection)
    except BaseException:
        connection.close()
        raise
    return LentConnection(connection)


def install() -> None:
    """Make every Secret Service call of this process connect through ``patient_dbus_init``."""
    if secretstorage is not None:
        secretstorage.dbus_init = patient_dbus_init

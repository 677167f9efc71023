"""Connections to the D-Bus session bus for the Secret Service, without a speed test in them.

``secretstorage.dbus_init`` (which the ``keyring`` package's Secret Service backend calls for
every get, set and delete) opens its connection with jeepney's default of one second for the bus
to answer the authentication handshake. A busy machine can take longer than that, and the keyring
then looked unusable (a 503) although it worked: the outcome of a check depended on the machine's
speed. Here the bus gets ``BUS_HANG_GUARD_SECONDS``, a bound that only stops a bus that hangs
(docs/security.md, "The keyring check"); a bus that does not answer in that time is reported as an
unreachable Secret Service, with the reason in words.

``install()`` puts ``patient_dbus_init`` in place of ``secretstorage.dbus_init``: the ``keyring``
backend looks that function up on the module at every call and offers no other way to choose the
connection's limit. secretstorage and jeepney exist on Linux only (keyring depends on them there).
"""

from __future__ import annotations

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
    """The session bus accepted the connection but did not complete its handshake in time."""


def patient_dbus_init() -> Any:
    """``secretstorage.dbus_init`` with a hang guard instead of a one-second limit."""
    from jeepney.io.blocking import open_dbus_connection
    from secretstorage.util import add_match_rules

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
    return connection


def install() -> None:
    """Make every Secret Service call of this process connect through ``patient_dbus_init``."""
    if secretstorage is not None:
        secretstorage.dbus_init = patient_dbus_init

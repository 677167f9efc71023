"""Is the OS keyring usable for a home? Checked before anything is promised or written.

The check: the ``keyring`` package has a real backend (not ``keyring.backends.fail``, not
``keyring.backends.null``, not a chainer with nothing to chain), a Secret Service collection is
not locked (asked without prompting), and a probe entry survives a set/get/delete round trip under
the home's service name (``memory-panel:<home>``). The probe value is random and never leaves this module.

A failed check names the backend, a ``problem`` code the panel translates, and a ``platform``
code selecting the advice (Linux desktop, headless Linux, macOS, Windows).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import sys
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

from provider_schemas.errors import SecretStoreUnavailable
from provider_schemas.secret_stores.backend import keyring_service, load_keyring

if TYPE_CHECKING:
    from keyring.backend import KeyringBackend

# keyring, secretstorage and session_bus are imported by the functions that ask the keyring
# (load_keyring also makes its Secret Service calls connect through session_bus): importing this
# module, which the provider pages do, costs nothing until a check runs (docs/performance.md).

# Each check writes its own entry (this prefix and a random suffix): two checks at the same moment
# (two tabs, a page and its stream) would otherwise overwrite or delete each other's probe.
PROBE_USERNAME = "memory-panel-probe"

# One check at a time per process: a page, its stream and a save in one server each ask, and each
# check is several D-Bus round trips; at the same moment they would only repeat one answer.
_ONE_CHECK_AT_A_TIME = threading.Lock()

# Problem codes (stable: the panel translates them).
NO_BACKEND = "no_backend"
FAIL_BACKEND = "fail_backend"
NULL_BACKEND = "null_backend"
NO_SERVICE = "no_service"
LOCKED = "locked"
ROUND_TRIP = "round_trip"
ERROR = "error"

# Problems a second round trip is asked about before they are reported: a Secret Service that
# drops one call (a daemon being restarted or replaced on the bus) is not an unusable keyring.
_ASKED_AGAIN = (NO_SERVICE, ROUND_TRIP, ERROR)

LINUX = "linux"
HEADLESS = "headless"
MACOS = "macos"
WINDOWS = "windows"

_ENGLISH = {
    NO_BACKEND: "no keyring backend is installed",
    FAIL_BACKEND: "the keyring package found no usable backend and fell back to keyring.backends.fail",
    NULL_BACKEND: "the keyring backend keyring.backends.null stores nothing",
    NO_SERVICE: "the backend cannot reach its keyring service or open its collection",
    LOCKED: "the keyring is locked",
    ROUND_TRIP: "a test entry did not read back as written",
    ERROR: "the keyring reported an error",
}
_ADVICE = {
    LINUX: "Run a Secret Service such as gnome-keyring or KWallet and unlock it in this session.",
    HEADLESS: "This machine has no desktop session: keep the .env file store, or start a Secret Service "
    "as the README's “Where secrets live” explains.",
    MACOS: "Use the macOS keychain of the account that runs the panel, unlocked.",
    WINDOWS: "Use the Windows Credential Manager of the account that runs the panel.",
}


@dataclass(frozen=True)
class KeyringCheck:
    """The outcome of ``check_keyring``: ``usable``, else why (``problem``, ``detail``)."""

    usable: bool
    backend: str
    problem: str = ""
    detail: str = ""  # the backend's own words (exception type and text), never a value
    platform: str = LINUX

    def english(self) -> str:
        """One English sentence for logs and commands (the panel translates the codes instead)."""
        if self.usable:
            return f"The keyring ({self.backend}) is usable."
        text = f"The keyring cannot be used ({self.backend}): {_ENGLISH.get(self.problem, _ENGLISH[ERROR])}"
        if self.detail:
            text += f" ({self.detail})"
        return f"{text}. {_ADVICE[self.platform]}"

    def error(self) -> SecretStoreUnavailable:
        return SecretStoreUnavailable(self.english(), check=self)


def current_platform() -> str:
    if sys.platform == "darwin":
        return MACOS
    if sys.platform.startswith(("win", "cygwin")):
        return WINDOWS
    if os.environ.get("DBUS_SESSION_BUS_ADDRESS") or os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return LINUX
    return HEADLESS


def backend_name(backend: KeyringBackend | None) -> str:
    if backend is None:
        return "none"
    cls = type(backend)
    return f"{cls.__module__}.{cls.__qualname__}"


def _real_backends(backend: KeyringBackend) -> list[KeyringBackend]:
    from keyring.backends.chainer import ChainerBackend

    if isinstance(backend, ChainerBackend):
        return list(backend.backends)
    return [backend]


def problem_of(exc: BaseException) -> str:
    """The problem code of an exception raised by a keyring call."""
    from keyring.errors import InitError, KeyringLocked, NoKeyringError

    from provider_schemas.secret_stores import session_bus

    if isinstance(exc, KeyringLocked):
        return LOCKED
    if isinstance(exc, NoKeyringError):
        return FAIL_BACKEND
    if isinstance(exc, (InitError, ConnectionError, FileNotFoundError,
                        session_bus.SecretServiceNotAvailableException)):
        return NO_SERVICE  # no bus, no service on it, or no collection to open
    text = f"{type(exc).__name__} {exc}".lower()
    if "not available" in text or "secretservicenotavailable" in text or "dbus" in text or "connect" in text:
        return NO_SERVICE
    if "locked" in text or "unlock" in text:
        return LOCKED
    return ERROR


def describe_exception(exc: BaseException, *, hide: str | None = None) -> str:
    text = f"{type(exc).__name__}: {exc}".strip().rstrip(":")
    return text.replace(hide, "***") if hide else text


def _locked_without_prompt(backend: KeyringBackend) -> bool:
    """True when ``backend`` is the Secret Service one and its collection is locked. Asked directly,
    because the backend itself would ask the desktop to show an unlock prompt and wait for it: a
    check that runs when a page is shown must neither pop up dialogs nor hang."""
    from keyring.backends import SecretService

    from provider_schemas.secret_stores import session_bus

    if not isinstance(backend, SecretService.Keyring):
        return False
    try:
        import secretstorage

        connection = session_bus.patient_dbus_init()
    except session_bus.BusNotAnswering:
        raise  # a hung bus: check_keyring reports it without asking again
    except Exception:
        return False  # no bus or no service: the round trip reports it with the backend's words
    try:
        path = getattr(backend, "preferred_collection", None)
        collection = (
            secretstorage.Collection(connection, path) if path else secretstorage.get_default_collection(connection)
        )
        return bool(collection.is_locked())
    except Exception:
        return False
    finally:
        with contextlib.suppress(Exception):
            connection.close()


def check_keyring(*, home: os.PathLike[str] | str) -> KeyringCheck:
    """Whether new secrets of ``home`` can go to the keyring right now (see the module docstring)."""
    keyring = load_keyring()
    from keyring.backends import fail, null

    from provider_schemas.secret_stores import session_bus

    platform = current_platform()
    try:
        backend = keyring.get_keyring()
    except Exception as exc:  # a broken keyring configuration (keyringrc, PYTHON_KEYRING_BACKEND)
        return KeyringCheck(False, "none", NO_BACKEND, describe_exception(exc), platform)
    name = backend_name(backend)
    chained = _real_backends(backend)
    if not chained:
        return KeyringCheck(False, name, NO_BACKEND, "", platform)
    if all(isinstance(b, fail.Keyring) for b in chained):
        return KeyringCheck(False, name, FAIL_BACKEND, "", platform)
    if all(isinstance(b, (fail.Keyring, null.Keyring)) for b in chained):
        return KeyringCheck(False, name, NULL_BACKEND, "", platform)
    with _ONE_CHECK_AT_A_TIME:
        try:
            if any(_locked_without_prompt(b) for b in chained):
                return KeyringCheck(False, name, LOCKED, "", platform)
            result = _round_trip(backend, name=name, home=home, platform=platform)
            if result.problem in _ASKED_AGAIN:
                result = _round_trip(backend, name=name, home=home, platform=platform)
            return result
        except session_bus.BusNotAnswering as exc:
            # Only a hung bus gets here (session_bus.py): asking again would wait as long once more.
            return KeyringCheck(False, name, NO_SERVICE, describe_exception(exc), platform)


def _round_trip(backend: KeyringBackend, *, name: str, home: os.PathLike[str] | str, platform: str) -> KeyringCheck:
    """A probe entry written, read back, deleted and found gone."""
    from keyring.errors import KeyringError

    from provider_schemas.secret_stores import session_bus

    service = keyring_service(home)  # type: ignore[arg-type]
    value = f"probe-{secrets.token_hex(8)}"
    username = f"{PROBE_USERNAME}-{secrets.token_hex(4)}"
    try:
        backend.set_password(service, username, value)
        read_back = backend.get_password(service, username)
        backend.delete_password(service, username)
        gone = backend.get_password(service, username) is None
    except session_bus.BusNotAnswering:
        raise
    except (KeyringError, RuntimeError, OSError, ValueError) as exc:
        return KeyringCheck(False, name, problem_of(exc), describe_exception(exc, hide=value), platform)
    except Exception as exc:  # backends raise their own types (secretstorage, jeepney, D-Bus)
        return KeyringCheck(False, name, problem_of(exc), describe_exception(exc, hide=value), platform)
    if read_back != value or not gone:
        return KeyringCheck(False, name, ROUND_TRIP, "", platform)
    return KeyringCheck(True, name, platform=platform)


def require_keyring(*, home: os.PathLike[str] | str) -> KeyringCheck:
    """``check_keyring`` that raises ``SecretStoreUnavailable`` (with the check) when unusable."""
    result = check_keyring(home=home)
    if not result.usable:
        raise result.error()
    return result

"""The OS keyring as a secret store (docs/agent_formats.md §Provider secrets).

Service ``memory-panel:<resolved HERMES_HOME>``, user name = the variable name. Every keyring
failure becomes ``SecretStoreUnavailable`` with a reason that never contains a secret value; that
includes backends' own exception types, which are not all ``KeyringError`` (secretstorage raises
``SecretServiceNotAvailableException`` when no session bus is reachable).
"""

from __future__ import annotations

from pathlib import Path

from provider_schemas.errors import SecretStoreUnavailable
from provider_schemas.secret_stores import probe
from provider_schemas.secret_stores.backend import keyring_service, load_keyring


def _unavailable(exc: BaseException, *, hide: str | None = None) -> SecretStoreUnavailable:
    """The error a failed keyring call becomes: the same diagnosis the probe gives (backend,
    problem, advice for this platform), so every page says the same thing."""
    try:
        backend = probe.backend_name(load_keyring().get_keyring())
    except Exception:
        backend = "none"
    check = probe.KeyringCheck(
        usable=False,
        backend=backend,
        problem=probe.problem_of(exc),
        detail=probe.describe_exception(exc, hide=hide),
        platform=probe.current_platform(),
    )
    return check.error()


class KeyringStore:
    """Thin wrapper over the ``keyring`` package for one home."""

    def __init__(self, home: Path) -> None:
        self.home = Path(home)
        self.service = keyring_service(home)

    def require_usable(self) -> None:
        """Raise ``SecretStoreUnavailable`` unless a probe round trip works right now (run before
        anything is written, so a keyring locked since the page was shown changes nothing)."""
        probe.require_keyring(home=self.home)

    def get(self, name: str) -> str | None:
        try:
            return load_keyring().get_password(self.service, name)
        except Exception as exc:
            raise _unavailable(exc) from None

    def set(self, name: str, value: str) -> None:
        try:
            load_keyring().set_password(self.service, name, value)
        except Exception as exc:
            raise _unavailable(exc, hide=value) from None

    def delete(self, name: str) -> None:
        keyring = load_keyring()
        from keyring.errors import PasswordDeleteError

        try:
            keyring.delete_password(self.service, name)
        except PasswordDeleteError:
            return  # already absent
        except Exception as exc:
            raise _unavailable(exc) from None

    def get_many(self, names: list[str]) -> dict[str, str]:
        """Values of the names that are set (non-empty)."""
        out: dict[str, str] = {}
        for name in dict.fromkeys(names):
            value = self.get(name)
            if value:
                out[name] = value
        return out

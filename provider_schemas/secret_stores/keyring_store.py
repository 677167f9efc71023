"""The OS keyring as a secret store (config-schema.md §6.4).

Service ``memory-panel:<resolved HERMES_HOME>``, user name = the variable name. Every keyring
failure becomes ``SecretStoreUnavailable`` with a reason that never contains a secret value.
"""

from __future__ import annotations

import os
from pathlib import Path

import keyring
from keyring.errors import KeyringError, PasswordDeleteError

from provider_schemas.errors import SecretStoreUnavailable


def keyring_service(home: Path) -> str:
    return f"memory-panel:{os.path.realpath(home)}"


def _reason(exc: BaseException, *, hide: str | None = None) -> str:
    text = f"{type(exc).__name__}: {exc}".strip().rstrip(":")
    if hide:
        text = text.replace(hide, "***")
    return text


class KeyringStore:
    """Thin wrapper over the ``keyring`` package for one home."""

    def __init__(self, home: Path) -> None:
        self.service = keyring_service(home)

    def get(self, name: str) -> str | None:
        try:
            return keyring.get_password(self.service, name)
        except (KeyringError, RuntimeError, OSError) as exc:
            raise SecretStoreUnavailable(_reason(exc)) from None

    def set(self, name: str, value: str) -> None:
        try:
            keyring.set_password(self.service, name, value)
        except (KeyringError, RuntimeError, OSError) as exc:
            raise SecretStoreUnavailable(_reason(exc, hide=value)) from None

    def delete(self, name: str) -> None:
        try:
            keyring.delete_password(self.service, name)
        except PasswordDeleteError:
            return  # already absent
        except (KeyringError, RuntimeError, OSError) as exc:
            raise SecretStoreUnavailable(_reason(exc)) from None

    def get_many(self, names: list[str]) -> dict[str, str]:
        """Values of the names that are set (non-empty)."""
        out: dict[str, str] = {}
        for name in dict.fromkeys(names):
            value = self.get(name)
            if value:
                out[name] = value
        return out

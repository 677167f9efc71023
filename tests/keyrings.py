"""In-memory keyring backends, so tests never touch the machine's real keyring."""

from __future__ import annotations

from keyring.backend import KeyringBackend
from keyring.errors import KeyringLocked, PasswordDeleteError


class DictKeyring(KeyringBackend):
    """A keyring kept in a dict, so tests never touch the machine's real one."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.entries: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.entries.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.entries[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if (service, username) not in self.entries:
            raise PasswordDeleteError("not found")
        del self.entries[(service, username)]


class LockedKeyring(KeyringBackend):
    """A keyring that refuses every call, like a locked desktop keyring."""

    priority = 1  # type: ignore[assignment]

    def get_password(self, service: str, username: str) -> str | None:
        raise KeyringLocked("the keyring is locked")

    def set_password(self, service: str, username: str, password: str) -> None:
        raise KeyringLocked("the keyring is locked")

    def delete_password(self, service: str, username: str) -> None:
        raise KeyringLocked("the keyring is locked")

"""A keyring that kills its own process at a chosen call, for crash tests against the real one.

``python -m tests.killing_keyring HOME TO METHOD N`` moves HOME's secrets to TO through the real
Secret Service (``DBUS_SESSION_BUS_ADDRESS`` from the environment) and SIGKILLs itself just before
the N-th ``METHOD`` (``set_password`` or ``delete_password``) of a panel entry (the probe's own
entry does not count). The move is therefore interrupted exactly where the test wants it.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import keyring
from keyring.backend import KeyringBackend
from keyring.backends import SecretService

from provider_schemas.secret_stores.probe import PROBE_USERNAME


class KillingKeyring(KeyringBackend):
    priority = 1  # type: ignore[assignment]

    def __init__(self, method: str, nth: int) -> None:
        super().__init__()
        self.real = SecretService.Keyring()
        self.method, self.nth, self.seen = method, nth, 0

    def _maybe_die(self, method: str, username: str) -> None:
        if method == self.method and not username.startswith(PROBE_USERNAME):
            self.seen += 1
            if self.seen == self.nth:
                os.kill(os.getpid(), signal.SIGKILL)

    def get_password(self, service: str, username: str) -> str | None:
        return self.real.get_password(service, username)

    def set_password(self, service: str, username: str, password: str) -> None:
        self._maybe_die("set_password", username)
        self.real.set_password(service, username, password)

    def delete_password(self, service: str, username: str) -> None:
        self._maybe_die("delete_password", username)
        self.real.delete_password(service, username)


def main(argv: list[str]) -> int:
    from provider_schemas.saving.secret_moves import move_secrets

    home, to, method, nth = argv
    keyring.set_keyring(KillingKeyring(method, int(nth)))
    move_secrets(home=Path(home), to=to)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""The ``keyring`` package and the service name the panel files secrets under, below both the store
(``keyring_store``) and its diagnosis (``probe``), so neither imports the other back."""

from __future__ import annotations

import os
from pathlib import Path
from types import ModuleType


def load_keyring() -> ModuleType:
    """The ``keyring`` package, imported at its first use: with its Secret Service backend
    (secretstorage, jeepney, cryptography) it is a large share of a fresh process's imports,
    which pages that never ask the keyring should not pay for (docs/performance.md)."""
    import keyring

    from provider_schemas.secret_stores import session_bus

    # Every Secret Service call of this process waits for a busy bus instead of failing after a second.
    session_bus.install()
    return keyring


def keyring_service(home: Path) -> str:
    return f"memory-panel:{os.path.realpath(home)}"

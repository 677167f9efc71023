"""The environment a keyring user starts the agent with (``manage.py secrets exec``)."""

from __future__ import annotations

from pathlib import Path

from provider_schemas.discovery import discover
from provider_schemas.secret_stores.keyring_store import KeyringStore


def declared_secret_variables(*, home: Path) -> list[str]:
    """The ``env_key`` of every secret of every discoverable provider with a loadable schema."""
    names: list[str] = []
    for entry in discover(home=home).providers:
        if entry.schema is None:
            continue
        names.extend(f.env_key for f in entry.schema.fields if f.is_secret and f.env_key)
    return list(dict.fromkeys(names))


def keyring_environment(*, home: Path) -> dict[str, str]:
    """Variable → value for every declared secret found in the keyring (missing ones skipped).
    Raises ``SecretStoreUnavailable``."""
    return KeyringStore(Path(home)).get_many(declared_secret_variables(home=home))

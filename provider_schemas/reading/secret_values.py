"""The environment a keyring user starts the agent with (``manage.py secrets exec``)."""

from __future__ import annotations

from pathlib import Path

from provider_schemas.errors import SecretStoreUnavailable
from provider_schemas.loading.discovery import discover
from provider_schemas.loading.lint import _names_a_credential as names_a_credential  # the one credential-name rule
from provider_schemas.secret_stores.keyring_store import KeyringStore
from provider_schemas.storage.env_file import read_env


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


def stored_secret_values(*, home: Path) -> dict[str, str]:
    """Variable → value of every secret the panel holds for ``home``: the declared secrets and any
    variable named like a credential (``…_KEY``, ``…_TOKEN``, ``…_PASSWORD``) in ``.env``, and the
    declared secrets in the keyring (skipped when the keyring cannot be reached). For masking
    them wherever the panel shows agent text; never for display."""
    declared = declared_secret_variables(home=home)
    env = read_env(Path(home) / ".env")
    values: dict[str, str] = {}
    for name, value in env.values.items():
        if value and (name in declared or names_a_credential(name)):
            values[name] = value
    try:
        for name, value in KeyringStore(Path(home)).get_many(declared).items():
            values.setdefault(name, value)
    except SecretStoreUnavailable:
        pass  # an unreachable keyring holds nothing the panel could show either
    return values

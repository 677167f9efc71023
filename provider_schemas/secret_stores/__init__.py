"""Where secrets live: the agent's ``.env`` (default) or the OS keyring (opt-in per home)."""

from __future__ import annotations

from provider_schemas.secret_stores.backend import keyring_service
from provider_schemas.secret_stores.keyring_store import KeyringStore

ENV_FILE = "env_file"
KEYRING = "keyring"
SECRET_STORES = (ENV_FILE, KEYRING)

__all__ = ["ENV_FILE", "KEYRING", "SECRET_STORES", "KeyringStore", "keyring_service"]

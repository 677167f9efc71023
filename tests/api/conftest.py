"""Every API test runs with HOME pointed at an empty folder: ``~/.honcho/config.json`` and
``~/.hindsight/config.json`` are read (and honcho may be written) there, never in the real home."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest

from provider_schemas.loader import clear_schema_cache
from tests.providers_ui.helpers import DictKeyring


@pytest.fixture(autouse=True)
def isolated_user_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "user-home"
    path.mkdir()
    monkeypatch.setenv("HOME", str(path))
    monkeypatch.delenv("HERMES_HONCHO_HOST", raising=False)
    return path


@pytest.fixture
def dict_keyring() -> Iterator[DictKeyring]:
    previous = keyring.get_keyring()
    backend = DictKeyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(previous)


@pytest.fixture(autouse=True)
def fresh_schema_cache() -> Iterator[None]:
    yield
    clear_schema_cache()

"""Fixtures for provider_schemas tests: isolated agent homes, user plugins, an in-memory keyring.

``agent_home`` is an empty HERMES_HOME with ``HOME`` pointed at an empty folder beside it, so the
legacy lookups in ``~`` (``~/.honcho/config.json``, ``~/.hindsight/config.json``) only see what a
test puts there (``user_home``).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError

from provider_schemas.loader import clear_schema_cache

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "schemas"
MARKER_INIT = "# A memory provider plugin: register_memory_provider(...) lives here.\n"


class MemoryKeyring(KeyringBackend):
    """A keyring kept in a dict (tests only)."""

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


@pytest.fixture
def user_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "user"
    path.mkdir()
    monkeypatch.setenv("HOME", str(path))
    monkeypatch.delenv("HERMES_HONCHO_HOST", raising=False)
    return path


@pytest.fixture
def agent_home(tmp_path: Path, user_home: Path) -> Path:
    path = tmp_path / "hermes"
    path.mkdir()
    return path


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(previous)


@pytest.fixture(autouse=True)
def _fresh_schema_cache() -> Iterator[None]:
    clear_schema_cache()
    yield
    clear_schema_cache()


def install_plugin(home: Path, name: str, *, source: str | None = None, fixture: str | None = None) -> Path:
    """Create ``HERMES_HOME/plugins/<name>/`` as a memory-provider plugin with a schema file."""
    directory = Path(home) / "plugins" / name
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "__init__.py").write_text(MARKER_INIT, encoding="utf-8")
    if fixture is not None:
        shutil.copyfile(FIXTURES / fixture / "config_schema.py", directory / "config_schema.py")
    elif source is not None:
        (directory / "config_schema.py").write_text(source, encoding="utf-8")
    return directory


@pytest.fixture
def plugin(agent_home: Path):
    """``plugin("jsonprov")`` installs the fixture provider of that name into ``agent_home``."""

    def _install(name: str) -> Path:
        return install_plugin(agent_home, name, fixture=name)

    return _install

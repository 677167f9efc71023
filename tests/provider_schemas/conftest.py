"""Fixtures for provider_schemas tests: isolated agent homes, user plugins, an in-memory keyring.

``agent_home`` is an empty HERMES_HOME with ``HOME`` pointed at an empty folder beside it, so the
legacy lookups in ``~`` (``~/.honcho/config.json``, ``~/.hindsight/config.json``) only see what a
test puts there (``user_home``).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from provider_schemas.saving.locks import recover

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "schemas"
MARKER_INIT = "# A memory provider plugin: register_memory_provider(...) lives here.\n"


@pytest.fixture
def agent_home(tmp_path: Path, user_home: Path) -> Path:
    path = tmp_path / "hermes"
    path.mkdir()
    recover(home=path)  # as ``serve`` does at start-up: the save lock exists from then on
    return path


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

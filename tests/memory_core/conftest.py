"""Fixtures for memory_core: real homes on disk, stores built the way docs/agent_formats.md describes them."""

from __future__ import annotations

import multiprocessing
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from memory_core import MemoryStore

NOBODY = 65534


def pytest_configure(config: pytest.Config) -> None:
    # test_command.py marks its tests django_db; under ``-p no:django`` the mark is unknown and
    # --strict-markers would refuse the module instead of letting it skip.
    if not config.pluginmanager.hasplugin("django"):
        config.addinivalue_line("markers", "django_db: needs pytest-django (skipped without it)")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A fresh, empty agent home (overrides the Django-aware fixture of the same name)."""
    path = tmp_path / "hermes"
    path.mkdir()
    return path


@pytest.fixture
def memories(home: Path) -> Path:
    path = home / "memories"
    path.mkdir()
    return path


@pytest.fixture
def make_store(home: Path) -> Callable[..., MemoryStore]:
    """``MemoryStore(home, 500, 300)`` after ``load_from_disk()``, the agent-compatible default
    (docs/agent_formats.md §Store operations)."""

    def make(memory_limit: int = 500, user_limit: int = 300, **kwargs: Any) -> MemoryStore:
        store = MemoryStore(home, memory_limit, user_limit, **kwargs)
        store.load_from_disk()
        return store

    return make


@pytest.fixture
def store(make_store: Callable[..., MemoryStore]) -> MemoryStore:
    return make_store()


def write_file(home: Path, name: str, data: str | bytes) -> Path:
    path = home / "memories" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def read_bytes(home: Path, name: str = "MEMORY.md") -> bytes:
    return (home / "memories" / name).read_bytes()


def _as_nobody(queue: Any, func: Callable[..., Any], args: tuple[Any, ...]) -> None:
    # The interpreter's library and this checkout may sit in folders only root can read (a pyenv
    # under /root, a clone in a private temporary folder): what the code imports lazily (the
    # agent-release check reads state.db) is imported before the drop.
    import sqlite3  # noqa: F401
    import urllib.parse  # noqa: F401

    import memory_core.agent_release
    import memory_core.history.db
    import memory_core.history.schema
    import memory_core.safe_paths  # noqa: F401

    try:
        os.setgid(NOBODY)
        os.setuid(NOBODY)
        queue.put(("ok", func(*args)))
    except BaseException as exc:  # report anything back to the test
        queue.put(("error", f"{type(exc).__name__}: {exc}"))


@pytest.fixture
def unprivileged_home() -> Iterator[Path]:
    """A home an unprivileged user owns, outside pytest's private (0700) temp folder."""
    root = Path(tempfile.mkdtemp(prefix="mc-nobody-"))
    os.chmod(root, 0o755)  # noqa: S103 - the unprivileged user must reach the home
    home = root / "hermes"
    home.mkdir()
    if os.geteuid() == 0:
        os.chown(home, NOBODY, NOBODY)
    yield home
    for dirpath, dirnames, _files in os.walk(root):
        for name in dirnames:
            os.chmod(os.path.join(dirpath, name), 0o755)  # noqa: S103 - undo read-only dirs for cleanup
    shutil.rmtree(root, ignore_errors=True)


def run_unprivileged(func: Callable[..., Any], *args: Any) -> Any:
    """Run ``func(*args)`` as a non-root user: in a spawned process that drops to ``nobody`` when
    the tests run as root (permission checks do not apply to root), else in this process."""
    if os.geteuid() != 0:
        return func(*args)
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    process = context.Process(target=_as_nobody, args=(queue, func, args))
    process.start()
    status, value = queue.get(timeout=180)
    process.join(timeout=180)
    if status != "ok":
        raise AssertionError(f"unprivileged run failed: {value}")
    return value

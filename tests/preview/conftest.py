"""Schema files for the preview tests, written into tmp_path homes."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

NOTES_SCHEMA = '''\
from plugins.memory.config_schema import (
    KIND_NUMBER,
    KIND_SECRET,
    KIND_SELECT,
    STORAGE_JSON_FILE,
    ProviderConfigSchema,
    ProviderField,
    ProviderFieldOption,
)

CONFIG_SCHEMA = ProviderConfigSchema(
    name="notes",
    label="Notes",
    storage=STORAGE_JSON_FILE,
    storage_path="notes.json",
    fields=(
        ProviderField("mode", "Mode", kind=KIND_SELECT, default="cloud", inline=True,
                      options=(ProviderFieldOption("cloud", "Cloud"),
                               ProviderFieldOption("local", "Local"))),
        ProviderField("api_key", "API key", kind=KIND_SECRET, env_key="NOTES_API_KEY", inline=True),
        ProviderField("url", "Server URL", when={"mode": "local"}),
        ProviderField("limit", "Result limit", kind=KIND_NUMBER, default="10"),
    ),
)
'''

MARKER = (
    "from agent.memory_provider import MemoryProvider\n\n"
    "def register(ctx):\n    ctx.register_memory_provider(None)\n"
)


def write_schema(path: Path, text: str) -> Path:
    """Save a schema file whole, so that its fingerprint surely changes (mtime bumped past the old
    one). Written beside it and renamed over it, as many editors save: an in-place write lets the
    preview's watcher read the truncated, empty file first, and what a test then sees would depend
    on which of the two reads it catches."""
    path.parent.mkdir(parents=True, exist_ok=True)
    old = path.stat().st_mtime_ns if path.exists() else 0
    temp = path.with_name(f".{path.name}.saving")
    temp.write_text(text, encoding="utf-8")
    now = max(time.time_ns(), old + 1_000_000)
    os.utime(temp, ns=(now, now))
    os.replace(temp, path)
    return path


def make_plugin(home: Path, name: str, text: str, *, marker: bool = True) -> Path:
    directory = home / "plugins" / name
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "__init__.py").write_text(MARKER if marker else "# not a memory provider\n", encoding="utf-8")
    return write_schema(directory / "config_schema.py", text)


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` with its bytes (to prove nothing was written)."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def notes_plugin(home: Path) -> Path:
    return make_plugin(home, "notes", NOTES_SCHEMA)

"""The package surface: every exported name resolves, and nothing pulls in Django."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import memory_core

REPO = Path(__file__).resolve().parents[2]


def test_it_resolves_every_exported_name() -> None:
    missing = [name for name in memory_core.__all__ if getattr(memory_core, name, None) is None]
    assert missing == []
    assert "MemoryStore" in dir(memory_core)


def test_it_imports_no_django_and_loads_the_store_alone() -> None:
    code = (
        "import sys, memory_core, memory_core.cli, memory_core.state, memory_core.services, memory_core.tool\n"
        "from memory_core.store import MemoryStore\n"
        "assert not [m for m in sys.modules if m == 'django' or m.startswith('django.')], 'django imported'\n"
    )
    completed = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=180)
    assert completed.returncode == 0, completed.stderr
    lean = subprocess.run(
        [sys.executable, "-c", "import sys; from memory_core.store import MemoryStore; print('yaml' in sys.modules)"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert lean.stdout.strip() == "False", "the store alone should not need YAML"

"""One folder per operation (docs/safe_paths.md): a store operation on a plain memories/ folder
resolves no path again, and a link swapped in during the operation is still handled as the
general path handles it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import memory_core.store as store_module
from memory_core import MemoryStore

from .conftest import write_file


def test_it_resolves_no_path_during_operations_on_a_plain_folder(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_file(home, "MEMORY.md", "alpha\n§\nbeta".encode())
    store = MemoryStore(home, 2000, 1000)
    store.load_from_disk()
    resolved: list[str] = []
    real = os.path.realpath

    def counting(path, *args, **kwargs):
        resolved.append(os.fspath(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os.path, "realpath", counting)
    assert store.add("memory", "gamma")["success"]
    assert store.replace("memory", "alpha", "alpha two")["success"]
    assert store.remove("memory", "beta")["success"]
    assert store.apply_batch("memory", [{"action": "add", "content": "delta"}])["success"]
    assert resolved == []
    assert (home / "memories" / "MEMORY.md").read_text(encoding="utf-8") == "alpha two\n§\ngamma\n§\ndelta"


def test_it_writes_through_a_link_inside_the_home_swapped_in_before_the_write(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_file(home, "MEMORY.md", b"alpha")
    elsewhere = home / "kept.md"
    elsewhere.write_bytes(b"alpha")
    store = MemoryStore(home, 2000, 1000)
    store.load_from_disk()
    serialise = store_module.serialise

    def swap_then_serialise(entries):
        target = home / "memories" / "MEMORY.md"
        target.unlink()
        target.symlink_to(elsewhere)
        return serialise(entries)

    monkeypatch.setattr(store_module, "serialise", swap_then_serialise)
    assert store.add("memory", "beta")["success"]
    assert (home / "memories" / "MEMORY.md").is_symlink()  # the link is kept, its target replaced
    assert elsewhere.read_text(encoding="utf-8") == "alpha\n§\nbeta"

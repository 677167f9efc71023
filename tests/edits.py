"""File edits that caches keyed on a file's stat must still notice."""

from __future__ import annotations

import os
from pathlib import Path


def rewrite_same_size(path: Path, old: str, new: str) -> None:
    """Replace ``old`` by ``new`` (same length) in place, with an mtime only 1 ns later: what a
    quick second save looks like on a filesystem with coarse timestamps."""
    assert len(old.encode()) == len(new.encode())
    before = path.stat()
    text = path.read_text(encoding="utf-8")
    assert old in text
    with open(path, "r+", encoding="utf-8") as handle:
        handle.write(text.replace(old, new))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 1))
    assert path.stat().st_size == before.st_size

"""Results worked out from a file, reused while the file keeps its stat signature.

Discovery reads the same small files on every page (each plugin's ``__init__.py`` for the marker
test, its ``plugin.yaml``, a bundled ``provider.json``), and every provider read parses
``config.yaml`` and ``.env``. Each result is kept with the stat signature it was computed under. An
edited or replaced file has another signature (an atomic replace: another inode; an edit in place:
another mtime/ctime, and usually size), so the next call computes it again.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

_FILE_CACHE_SIZE = 8192  # entries (one per file and kind), least recently used dropped first
_file_cache_lock = threading.Lock()
_file_cache: OrderedDict[tuple[str, str], tuple[tuple[int, ...], Any]] = OrderedDict()
_T = TypeVar("_T")


def file_signature(st: os.stat_result) -> tuple[int, ...]:
    return (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns, st.st_size)


def clear_read_caches() -> None:
    """Forget every reused read: the next discovery reads each file again."""
    with _file_cache_lock:
        _file_cache.clear()


def per_file_version(kind: str, path: Path, compute: Callable[[Path], _T]) -> _T:
    """``compute(path)``, reused while ``path`` keeps the stat signature it had when computed.
    ``kind`` names what is computed (one file can serve several kinds). The value is shared by
    every caller: it must not be changed."""
    try:
        signature = file_signature(os.stat(path))
    except OSError:
        return compute(path)  # absent or unreadable: cheap, and nothing to key on
    key = (kind, str(path))
    with _file_cache_lock:
        hit = _file_cache.get(key)
        if hit is not None and hit[0] == signature:
            _file_cache.move_to_end(key)
            return hit[1]
    value = compute(path)
    with _file_cache_lock:
        _file_cache[key] = (signature, value)
        _file_cache.move_to_end(key)
        while len(_file_cache) > _FILE_CACHE_SIZE:
            _file_cache.popitem(last=False)
    return value

"""The panel's one cache mechanism: values kept under a key while their inputs' fingerprint holds.

Every cache of state (what files, the history database or the panel's own records hold) is a
``KeyedCache``. An entry is stored with the fingerprint of everything it was computed from (a
file's stat signature, a database stamp, the rows it summarises); a lookup passes the fingerprint
of the inputs as they are now and gets the value only when the two are equal, so a changed input
can never be answered from the cache. Where part of an input has no version to compare (the OS
keyring, another panel process's database rows), the cache also has a ``max_age`` and the panel's
own writes drop the entries of the home they wrote to (``forget_home``). What is cached, under
which key and fingerprint, is listed in docs/caching.md.

Pure functions of their arguments keep ``functools.lru_cache``: the arguments are the key, nothing
else can change their answer, so there is nothing to invalidate.

No Django here: ``memory_core`` and ``provider_schemas`` use it, and so does the web layer.
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any, TypeVar

_T = TypeVar("_T")
MISSING: Any = object()  # what ``get`` returns when there is no valid entry

_registry_lock = threading.Lock()
_caches: list[KeyedCache] = []


class KeyedCache:
    """A bounded, thread-safe map of key → (fingerprint, value); least recently used dropped first.

    A value is shared by every caller that gets it: it must not be changed."""

    def __init__(self, name: str, *, size: int, max_age: float | None = None) -> None:
        self.name = name
        self.size = size
        self.max_age = max_age
        self._lock = threading.Lock()
        self._entries: OrderedDict[Hashable, tuple[Hashable, float, Any]] = OrderedDict()
        with _registry_lock:
            _caches.append(self)

    def get(self, key: Hashable, fingerprint: Hashable) -> Any:
        """The value stored under ``key`` for this ``fingerprint`` (and younger than ``max_age``),
        else ``MISSING``."""
        with self._lock:
            hit = self._entries.get(key)
            if hit is None or hit[0] != fingerprint:
                return MISSING
            if self.max_age is not None and time.monotonic() - hit[1] >= self.max_age:
                return MISSING
            self._entries.move_to_end(key)
            return hit[2]

    def put(self, key: Hashable, fingerprint: Hashable, value: _T) -> _T:
        """Store ``value`` (one entry per key: an older fingerprint's value is replaced)."""
        with self._lock:
            self._entries[key] = (fingerprint, time.monotonic(), value)
            self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)
        return value

    def get_or_compute(self, key: Hashable, fingerprint: Hashable, compute: Callable[[], _T]) -> _T:
        value = self.get(key, fingerprint)
        if value is MISSING:
            value = self.put(key, fingerprint, compute())
        return value

    def forget_home(self, *names: str) -> None:
        """Drop the entries of one home: those keyed by one of its ``names``, alone or first in a tuple."""
        with self._lock:
            for key in [k for k in self._entries if (k[0] if isinstance(k, tuple) and k else k) in names]:
                del self._entries[key]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)


def home_key(home: Path | str) -> str:
    """How a home is named in the keys of per-home entries (``forget_home`` drops them)."""
    return os.path.realpath(home)


def forget_home(home: Path | str) -> None:
    """Drop every cache's entries of ``home`` (keyed by its real path or by the path as the panel
    names it): called by the panel after it writes there."""
    names = (home_key(home), str(home))
    with _registry_lock:
        caches = list(_caches)
    for cache in caches:
        cache.forget_home(*names)


def clear_all() -> None:
    """Empty every cache (tests start from nothing; the benchmarks' cold figures)."""
    with _registry_lock:
        caches = list(_caches)
    for cache in caches:
        cache.clear()


# --- results computed from one file ---------------------------------------------------------------

_file_results = KeyedCache("results computed from one file", size=8192)


def file_signature(st: os.stat_result) -> tuple[int, ...]:
    """A file's version without reading it: an atomic replace gives another inode, an edit in place
    another mtime/ctime (and usually size)."""
    return (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns, st.st_size)


def per_file_version(kind: str, path: Path, compute: Callable[[Path], _T]) -> _T:
    """``compute(path)``, reused while ``path`` keeps the stat signature it had when computed.
    ``kind`` names what is computed (one file can serve several kinds)."""
    try:
        signature = file_signature(os.stat(path))
    except OSError:
        return compute(path)  # absent or unreadable: cheap, and nothing to key on
    return _file_results.get_or_compute((kind, str(path)), signature, lambda: compute(path))

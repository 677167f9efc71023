"""In-process serialisation of writes per HERMES_HOME (the web server runs several threads)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

_registry_lock = threading.Lock()
_home_locks: dict[str, threading.RLock] = {}


def home_lock(home: Path) -> threading.RLock:
    key = os.path.realpath(home)
    with _registry_lock:
        lock = _home_locks.get(key)
        if lock is None:
            lock = threading.RLock()
            _home_locks[key] = lock
        return lock

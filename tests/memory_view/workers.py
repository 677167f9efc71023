"""Code run in separate processes (multiprocessing, spawn): another writer of the same home,
as the running agent would be. Imports memory_core only, never Django."""

from __future__ import annotations

import time
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Event
from pathlib import Path


def add_after(home: str, target: str, text: str, delay: float) -> None:
    """Wait, then add one entry through memory_core (under the store lock)."""
    from memory_core import add_entry

    time.sleep(delay)
    result = add_entry(home=Path(home), target=target, content=text)
    if not result.get("success"):
        raise SystemExit(f"add failed: {result}")


def keep_adding(home: str, prefix: str, ready: Event, stop: Event, results: Queue) -> None:
    """Add distinct entries until told to stop; report the ones the store accepted."""
    from memory_core import add_entry

    accepted = []
    ready.set()
    number = 0
    while not stop.is_set() or number < 5:
        text = f"{prefix} fact number {number}"
        result = add_entry(home=Path(home), target="memory", content=text)
        if result.get("success"):
            accepted.append(text)
        number += 1
        time.sleep(0.01)
    results.put((prefix, accepted))

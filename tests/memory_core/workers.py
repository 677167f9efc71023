"""Process bodies for the multi-process tests (kept light: a spawned child imports only this)."""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path
from typing import Any

from memory_core.entries import parse_entries
from memory_core.files import read_store_file
from memory_core.store import MemoryStore

BIG = 100_000


def adder(home: str, worker: int, count: int, start: Any, results: Any, halfway: Any = None) -> None:
    """Add ``count`` distinct entries; report the ones the store said it saved.

    With ``halfway``, pause after half of them until that event is set: the test then knows that
    something else (the deleter) ran while the adds were going on, however fast either is.
    """
    store = MemoryStore(home, BIG, BIG)
    store.load_from_disk()
    start.wait(180)
    saved = []
    for index in range(count):
        if halfway is not None and index == count // 2:
            halfway.wait(180)
        text = f"worker {worker} entry {index:03d} ✓"
        result = store.add("memory", text)
        if result.get("success") and result.get("message") == "Entry added.":
            saved.append(text)
    results.put(("adder", worker, saved))


def deleter(home: str, start: Any, stop: Any, results: Any, seed: int, deleted_one: Any) -> None:
    """Delete random entries by exact text until told to stop; report what it deleted. Sets
    ``deleted_one`` after its first successful delete."""
    from memory_core.config import MemoryConfig
    from memory_core.services import delete_entries

    rng = random.Random(seed)
    config = MemoryConfig(memory_char_limit=BIG, user_char_limit=BIG)
    path = Path(home) / "memories" / "MEMORY.md"
    start.wait(180)
    deleted: list[str] = []
    while not stop.is_set():
        read = read_store_file(path)
        entries = parse_entries(read.text or "")
        if entries:
            chosen = rng.sample(entries, k=min(len(entries), rng.randint(1, 2)))
            result = delete_entries(home=home, target="memory", contents=chosen, config=config)
            if result.get("success"):
                deleted.extend(chosen)
                deleted_one.set()
        time.sleep(0.002)
    results.put(("deleter", -1, deleted))


def crash_writer(home: str, seed: int) -> None:
    """Write forever (adds, removes, batches) until killed. Entries carry their own length.

    Run as ``python -c`` (see the crash test): prints "ready" once loaded, then starts writing
    when a line arrives on stdin.
    """
    rng = random.Random(seed)
    store = MemoryStore(home, 4000, 4000)
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    sys.stdin.readline()
    store.load_from_disk()
    serial = 0
    announced = False
    while True:
        serial += 1
        size = rng.randint(1, 300)
        entry = f"entry {seed}-{serial} len={size} " + "é" * size + " end"
        store.reset_consolidation_failures()
        roll = rng.random()
        if roll < 0.6:
            result = store.add("memory", entry)
            if not result.get("success"):
                store.apply_batch("memory", [{"action": "remove", "old_text": e} for e in store.memory_entries[:3]])
        elif roll < 0.8 and store.memory_entries:
            store.remove("memory", store.memory_entries[0])
        else:
            pair = [{"action": "add", "content": entry}, {"action": "add", "content": entry + "!"}]
            store.apply_batch("memory", pair)
        if not announced:  # the first write is done: from here on a kill lands mid-writing
            sys.stdout.write("writing\n")
            sys.stdout.flush()
            announced = True


def rewrite_under_lock(home: str, text: str, ready: Any, release: Any) -> None:
    """Hold MEMORY.md's lock as a writer would, and once released by the test put ``text`` in the
    file (atomically) before unlocking: a write that lands while someone else waits for the lock."""
    import fcntl
    import os

    from memory_core.files import atomic_write_text

    memories = Path(home) / "memories"
    fd = os.open(memories / "MEMORY.md.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        ready.set()
        release.wait(180)
        atomic_write_text(memories / "MEMORY.md", text)
    finally:
        os.close(fd)  # closing the descriptor releases the flock

"""Functions run in child processes by the concurrency tests (spawn start method: importable, no pytest)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path


def save_many(home: str, user_home: str, name: str, key: str, count: int) -> None:
    os.environ["HOME"] = user_home
    from provider_schemas import save_provider

    for i in range(count):
        save_provider(home=Path(home), name=name, values={key: f"{key}-{i}"})


def read_until(path: str, stop_file: str, ready_file: str) -> tuple[int, list[str]]:
    """Parse ``path`` as JSON in a loop, as the agent would, until ``stop_file`` exists; creates
    ``ready_file`` after the first read, so the test saves only while this reader is reading."""
    reads, problems = 0, []
    target, stop = Path(path), Path(stop_file)
    while not stop.exists():
        try:
            raw = target.read_bytes()
        except FileNotFoundError:
            continue
        try:
            json.loads(raw)
        except ValueError as exc:
            problems.append(f"{exc}: {raw[:80]!r}")
        reads += 1
        if reads == 1:
            Path(ready_file).touch()
        time.sleep(0)
    return reads, problems

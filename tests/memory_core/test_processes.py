"""Real processes: concurrent writers lose nothing; a writer killed at any moment tears nothing."""

from __future__ import annotations

import multiprocessing
import random
import re
import signal
import subprocess
import sys
import time
from collections import Counter, deque
from pathlib import Path

import pytest

from memory_core.drift import detect_drift
from memory_core.entries import decode_store_bytes, parse_entries, split_pieces

from . import workers

SPAWN = multiprocessing.get_context("spawn")
REPO = Path(__file__).resolve().parents[2]
ADDS_PER_WORKER = 50
ENTRY = re.compile(r"entry (\d+)-(\d+) len=(\d+) (é*) end!?")


def _run_adders(home: Path, with_deleter: bool) -> tuple[list[str], list[str]]:
    start, stop, results = SPAWN.Event(), SPAWN.Event(), SPAWN.Queue()
    # With the deleter, the adders wait halfway until it has deleted something, so it always
    # runs while they add, whichever process the machine happens to run faster.
    deleted_one = SPAWN.Event() if with_deleter else None
    adders = [
        SPAWN.Process(target=workers.adder, args=(str(home), worker, ADDS_PER_WORKER, start, results, deleted_one))
        for worker in range(4)
    ]
    processes = list(adders)
    if with_deleter:
        processes.append(SPAWN.Process(target=workers.deleter, args=(str(home), start, stop, results, 7, deleted_one)))
    for process in processes:
        process.start()
    start.set()
    saved: list[str] = []
    deleted: list[str] = []
    for _ in adders:
        _kind, _worker, texts = results.get(timeout=180)
        saved.extend(texts)
    stop.set()
    if with_deleter:
        _kind, _worker, deleted = results.get(timeout=180)
    for process in processes:
        process.join(180)
        assert process.exitcode == 0
    return saved, deleted


def _on_disk(home: Path) -> list[str]:
    text = decode_store_bytes((home / "memories" / "MEMORY.md").read_bytes())
    assert detect_drift(text, workers.BIG) is None
    return split_pieces(text)


@pytest.mark.slow
def test_it_keeps_every_saved_add_from_four_concurrent_processes_exactly_once(home: Path) -> None:
    saved, _ = _run_adders(home, with_deleter=False)
    assert len(saved) == 4 * ADDS_PER_WORKER
    pieces = _on_disk(home)
    assert Counter(pieces) == Counter(saved)


@pytest.mark.slow
def test_it_loses_nothing_while_a_fifth_process_deletes_entries(home: Path) -> None:
    saved, deleted = _run_adders(home, with_deleter=True)
    assert len(saved) == 4 * ADDS_PER_WORKER
    assert deleted, "the deleter should have deleted something while the adders ran"
    assert set(deleted) <= set(saved)
    assert len(deleted) == len(set(deleted))
    pieces = _on_disk(home)
    assert Counter(pieces) == Counter(set(saved) - set(deleted))


def _assert_intact(path: Path) -> int:
    if not path.exists():
        return 0
    entries = parse_entries(decode_store_bytes(path.read_bytes()))
    for entry in entries:
        match = ENTRY.fullmatch(entry)
        assert match, f"torn entry: {entry[:60]!r}"
        assert int(match.group(3)) == len(match.group(4))
    return len(entries)


def _start_writer(home: Path, seed: int) -> subprocess.Popen[str]:
    # -S: the child needs only the standard library and this checkout, and starts faster.
    code = f"from tests.memory_core.workers import crash_writer; crash_writer({str(home)!r}, {seed})"
    return subprocess.Popen(
        [sys.executable, "-S", "-c", code], cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )


@pytest.mark.slow
def test_it_never_leaves_a_torn_file_when_the_writer_is_killed(home: Path) -> None:
    rounds, ahead = 105, 3
    rng = random.Random(20240611)
    path = home / "memories" / "MEMORY.md"
    seen_entries = 0
    # A few writers are started ahead and wait for "go", so start-up time overlaps the test.
    waiting = deque(_start_writer(home, seed) for seed in range(ahead))
    for round_number in range(rounds):
        writer = waiting.popleft()
        assert writer.stdin is not None and writer.stdout is not None
        assert writer.stdout.readline() == "ready\n"
        writer.stdin.write("go\n")
        writer.stdin.flush()
        assert writer.stdout.readline() == "writing\n"  # its first write is on disk
        # Then up to 40 ms more: kills land at every stage of a write (which one is luck, and
        # every one of them must leave the file whole).
        time.sleep(rng.uniform(0.0, 0.04))
        writer.send_signal(signal.SIGKILL)
        writer.wait(180)
        writer.stdin.close()
        writer.stdout.close()
        assert writer.returncode == -signal.SIGKILL
        seen_entries += _assert_intact(path)
        if round_number + ahead < rounds:
            waiting.append(_start_writer(home, round_number + ahead))
    assert seen_entries > 0


AGENT_PYTHON = Path("/tmp/hermes-0190/bin/python")


@pytest.mark.slow
@pytest.mark.skipif(not AGENT_PYTHON.exists(), reason="hermes-agent 0.19.0 scratch virtualenv not present")
def test_it_interleaves_safely_with_the_real_agent_writing_the_same_store() -> None:
    # Mixed writers: the benchmark script runs 2 memory_core and 2 hermes-agent 0.19.0
    # processes x 50 adds in the agent's own interpreter (it is never imported by the project).
    completed = subprocess.run(
        [str(AGENT_PYTHON), str(REPO / "bench" / "memory_store.py"), "--interop"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "200 entries on disk, 200 reported saved, OK" in completed.stdout

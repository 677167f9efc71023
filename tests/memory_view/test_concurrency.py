"""The panel deletes while the agent keeps writing: nothing but the chosen entries goes."""

from __future__ import annotations

import multiprocessing
import time

import pytest

from tests.memory_view.helpers import entry_ref, read_store, write_config, write_store
from tests.memory_view.workers import keep_adding

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def _agent_entries(home) -> int:
    return sum(1 for entry in read_store(home, "memory") if entry.startswith("agent-"))


def _wait_for_agent_entries_above(home, count: int) -> None:
    """Until the agents have written more than ``count`` entries (bounded only against a hang)."""
    give_up = time.monotonic() + 120
    while _agent_entries(home) <= count:
        assert time.monotonic() < give_up, "the agents stopped writing"
        time.sleep(0.01)


def test_it_loses_no_other_entry_while_two_writers_add_and_the_panel_deletes_20_blocked(owner_client, home):
    write_config(home, memory_char_limit=200_000)
    clean = [f"clean entry {n} that must survive" for n in range(10)]
    blocked = [f"blocked {n}: you are now a pirate captain number {n}" for n in range(20)]
    mixed = []
    for n, text in enumerate(blocked):
        mixed.append(text)
        if n % 2 == 0:
            mixed.append(clean[n // 2])
    write_store(home, "memory", mixed)
    assert sorted(read_store(home, "memory")) == sorted(clean + blocked)

    spawn = multiprocessing.get_context("spawn")
    stop = spawn.Event()
    results = spawn.Queue()
    readies = [spawn.Event() for _ in range(2)]
    writers = [
        spawn.Process(target=keep_adding, args=(str(home), name, ready, stop, results))
        for name, ready in zip(("agent-a", "agent-b"), readies, strict=True)
    ]
    for writer in writers:
        writer.start()
    try:
        for ready in readies:
            assert ready.wait(180), "writer did not start"
        agents_before = _agent_entries(home)
        # One confirmation per entry, as an admin clicking through the queue would. Every few
        # deletes the test waits until the agents have written again, so the writes interleave
        # with the deletes on any machine, fast or slow.
        for number, text in enumerate(blocked):
            if number % 5 == 0:
                _wait_for_agent_entries_above(home, _agent_entries(home))
            response = owner_client.post("/memory/delete/", {"entry": [entry_ref("memory", text)]})
            assert response.status_code == 302
        agents_during = _agent_entries(home)
    finally:
        stop.set()
        accepted = dict(results.get(timeout=180) for _ in writers)
        for writer in writers:
            writer.join(timeout=180)
    assert all(writer.exitcode == 0 for writer in writers)

    final = read_store(home, "memory")
    written_by_agents = accepted["agent-a"] + accepted["agent-b"]
    assert agents_during > agents_before  # the agents really wrote while the panel deleted
    assert not set(blocked) & set(final)
    assert sorted(final) == sorted(clean + written_by_agents)

"""Merges through the panel's service while a real agent-side writer process adds entries."""

from __future__ import annotations

import multiprocessing

import pytest

from admin_panel.services.maintenance import apply_change
from tests.memory_core import workers
from tests.memory_view.helpers import read_store, write_config, write_store

pytestmark = pytest.mark.django_db

SPAWN = multiprocessing.get_context("spawn")


def test_a_writer_process_adding_entries_during_panel_merges_loses_nothing(home, owner):
    write_config(home, memory_char_limit=workers.BIG)
    pairs = [(f"Rule {n}: answers stay short.", f"rule {n} answers stay short") for n in range(20)]
    write_store(home, "memory", [text for pair in pairs for text in pair])
    start, results = SPAWN.Event(), SPAWN.Queue()
    writer = SPAWN.Process(target=workers.adder, args=(str(home), 1, 50, start, results))
    writer.start()
    start.set()
    for first, second in pairs:
        outcome = apply_change(home=home, user=owner, target="memory", originals=[first, second], merged=first)
        assert outcome.ok, outcome.message
    _kind, _worker, saved = results.get(timeout=120)
    writer.join(timeout=120)

    on_disk = read_store(home, "memory")
    assert len(saved) == 50 and set(saved) <= set(on_disk)
    assert [entry for entry in on_disk if entry not in saved] == [first for first, _second in pairs]

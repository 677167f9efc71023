"""The store keeps the parse of the text it last read or wrote and reuses it only when the next
read returns exactly that text (docs/performance.md, "The memory store"): it is never stale."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from memory_core import MemoryStore
from memory_core.entries import parse_entries, reads_back_alone, serialise, split_pieces

from .conftest import write_file


def _file(home: Path) -> str:
    return (home / "memories" / "MEMORY.md").read_text(encoding="utf-8")


def test_it_parses_afresh_a_file_another_writer_changed_to_the_same_length(home: Path) -> None:
    write_file(home, "MEMORY.md", "alpha one\n§\nbeta two".encode())
    store = MemoryStore(home, 2000, 1000)
    store.load_from_disk()
    assert store.add("memory", "gamma three")["success"]
    before = _file(home)
    changed = before.replace("alpha one", "delta six")  # same length, other bytes
    assert len(changed) == len(before) and changed != before
    write_file(home, "MEMORY.md", changed.encode())

    result = store.replace("memory", "delta", "delta seven")

    assert result["success"]
    assert store.memory_entries == ["delta seven", "beta two", "gamma three"]
    assert _file(home) == "delta seven\n§\nbeta two\n§\ngamma three"


def test_it_answers_from_the_file_when_another_writer_wrote_back_the_same_entries_differently(home: Path) -> None:
    write_file(home, "MEMORY.md", "alpha\n§\nbeta".encode())
    store = MemoryStore(home, 2000, 1000)
    store.load_from_disk()
    assert store.add("memory", "gamma")["success"]
    write_file(home, "MEMORY.md", "alpha\n§\n\nbeta\n§\ngamma".encode())  # a blank line: drift

    result = store.replace("memory", "alpha", "alpha two")

    assert not result["success"]
    assert "MEMORY.md" in result["error"] and _file(home) == "alpha\n§\n\nbeta\n§\ngamma"


def test_it_never_hands_out_its_kept_parse_to_be_changed(home: Path) -> None:
    write_file(home, "MEMORY.md", "alpha\n§\nbeta".encode())
    store = MemoryStore(home, 2000, 1000)
    store.load_from_disk()
    assert store.add("memory", "gamma")["success"]
    store.memory_entries.append("not in the file")
    assert store.remove("memory", "beta")["success"]
    store.memory_entries.clear()

    result = store.add("memory", "delta")

    assert result["entry_count"] == 3
    assert _file(home) == "alpha\n§\ngamma\n§\ndelta"


def test_it_parses_again_a_written_text_that_does_not_read_back_as_its_entries(home: Path) -> None:
    write_file(home, "MEMORY.md", b"alpha")
    store = MemoryStore(home, 2000, 1000)
    store.load_from_disk()
    assert store.add("memory", "ends with a separator line\n§")["success"]  # 0.19.0 writes it
    assert store.add("memory", "beta")["success"]
    assert store.add("memory", "alpha")["message"] == "Entry already exists (no duplicate added)."

    result = store.add("memory", "gamma")

    assert result["entry_count"] == 4  # the file read "ends with a separator line" and "§\nbeta"
    assert parse_entries(_file(home)) == ["alpha", "ends with a separator line", "§\nbeta", "gamma"]


def test_it_parses_again_a_written_text_with_an_entry_twice(home: Path) -> None:
    write_file(home, "MEMORY.md", "alpha\n§\nbeta".encode())
    store = MemoryStore(home, 2000, 1000)
    store.load_from_disk()
    assert store.replace("memory", "alpha", "beta")["success"]  # 0.19.0 writes the duplicate

    result = store.add("memory", "gamma")

    assert result["entry_count"] == 2
    assert _file(home) == "beta\n§\ngamma"


OPERATIONS = ["add", "replace", "remove", "batch", "outside"]
TEXTS = ["alpha", "beta", "gamma", "delta", "alpha beta", "x\n§", "§\ny", "  padded  ", "ümlaut", "日本"]


def _operation(store: MemoryStore, home: Path, step: tuple[str, str, str]) -> object:
    kind, first, second = step
    if kind == "add":
        return store.add("memory", first)
    if kind == "replace":
        return store.replace("memory", first, second)
    if kind == "remove":
        return store.remove("memory", first)
    if kind == "batch":
        operations = [{"action": "add", "content": second}, {"action": "remove", "old_text": first}]
        return store.apply_batch("memory", operations)
    # another writer: sometimes the very text the store wrote, sometimes a change of it
    text = _file(home)
    write_file(home, "MEMORY.md", (text.replace(first, second, 1) if first in text else text).encode())
    return None


def test_it_answers_every_operation_as_a_store_that_keeps_nothing_between_operations(tmp_path: Path) -> None:
    rng = random.Random(19)
    for run in range(20):
        kept_home, fresh_home = tmp_path / f"kept{run}", tmp_path / f"fresh{run}"
        for home in (kept_home, fresh_home):
            home.mkdir()
            write_file(home, "MEMORY.md", "alpha\n§\nbeta".encode())
        kept = MemoryStore(kept_home, 400, 400, clock=lambda: 1000.0)
        kept.load_from_disk()
        for _step in range(40):
            step = (rng.choice(OPERATIONS), rng.choice(TEXTS), rng.choice(TEXTS))
            fresh = MemoryStore(fresh_home, 400, 400, clock=lambda: 1000.0)
            fresh.load_from_disk()
            kept.reset_consolidation_failures()  # the breaker is not what is compared
            answers = [str(_operation(store, home, step)).replace(str(home), "<home>")
                       for store, home in ((kept, kept_home), (fresh, fresh_home))]
            assert answers[0] == answers[1], step
            if step[0] != "outside":  # the live lists as the operation left them
                assert kept.memory_entries == fresh.memory_entries, step
            assert _file(kept_home) == _file(fresh_home), step
        shutil.rmtree(kept_home)
        shutil.rmtree(fresh_home)


@given(st.lists(st.text(st.sampled_from(["a", "b", " ", "\n", "§", "\u00a0"]), max_size=8), unique=True))
def test_it_knows_that_distinct_entries_which_read_back_alone_split_back_into_themselves(texts: list[str]) -> None:
    entries = [text for text in texts if reads_back_alone(text)]

    assert split_pieces(serialise(entries)) == entries
    assert parse_entries(serialise(entries)) == entries

"""Property tests: the format round-trips, the budget always holds, a batch is all or nothing."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory_core import MemoryStore
from memory_core.entries import DELIMITER, char_count, decode_store_bytes, parse_entries, serialise, split_pieces

ALPHABET = st.sampled_from(["a", "b", "c", " ", "\n", "§", "\t", "é", "日", "\u00a0", "x"])
RAW_TEXT = st.text(ALPHABET, max_size=40)


# Characters an entry may start or end with: str.strip() keeps them, and an entry ending in "§"
# could end in "\n§", which a read splits off, so the last one is a letter.
EDGE = st.sampled_from(["a", "b", "c", "§", "é", "日", "x"])
LAST = st.sampled_from(["a", "b", "c", "é", "日", "x"])


def _without_delimiter(text: str) -> str:
    """Break every delimiter inside ``text`` (a replacement can join a new one, hence the loop)."""
    while DELIMITER in text:
        text = text.replace(DELIMITER, "\n§x\n")
    return text


@st.composite
def _entries(draw: st.DrawFn) -> str:
    """A text the store holds unchanged through a write and a read (what the agent itself can
    hold), built directly rather than filtered out of arbitrary text, so no draw is wasted."""
    first = draw(EDGE)
    middle = draw(st.text(ALPHABET, max_size=38))
    if not middle and draw(st.booleans()):
        return first  # one-character entries
    return _without_delimiter(first + middle + draw(LAST))


def _storable(text: str) -> bool:
    return bool(text) and text == text.strip() and DELIMITER not in text and not text.endswith("\n§")


ENTRY = _entries()
ENTRY_LISTS = st.lists(ENTRY, max_size=8, unique=True)


@given(ENTRY)
def test_it_draws_only_entries_a_store_holds_unchanged(text: str) -> None:
    assert _storable(text)
    assert parse_entries(serialise([text])) == [text]
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@given(ENTRY_LISTS)
def test_it_reads_back_exactly_the_entries_it_serialised(entries: list[str]) -> None:
    assert parse_entries(serialise(entries)) == entries
    assert parse_entries(decode_store_bytes(serialise(entries).encode("utf-8"))) == entries


@given(st.text(ALPHABET, max_size=80))
def test_it_parses_any_text_into_distinct_stripped_entries(text: str) -> None:
    entries = parse_entries(text)
    assert len(entries) == len(set(entries))
    assert all(entry and entry == entry.strip() for entry in entries)
    assert set(entries) == set(split_pieces(text))


@FAST
@given(ENTRY_LISTS)
def test_it_round_trips_entries_through_a_real_file(entries: list[str]) -> None:
    with tempfile.TemporaryDirectory() as root:
        store = MemoryStore(root, 10_000, 10_000)
        operations = [{"action": "add", "content": entry} for entry in entries]
        if operations:
            assert store.apply_batch("memory", operations)["success"]
        reloaded = MemoryStore(root)
        reloaded.load_from_disk()
        assert reloaded.memory_entries == entries


BATCH = st.tuples(
    st.just("batch"),
    st.lists(
        st.fixed_dictionaries(
            {"action": st.sampled_from(["add", "replace", "remove", "zap"])},
            optional={"content": RAW_TEXT, "old_text": RAW_TEXT},
        ),
        max_size=4,
    ),
)
OPERATION = st.one_of(
    st.tuples(st.just("add"), RAW_TEXT),
    st.tuples(st.just("replace"), RAW_TEXT, RAW_TEXT),
    st.tuples(st.just("remove"), RAW_TEXT),
    BATCH,
)


def _run(store: MemoryStore, operation: tuple) -> dict:
    kind = operation[0]
    if kind == "add":
        return store.add("memory", operation[1])
    if kind == "replace":
        return store.replace("memory", operation[1], operation[2])
    if kind == "remove":
        return store.remove("memory", operation[1])
    return store.apply_batch("memory", operation[1])


@FAST
@given(st.integers(min_value=0, max_value=60), st.lists(OPERATION, max_size=12))
def test_it_never_leaves_a_store_over_its_budget(limit: int, operations: list[tuple]) -> None:
    with tempfile.TemporaryDirectory() as root:
        store = MemoryStore(root, limit, 300)
        store.load_from_disk()
        path = Path(root) / "memories" / "MEMORY.md"
        for operation in operations:
            store.reset_consolidation_failures()
            _run(store, operation)
            assert char_count(store.memory_entries) <= limit
            if path.exists():
                assert char_count(parse_entries(decode_store_bytes(path.read_bytes()))) <= limit


def _match(entries: list[str], old_text: str) -> int | None:
    """The matching of docs/agent_formats.md §Where the panel differs (D13), written independently: an
    entry equal to ``old_text`` wins; otherwise the entries containing it must all be the same text (the first is
    used)."""
    if old_text in entries:
        return entries.index(old_text)
    hits = [index for index, entry in enumerate(entries) if old_text in entry]
    if not hits or len({entries[index] for index in hits}) > 1:
        return None
    return hits[0]


def _batch_model(entries: list[str], operations: list[dict]) -> list[str] | None:
    """The entries after applying every operation in order, or None if one of them cannot apply."""
    working = list(entries)
    for op in operations:
        action, content, old_text = op["action"], (op.get("content") or "").strip(), (op.get("old_text") or "").strip()
        if action == "add":
            if not content:
                return None
            if content not in working:
                working.append(content)
            continue
        if action not in ("replace", "remove") or not old_text or (action == "replace" and not content):
            return None
        index = _match(working, old_text)
        if index is None:
            return None
        if action == "replace":
            working[index] = content
        else:
            del working[index]
    return working


@FAST
@given(ENTRY_LISTS, st.integers(min_value=0, max_value=80), BATCH)
def test_it_applies_a_batch_completely_or_not_at_all(entries: list[str], limit: int, operation: tuple) -> None:
    with tempfile.TemporaryDirectory() as root:
        path = Path(root) / "memories" / "MEMORY.md"
        path.parent.mkdir()
        path.write_bytes(serialise(entries).encode("utf-8"))
        before = os.stat(path)
        store = MemoryStore(root, limit, 300)
        store.load_from_disk()
        result = store.apply_batch("memory", operation[1])
        after = os.stat(path)
        if result["success"]:
            assert result["message"] == f"Applied {len(operation[1])} operation(s)."
            expected = _batch_model(entries, operation[1])
            assert expected is not None, "the batch succeeded where one of its operations cannot apply"
            assert store.memory_entries == expected  # every operation, in order: "all"
            assert path.read_bytes() == serialise(expected).encode("utf-8")
            assert char_count(expected) <= limit
        else:
            assert path.read_bytes() == serialise(entries).encode("utf-8")
            assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
            assert store.memory_entries == entries


@st.composite
def _batches_on_existing_entries(draw: st.DrawFn) -> tuple[list[str], list[dict]]:
    """Entries plus a batch whose old_text are entries or pieces of them, so most batches apply."""
    entries = draw(st.lists(ENTRY, min_size=1, max_size=6, unique=True))
    operations = []
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        action = draw(st.sampled_from(["add", "replace", "remove"]))
        source = draw(st.sampled_from(entries))
        start = draw(st.integers(min_value=0, max_value=len(source) - 1))
        old_text = source[start : draw(st.integers(min_value=start + 1, max_value=len(source)))]
        operation = {"action": action, "old_text": old_text}
        if action != "remove":
            operation["content"] = draw(ENTRY)
        operations.append(operation)
    return entries, operations


@FAST
@given(_batches_on_existing_entries(), st.integers(min_value=0, max_value=60))
def test_it_applies_every_operation_of_a_successful_batch_in_order(batch: tuple, headroom: int) -> None:
    entries, operations = batch
    limit = char_count(entries) + headroom  # a store within its budget, as the drift guard requires
    with tempfile.TemporaryDirectory() as root:
        path = Path(root) / "memories" / "MEMORY.md"
        path.parent.mkdir()
        path.write_bytes(serialise(entries).encode("utf-8"))
        store = MemoryStore(root, limit, 300)
        store.load_from_disk()
        result = store.apply_batch("memory", operations)
        expected = _batch_model(entries, operations)
        on_disk = parse_entries(decode_store_bytes(path.read_bytes()))
        if expected is not None and char_count(expected) <= limit:
            assert result["success"], result
            assert store.memory_entries == expected
            # A replace can make two entries equal; reading the file back keeps one (as the agent).
            assert on_disk == list(dict.fromkeys(expected))
        else:
            assert not result["success"]
            assert on_disk == entries

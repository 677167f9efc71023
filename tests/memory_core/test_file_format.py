"""The file format, counting and usage text (docs/agent_formats.md §Entries, §Store operations)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from memory_core import MemoryStore
from memory_core.entries import (
    char_count,
    decode_store_bytes,
    failure_usage,
    parse_entries,
    percent,
    serialise,
    usage_text,
)

from .conftest import read_bytes, write_file


@pytest.mark.parametrize(
    ("text", "entries"),
    [
        ("a\n§\nb", ["a", "b"]),
        ("a\r\n§\r\nb", ["a", "b"]),
        ("\n\n  a\n§\nb  \n\n", ["a", "b"]),
        ("a§b", ["a§b"]),
        ("§", ["§"]),
        ("a\n§\n§\nb", ["a", "§\nb"]),
        ("dup\n§\ndup\n§\nother", ["dup", "other"]),
    ],
)
def test_it_loads_each_spec_table_text_to_the_listed_entries(home: Path, text: str, entries: list[str]) -> None:
    write_file(home, "MEMORY.md", text)
    store = MemoryStore(home, 500, 300)
    store.load_from_disk()
    assert store.memory_entries == entries
    assert parse_entries(decode_store_bytes(text.encode("utf-8"))) == entries


def test_it_reads_a_lone_carriage_return_as_a_newline(home: Path) -> None:
    write_file(home, "USER.md", "a\r§\rb")
    store = MemoryStore(home)
    store.load_from_disk()
    assert store.user_entries == ["a", "b"]


def test_it_loads_a_missing_or_blank_file_as_no_entries(home: Path) -> None:
    write_file(home, "USER.md", " \n\t\n")
    store = MemoryStore(home)
    store.load_from_disk()
    assert store.memory_entries == []
    assert store.user_entries == []
    assert (home / "memories").is_dir()


def test_it_writes_two_adds_as_the_exact_spec_bytes_with_private_mode(store: MemoryStore, home: Path) -> None:
    assert store.add("memory", "a")["success"]
    assert store.add("memory", "b")["success"]
    assert read_bytes(home) == bytes.fromhex("610AC2A70A62")
    assert stat.S_IMODE(os.stat(home / "memories" / "MEMORY.md").st_mode) == 0o600
    lock = home / "memories" / "MEMORY.md.lock"
    assert lock.is_file() and lock.stat().st_size == 0
    assert not [name for name in os.listdir(home / "memories") if name.endswith(".tmp")]


def test_it_counts_code_points_not_bytes(store: MemoryStore, home: Path) -> None:
    result = store.add("memory", "日本語テキスト")
    assert result["usage"] == "1% — 7/500 chars"
    assert len(read_bytes(home)) == 21


def test_it_keeps_an_added_delimiter_as_one_entry_until_the_next_read(store: MemoryStore, home: Path) -> None:
    result = store.add("memory", "p\n§\nq")
    assert result["entry_count"] == 1
    assert store.memory_entries == ["p\n§\nq"]
    store.load_from_disk()
    assert store.memory_entries == ["p", "q"]


def test_it_writes_crlf_inside_new_content_as_is(store: MemoryStore, home: Path) -> None:
    store.add("memory", "line one\r\nline two")
    assert read_bytes(home) == b"line one\r\nline two"


@pytest.mark.parametrize(
    ("count", "limit", "expected"),
    [
        (29, 100, 28),
        (57, 100, 56),
        (58, 100, 57),
        (638, 2200, 28),
        (1276, 2200, 57),
        (2, 3, 66),
        (600, 500, 100),
        (1, 0, 0),
        (5, -3, 0),
        (0, 500, 0),
    ],
)
def test_it_truncates_the_percentage_in_binary64_like_the_agent(count: int, limit: int, expected: int) -> None:
    assert percent(count, limit) == expected


def test_it_formats_usage_with_comma_separators() -> None:
    assert usage_text(1276, 2200) == "57% — 1,276/2,200 chars"
    assert failure_usage(2197, 2200) == "2,197/2,200"


def test_it_counts_entries_joined_by_the_delimiter() -> None:
    assert char_count([]) == 0
    assert char_count(["a", "b"]) == 5
    assert char_count(["abc"]) == 3
    assert serialise([]) == ""


@pytest.mark.parametrize(("count", "limit", "text"), [(29, 100, "28% — 29/100 chars"), (57, 100, "56% — 57/100 chars")])
def test_it_reports_the_spec_usage_after_an_add(home: Path, count: int, limit: int, text: str) -> None:
    store = MemoryStore(home, limit, 300)
    store.load_from_disk()
    assert store.add("memory", "x" * count)["usage"] == text


def test_it_reports_two_thirds_as_66_percent(home: Path) -> None:
    store = MemoryStore(home, 3, 300)
    store.load_from_disk()
    assert store.add("memory", "ab")["usage"] == "66% — 2/3 chars"

"""The panel's writes never store text that reads back as another entry (issue 29, finding 4).

The file separates entries with a line holding only "§"; text holding that line, or ending with
it, would be split or joined to its neighbour at the next read. memory_core's services (the
panel, its command line, approvals) refuse such text; the agent-compatible ``MemoryStore`` keeps
0.19.0's behaviour.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory_core import MemoryStore, list_pending, stage
from memory_core import services as svc
from memory_core.drift import detect_drift, text_digest
from memory_core.entries import decode_store_bytes, parse_entries

from .conftest import read_bytes, write_file
from .test_cli import run

DELIMITER_INSIDE = "An entry cannot contain a line with only § on it: the agent uses that line to separate entries."
DELIMITER_AT_END = (
    "An entry cannot end with a line with only § on it: the agent would read that line as part of the separator "
    "before the next entry."
)
ENTRIES_WOULD_JOIN = (
    "Nothing was written: an entry already in the file ends with a line with only § on it, so the entry after it "
    "would not read back unchanged. Edit that entry first."
)
INSIDE = [
    "p\n§\nq",  # the delimiter itself
    "first line\nsecond\n§\nthird\nfourth",  # § alone on a line in the middle
    "p\r\n§\r\nq",  # the reader turns CRLF into LF
    "p\r§\rq",  # and a lone CR
    "a\n§\n§\nb",  # two § lines
]
AT_END = ["x\n§", "x\r\n§", "  x\n§  \n", "a\n§ b\n§"]
# § lines the reader never merges: not alone on its line, or the first line (the delimiter
# before it is matched first), or the whole entry.
ALLOWED = ["a § b", "x\n§ y", "x\n §\ny", "x §\ny", "§\nleading line", "§", "§§\n§§", "x\n§§", "ends with §"]
REFUSED = [(text, DELIMITER_INSIDE) for text in INSIDE] + [(text, DELIMITER_AT_END) for text in AT_END]


def _entries(home: Path) -> list[str]:
    return parse_entries(decode_store_bytes(read_bytes(home)))


@pytest.mark.parametrize(("text", "error"), REFUSED)
def test_it_refuses_to_add_text_that_would_not_read_back_as_one_entry(home: Path, text: str, error: str) -> None:
    write_file(home, "MEMORY.md", "kept")

    result = svc.add_entry(home=home, target="memory", content=text)

    assert result == {"success": False, "error": error}
    assert read_bytes(home) == b"kept"


@pytest.mark.parametrize(("text", "error"), REFUSED)
def test_it_refuses_such_text_in_replace_batch_exchange_and_readd(home: Path, text: str, error: str) -> None:
    write_file(home, "MEMORY.md", "one\n§\ntwo")

    assert svc.replace_entry(home=home, target="memory", old_text="one", new_content=text)["error"] == error
    exact = svc.replace_entry_exact(home=home, target="memory", old_content="one", new_content=text)
    assert exact["error"] == error
    operations = [{"action": "remove", "old_text": "two"}, {"action": "add", "content": text}]
    batch = svc.apply_operations(home=home, target="memory", operations=operations)
    assert batch["error"] == f"Operation 2: {error}"
    replace_op = svc.apply_operations(
        home=home, target="memory", operations=[{"action": "replace", "old_text": "one", "content": text}]
    )
    assert replace_op["error"] == f"Operation 1: {error}"
    exchanged = svc.exchange_entries(home=home, target="memory", old_contents=["one"], new_contents=["ok", text])
    assert exchanged["error"] == f"Operation 2: {error}"
    readd = svc.readd_entries(home=home, target="memory", contents=["ok", text])
    assert readd.added == ["ok"] and readd.refused == {text: error}
    assert _entries(home) == ["one", "two", "ok"]


@pytest.mark.parametrize("text", ALLOWED)
def test_it_allows_a_section_sign_the_reader_does_not_merge(home: Path, text: str) -> None:
    write_file(home, "MEMORY.md", "before")

    assert svc.add_entry(home=home, target="memory", content=text)["success"]
    assert svc.add_entry(home=home, target="memory", content="after")["success"]

    assert _entries(home) == ["before", text, "after"]


def test_it_refuses_to_write_after_an_entry_that_ends_with_a_section_line(home: Path) -> None:
    # The agent's store writes "x\n§" as the last entry; anything after it would turn into "§\n...".
    agent = MemoryStore(home)
    assert agent.add("memory", "x\n§")["success"]

    assert svc.add_entry(home=home, target="memory", content="y") == {"success": False, "error": ENTRIES_WOULD_JOIN}
    batch = svc.apply_operations(home=home, target="memory", operations=[{"action": "add", "content": "y"}])
    assert batch == {"success": False, "error": ENTRIES_WOULD_JOIN}
    assert read_bytes(home) == "x\n§".encode()
    # Rewriting that entry is the way out, and is allowed.
    assert svc.replace_entry_exact(home=home, target="memory", old_content="x\n§", new_content="x")["success"]
    assert svc.add_entry(home=home, target="memory", content="y")["success"]
    assert _entries(home) == ["x", "y"]


def test_it_keeps_the_agents_own_store_writing_such_text_as_0_19_0_does(home: Path) -> None:
    agent = MemoryStore(home)

    assert agent.add("memory", "x\n§")["success"] and agent.add("memory", "y")["success"]

    # What docs/agent_formats.md §Entries fixes for the agent-compatible API.
    assert _entries(home) == ["x", "§\ny"]


def test_it_writes_new_text_with_the_line_breaks_every_reader_sees(home: Path) -> None:
    assert svc.add_entry(home=home, target="memory", content="a\r\nb\rc")["success"]

    assert read_bytes(home) == b"a\nb\nc"


def test_it_refuses_such_text_from_the_command_line(home: Path) -> None:
    code, _out, err = run(home, "add", "memory", "p\n§\nq")

    assert code == 1 and DELIMITER_INSIDE in err
    assert not (home / "memories" / "MEMORY.md").exists()


def test_it_keeps_a_staged_write_of_such_text_pending_when_approved(home: Path) -> None:
    record = stage(home, payload={"action": "add", "target": "memory", "content": "x\n§", "old_text": None},
                   summary="add to memory: x")

    code, _out, err = run(home, "pending", "approve", record["id"])

    assert code == 1 and DELIMITER_AT_END in err
    assert [one["id"] for one in list_pending(home)] == [record["id"]]
    assert not (home / "memories" / "MEMORY.md").exists()


# Text with every character the reader treats specially: line breaks of all kinds, §, spaces.
_PIECES = st.sampled_from(["a", "b", "§", "\n", "\r", "\r\n", " ", "\t", "é", "\n§\n", "\n§"])
TEXTS = st.lists(_PIECES, min_size=1, max_size=12).map("".join)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(TEXTS, min_size=1, max_size=6), st.booleans())
def test_it_reads_back_every_text_it_accepted_unchanged(texts: list[str], as_batch: bool) -> None:
    with tempfile.TemporaryDirectory() as root:
        home = Path(root)
        accepted: list[str] = []
        for text in texts:
            if as_batch:
                ops = [{"action": "add", "content": text}]
                result = svc.apply_operations(home=home, target="memory", operations=ops)
            else:
                result = svc.add_entry(home=home, target="memory", content=text)
            written = text.replace("\r\n", "\n").replace("\r", "\n").strip()
            if result["success"]:
                if written not in accepted:
                    accepted.append(written)
            else:
                assert not written or result["error"].endswith((DELIMITER_INSIDE, DELIMITER_AT_END))
        path = home / "memories" / "MEMORY.md"
        text = decode_store_bytes(path.read_bytes()) if path.exists() else ""
        assert parse_entries(text) == accepted
        assert detect_drift(text, 10_000) is None


def test_it_does_not_resolve_drift_by_a_rewrite_that_would_join_two_entries(home: Path) -> None:
    # Loaded as "x\n§" and "y" (the space keeps the reader from splitting there); written cleanly,
    # "x\n§\n§\ny" would load as "x" and "§\ny".
    write_file(home, "MEMORY.md", "x\n§ \n§\ny")
    digest = text_digest(decode_store_bytes(read_bytes(home)))

    result = svc.resolve_drift(home=home, target="memory", expected_digest=digest)

    assert result == {
        "success": False,
        "error": "Nothing was rewritten: an entry of MEMORY.md ends with a line with only § on it, so rewriting "
        "would join it to the entry after it. Move or remove that line by hand, then retry.",
    }
    assert read_bytes(home) == "x\n§ \n§\ny".encode()
    assert sorted(path.name for path in (home / "memories").iterdir()) == ["MEMORY.md", "MEMORY.md.lock"]

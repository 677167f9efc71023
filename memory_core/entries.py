"""The store file format: entries separated by ``\\n§\\n`` (docs/agent_formats.md §Entries), counting and usage text
(§Store operations)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

DELIMITER = "\n§\n"
_BOM = "\ufeff"

TARGETS = ("memory", "user")
FILE_NAMES = {"memory": "MEMORY.md", "user": "USER.md"}


def file_name_for(target: str) -> str:
    """0.19.0 maps "user" to USER.md and every other string to MEMORY.md."""
    return "USER.md" if target == "user" else "MEMORY.md"


def decode_store_bytes(raw: bytes) -> str:
    """Strict UTF-8, universal newlines, one leading BOM dropped (D15).

    Raises UnicodeDecodeError; its ``start`` is the offending byte offset in ``raw``.
    """
    text = raw.decode("utf-8")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if text.startswith(_BOM):
        text = text[1:]
    return text


def split_pieces(text: str) -> list[str]:
    """Delimiter-split pieces, stripped, empties dropped; duplicates kept (the drift check needs them)."""
    if not text.strip():
        return []
    # The raw text is split, not the stripped one: a leading "\n§\n" is a delimiter.
    return [piece for piece in map(str.strip, text.split(DELIMITER)) if piece]


def dedupe(entries: Iterable[str]) -> list[str]:
    """First occurrence wins, order kept."""
    return list(dict.fromkeys(entries))


def parse_entries(text: str) -> list[str]:
    """What every loader holds for a file's decoded text."""
    return dedupe(split_pieces(text))


def serialise(entries: Sequence[str]) -> str:
    """File text for a list of entries; the empty list is the empty file."""
    return DELIMITER.join(entries)


def normalise_newlines(text: str) -> str:
    """CRLF and lone CR as LF: what every reader of the file sees (see ``decode_store_bytes``)."""
    if "\r" not in text:
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")


# Why an entry would not read back as itself (docs/memory_core.md, "Entries that read back whole").
CONTAINS_DELIMITER = "contains"
ENDS_WITH_SEPARATOR_LINE = "ends"
SEPARATOR_TAIL = DELIMITER.rstrip("\n")  # "\n§": the file's last entry may end so; any other joins


def delimiter_problem(entry: str) -> str | None:
    """``None`` if ``entry`` (stripped, LF newlines) reads back unchanged wherever it stands among
    other such entries; else which rule it breaks.

    The reader splits on the first "\n§\n" from the left, so an entry breaks only by holding the
    delimiter or by ending with "\n§" (that line and the next delimiter's "\n" make a delimiter
    one character early: "x\n§" then "y" reads back as "x" and "§\ny"). A leading "§\n" is
    harmless: the delimiter before it is matched first.
    """
    if DELIMITER in entry:
        return CONTAINS_DELIMITER
    if entry.endswith(SEPARATOR_TAIL):
        return ENDS_WITH_SEPARATOR_LINE
    return None


def reads_back_alone(entry: str) -> bool:
    """Whether ``entry`` is one split piece that reads back unchanged wherever it stands: non-empty,
    stripped, with no ``delimiter_problem``. Distinct such entries joined by the delimiter split
    back into exactly themselves (no delimiter is inside one, none can straddle a join since none
    ends with "\n" or "\n§"), so their parse is known without splitting (docs/performance.md)."""
    return bool(entry) and entry.strip() == entry and delimiter_problem(entry) is None


def reads_back_unchanged(entries: Sequence[str]) -> bool:
    """Whether the file written for ``entries`` parses back to the same (de-duplicated) list."""
    return parse_entries(serialise(entries)) == dedupe(entries)


def char_count(entries: Sequence[str]) -> int:
    """Length of the entries joined by the delimiter (0 for no entries)."""
    if not entries:
        return 0
    return sum(map(len, entries)) + len(DELIMITER) * (len(entries) - 1)


def percent(count: int, limit: int) -> int:
    """0.19.0's arithmetic: binary64 division, times 100, truncated, capped at 100."""
    if limit <= 0:
        return 0
    return min(100, int(count / limit * 100))


def usage_text(count: int, limit: int) -> str:
    """Usage shown in success results and snapshot headers."""
    return f"{percent(count, limit)}% — {count:,}/{limit:,} chars"


def failure_usage(count: int, limit: int) -> str:
    """Usage shown in failure results (no percentage)."""
    return f"{count:,}/{limit:,}"

"""Drift guard (spec §9, D12c): refuse to rewrite a file that would not round-trip.

A file drifts when its text is not exactly its pieces joined by the delimiter (stray
whitespace around a delimiter, empty pieces) or when a piece is longer than the target's limit
(typically text appended without a delimiter). Before refusing, the text is saved to a backup
that never overwrites an earlier one.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from memory_core import safe_paths
from memory_core.entries import DELIMITER, split_pieces

BACKUP_FAILED_SUFFIX = " (BACKUP FAILED — file unchanged on disk)"
_BACKUP_NAME = re.compile(r"^(MEMORY|USER)\.md\.bak\.(\d+)(?:\.(\d+))?$")

NOT_ROUND_TRIP = "not_round_trip"
ENTRY_OVER_LIMIT = "entry_over_limit"


@dataclass(frozen=True)
class DriftInfo:
    """Which rule the file breaks, with a sentence for the panel."""

    rule: str
    explanation: str
    longest_piece: int = 0


def detect_drift(text: str, limit: int, pieces: list[str] | None = None) -> DriftInfo | None:
    """The rule ``text`` breaks, or None. ``pieces`` may pass ``split_pieces(text)`` if known."""
    stripped = text.strip()
    if not stripped:
        return None
    if pieces is None:
        pieces = split_pieces(text)
    if stripped != DELIMITER.join(pieces):
        return DriftInfo(
            rule=NOT_ROUND_TRIP,
            explanation=(
                "The file has blank lines or spaces around a § separator, or an empty entry, "
                "so rewriting it would change text the agent did not write."
            ),
        )
    longest = max(map(len, pieces))
    if longest > limit:
        return DriftInfo(
            rule=ENTRY_OVER_LIMIT,
            explanation=(
                f"One entry is {longest:,} characters long, more than the whole limit of {limit:,}: "
                "text was probably appended without a § separator."
            ),
            longest_piece=longest,
        )
    return None


def text_digest(text: str) -> str:
    """sha256 of a store's decoded text: names the exact text an admin looked at."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def write_backup(
    memories_dir: Path, file_name: str, text: str, *, clock: Callable[[], float] = time.time, home: Path | None = None
) -> str:
    """Save ``text`` to the first free ``<FILE>.bak.<S>[.<n>]`` and return its absolute path.

    Created with O_EXCL (never through a link, never over an earlier backup, never in a folder
    reached through a link out of the home). On any other failure the returned path carries the
    BACKUP FAILED suffix and nothing is raised.
    """
    home = Path(memories_dir).absolute().parent if home is None else Path(home)
    base = memories_dir.absolute() / f"{file_name}.bak.{int(clock())}"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
    data = text.encode("utf-8")
    attempt = 0
    while True:
        candidate = base if attempt == 0 else base.with_name(f"{base.name}.{attempt}")
        try:
            fd = safe_paths.open_in_home(candidate, home, flags, 0o666, follow_last=False)
        except FileExistsError:
            attempt += 1
            continue
        except OSError:
            return f"{candidate}{BACKUP_FAILED_SUFFIX}"
        try:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError:
            return f"{candidate}{BACKUP_FAILED_SUFFIX}"
        return str(candidate)


def backup_sort_key(name: str) -> tuple[int, int]:
    match = _BACKUP_NAME.match(name)
    if not match:
        return (0, 0)
    return (int(match.group(2)), int(match.group(3) or 0))


def is_backup_name(name: str, file_name: str) -> bool:
    match = _BACKUP_NAME.match(name)
    return bool(match) and name.startswith(file_name + ".bak.")

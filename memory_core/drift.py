"""Drift guard (docs/agent_formats.md §Drift guard and backups, D12c): refuse to rewrite a file that would not
round-trip.

A file drifts when its text is not exactly its pieces joined by the delimiter (stray
whitespace around a delimiter, empty pieces) or when a piece is longer than the target's limit
(typically text appended without a delimiter). Before refusing, the text is saved to a backup
that never overwrites an earlier one.
"""

from __future__ import annotations

import contextlib
import errno
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
# Put before the suffix when the disk (or quota) was full, so that callers can say so in words;
# the text still ends with the suffix every caller checks.
DISK_FULL_MARK = " (disk full)"
_DISK_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})
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

    The text goes to a temporary file first, which is linked to the backup's name only once it is
    complete (a link never replaces an earlier backup and never follows one); so a full disk leaves
    no empty or partial backup. Nothing is written in a folder reached through a link out of the
    home. On any failure the returned path carries the BACKUP FAILED suffix, nothing is left behind
    and nothing is raised.
    """
    home = Path(memories_dir).absolute().parent if home is None else Path(home)
    base = memories_dir.absolute() / f"{file_name}.bak.{int(clock())}"
    try:
        temp = _complete_temp(memories_dir, home, text.encode("utf-8"))
    except OSError as exc:
        return f"{base}{_failed(exc)}"
    except UnicodeEncodeError:
        return f"{base}{BACKUP_FAILED_SUFFIX}"
    attempt = 0
    try:
        while True:
            candidate = base if attempt == 0 else base.with_name(f"{base.name}.{attempt}")
            try:
                os.link(temp, candidate, follow_symlinks=False)
            except FileExistsError:
                attempt += 1
                continue
            except OSError as exc:
                return f"{candidate}{_failed(exc)}"
            return str(candidate)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temp)


def _failed(exc: OSError) -> str:
    return (DISK_FULL_MARK if exc.errno in _DISK_FULL_ERRNOS else "") + BACKUP_FAILED_SUFFIX


def backup_failed_on_full_disk(text: str) -> bool:
    """Whether a backup path or message says the backup failed because the disk was full."""
    return DISK_FULL_MARK + BACKUP_FAILED_SUFFIX in text


def _complete_temp(directory: Path, home: Path, data: bytes) -> str:
    """A new ``.mem_*.tmp`` file (0666 before the umask, like the backups always were) holding
    ``data``, synced; removed again if any step fails."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    for _attempt in range(100):
        name = os.path.join(directory.absolute(), f".mem_{os.urandom(4).hex()}.tmp")
        try:
            fd = safe_paths.open_in_home(name, home, flags, 0o666, follow_last=False)
        except FileExistsError:
            continue
        try:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(name)
            raise
        return name
    raise FileExistsError(errno.EEXIST, "No usable temporary file name found", str(directory))


def backup_sort_key(name: str) -> tuple[int, int]:
    match = _BACKUP_NAME.match(name)
    if not match:
        return (0, 0)
    return (int(match.group(2)), int(match.group(3) or 0))


def is_backup_name(name: str, file_name: str) -> bool:
    match = _BACKUP_NAME.match(name)
    return bool(match) and name.startswith(file_name + ".bak.")

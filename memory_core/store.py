"""``MemoryStore``: the curated memory store, interchangeable with hermes-agent 0.19.0's.

Same public surface and results as the agent's store (docs/agent_formats.md §Store operations-§Locking), with the
home passed explicitly and the deliberate differences of §Where the panel differs. Every mutation runs under the
target's ``flock`` and works on a fresh read of the file, so the agent and the panel can write
the same home at the same time without losing each other's writes.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Callable, Sequence
from itertools import repeat
from pathlib import Path
from typing import Any, NamedTuple

from memory_core import messages as msg
from memory_core import safe_paths
from memory_core.drift import BACKUP_FAILED_SUFFIX, ENTRY_OVER_LIMIT, detect_drift, text_digest, write_backup
from memory_core.entries import (
    CONTAINS_DELIMITER,
    SEPARATOR_TAIL,
    TARGETS,
    char_count,
    dedupe,
    delimiter_problem,
    file_name_for,
    normalise_newlines,
    parse_entries,
    reads_back_alone,
    reads_back_unchanged,
    serialise,
    split_pieces,
    usage_text,
)
from memory_core.files import FileRead, atomic_write_at, atomic_write_text, read_store_file, read_store_file_at
from memory_core.home import resolve_home
from memory_core.locking import LockOpenError, exclusive_lock, lock_path_for
from memory_core.messages import Result
from memory_core.snapshot import render_block
from memory_core.threats import MEMORY_SCOPE, first_threat_message

# From the 4th counted failure in a turn the agent gets the terminal "stop retrying" result.
BREAKER_THRESHOLD = 3

_MATCH_NONE = "none"
_MATCH_AMBIGUOUS = "ambiguous"
_MATCH_STALE = "stale"  # a pinned entry (newer agents' staged writes) that is no longer there


def _require_text(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, not {type(value).__name__}")
    return value


_SURROGATE = re.compile("[\ud800-\udfff]")


def unstorable_reason(content: str) -> str | None:
    """Why new content cannot be stored at all (memory-panel refusals, never counted)."""
    if "\x00" in content:
        return msg.NUL_CONTENT
    if not content.isascii() and _SURROGATE.search(content):
        return msg.SURROGATE_CONTENT
    return None


def delimiter_refusal(content: str) -> str | None:
    """Why a stripped, LF-only text would not read back as one unchanged entry (memory-panel's
    writes only; 0.19.0 writes it and reads back something else)."""
    problem = delimiter_problem(content)
    if problem is None:
        return None
    return msg.DELIMITER_INSIDE if problem == CONTAINS_DELIMITER else msg.DELIMITER_AT_END


def refusal_of_new_content(content: str, *, whole_entries: bool = False) -> str | None:
    """Why text about to be written is refused before any file access: unstorable characters
    first, then (``whole_entries``) text that would not read back as itself, then the threat
    scanner (strict), as every write path checks it."""
    return (
        unstorable_reason(content)
        or (delimiter_refusal(content) if whole_entries else None)
        or first_threat_message(content, MEMORY_SCOPE)
    )


def _new_text(value: object, name: str, whole_entries: bool) -> str:
    """New entry text as it will be written: stripped, and with ``whole_entries`` in the LF
    newlines every reader turns it into (so what is written is what reads back)."""
    text = _require_text(value, name)
    return (normalise_newlines(text) if whole_entries else text).strip()


def _joins(updated: list[str], whole_entries: bool) -> Result | None:
    """The refusal for a final list that would not read back as itself (an entry already in the
    file ending with a § line, written by another tool, followed by a new one)."""
    if whole_entries and not reads_back_unchanged(updated):
        return msg.failure(msg.ENTRIES_WOULD_JOIN)
    return None


def find_match(entries: Sequence[str], needle: str) -> tuple[str | int, list[int]]:
    """Index of the entry ``needle`` designates, or ``"none"`` / ``"ambiguous"`` with the candidates.

    Candidates are the entries containing ``needle``; one equal to it wins (D13). Otherwise
    several distinct candidates are ambiguous, and identical ones resolve to the first.
    """
    candidates = [index for index, entry in enumerate(entries) if needle in entry]
    if not candidates:
        return _MATCH_NONE, candidates
    for index in candidates:
        if entries[index] == needle:
            return index, candidates
    first = entries[candidates[0]]
    if any(entries[index] != first for index in candidates[1:]):
        return _MATCH_AMBIGUOUS, candidates
    return candidates[0], candidates


class _Parsed:
    """A store file's decoded text and what it parses to (``split_pieces`` and ``dedupe``).

    A memo of a pure function of ``text``, used only when a later read returns exactly this text,
    so it cannot be stale (docs/performance.md, "The memory store")."""

    __slots__ = ("_whole", "entries", "pieces", "text")

    def __init__(
        self, text: str, pieces: tuple[str, ...], entries: tuple[str, ...], whole: frozenset[str] | None = None
    ) -> None:
        self.text, self.pieces, self.entries, self._whole = text, pieces, entries, whole

    def whole(self) -> frozenset[str]:
        """The entries that read back alone (``reads_back_alone``), worked out when first asked."""
        if self._whole is None:
            # A piece is stripped, non-empty and without the delimiter: only an end in "\n§" can
            # keep it from reading back alone, rarely so; this test runs at C speed.
            if any(map(str.endswith, self.entries, repeat(SEPARATOR_TAIL))):
                self._whole = frozenset(filter(reads_back_alone, self.entries))
            else:
                self._whole = frozenset(self.entries)
        return self._whole


class _Written(NamedTuple):
    """The text this store last wrote for a target, the entries it joined, and the parse of the
    text read before (whose entries are known to be pieces)."""

    text: str
    entries: tuple[str, ...]
    basis: _Parsed | None


class MemoryStore:
    """MEMORY.md and USER.md of one home.

    ``home=None`` resolves the home from the environment on every access (as the agent does).
    """

    def __init__(
        self,
        home: str | os.PathLike[str] | None = None,
        memory_char_limit: int = 2200,
        user_char_limit: int = 1375,
        *,
        memory_enabled: bool = True,
        user_profile_enabled: bool = True,
        write_approval: bool = False,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._home = None if home is None else Path(home)
        self.memory_char_limit = memory_char_limit
        self.user_char_limit = user_char_limit
        self.memory_enabled = memory_enabled
        self.user_profile_enabled = user_profile_enabled
        self.write_approval = write_approval
        self.memory_entries: list[str] = []
        self.user_entries: list[str] = []
        self._system_prompt_snapshot: dict[str, str] = {"memory": "", "user": ""}
        self._consolidation_failures = 0
        self._unreadable: dict[str, str] = {}
        self._clock = clock
        # target -> (memories/ folder fd or None, path, home) while an operation holds the
        # target's lock: the write goes to the same folder and path without resolving again.
        self._writing: dict[str, tuple[int | None, Path, Path]] = {}
        # The paths of each target for the last home seen (docs/performance.md, "The memory store").
        self._paths_home: Path | None = None
        self._paths: dict[str, tuple[Path, Path]] = {}
        # target -> the last text this store read there with its parse, and the last it wrote.
        self._parsed: dict[str, _Parsed] = {}
        self._written: dict[str, _Written] = {}

    # -- where things are ---------------------------------------------------------------------

    @property
    def home(self) -> Path:
        # A given home is already the Path resolve_home would build again; None: the environment.
        return self._home if self._home is not None else resolve_home(None)

    @property
    def memories_dir(self) -> Path:
        return self.home / "memories"

    def path_for(self, target: str) -> Path:
        return self.memories_dir / file_name_for(target)

    def _paths_for(self, home: Path, target: str) -> tuple[Path, Path]:
        """(store file, lock file) of ``target`` in ``home``: ``path_for`` and ``lock_path_for``,
        built once per home value instead of on every operation."""
        if home is not self._paths_home and home != self._paths_home:
            self._paths_home, self._paths = home, {}
        paths = self._paths.get(target)
        if paths is None:
            path = home / "memories" / file_name_for(target)
            paths = self._paths[target] = (path, lock_path_for(path))
        return paths

    def limit_for(self, target: str) -> int:
        return self.user_char_limit if target == "user" else self.memory_char_limit

    def entries(self, target: str) -> list[str]:
        """The live list of ``target`` (the object itself, as 0.19.0 exposes it)."""
        return self.user_entries if target == "user" else self.memory_entries

    def _set_entries(self, target: str, entries: list[str]) -> None:
        if target == "user":
            self.user_entries = entries
        else:
            self.memory_entries = entries

    @property
    def load_errors(self) -> dict[str, str]:
        """Targets whose file exists but could not be read at the last access, with the reason."""
        return dict(self._unreadable)

    @property
    def consolidation_failures(self) -> int:
        return self._consolidation_failures

    # -- loading and the snapshot ---------------------------------------------------------------

    def load_from_disk(self) -> None:
        """Read both files into the live lists and freeze the system-prompt blocks. Never raises
        for a bad file: an unreadable target loads empty and is listed in ``load_errors``."""
        home = self.home
        with contextlib.suppress(OSError):  # reported per file below (a link out of the home too)
            safe_paths.make_dirs(self.memories_dir, home)
        for target in TARGETS:
            read = read_store_file(self.path_for(target), home=home)
            if read.text is None:
                self._unreadable[target] = read.error or "unreadable"
                self._set_entries(target, [])
            else:
                self._unreadable.pop(target, None)
                self._set_entries(target, parse_entries(read.text))
        self._system_prompt_snapshot = {
            target: render_block(target, self.entries(target), self.limit_for(target)) for target in TARGETS
        }

    def format_for_system_prompt(self, target: str) -> str | None:
        """The block frozen at load time; writes since then do not change it."""
        return self._system_prompt_snapshot.get(target) or None

    # -- the breaker ------------------------------------------------------------------------------

    def reset_consolidation_failures(self) -> None:
        self._consolidation_failures = 0

    def _counted(self, result: Result) -> Result:
        self._consolidation_failures += 1
        if self._consolidation_failures > BREAKER_THRESHOLD:
            return msg.breaker_terminal(self._consolidation_failures)
        return result

    def _succeeded(self, target: str, message: str, count: int | None = None) -> Result:
        """``count``: the live list's ``char_count`` when the caller knows it (``_write``'s answer)."""
        self._consolidation_failures = 0
        entries = self.entries(target)
        if count is None:
            count = char_count(entries)
        return msg.success(
            target=target,
            usage=usage_text(count, self.limit_for(target)),
            entry_count=len(entries),
            message=message,
        )

    # -- the critical section -------------------------------------------------------------------

    def _locked(self, target: str, *, check_drift: bool, body: Callable[[list[str]], Result]) -> Result:
        """Lock, (drift check,) re-read into the live list, then run ``body`` on that list."""
        home = self.home
        path, lock_path = self._paths_for(home, target)
        file_name = path.name
        # The common case, paid once per operation: memories/ is a plain folder of the home and
        # the file no link. The folder is opened once and the lock, the read and the write
        # open plain names in it (docs/safe_paths.md, "One folder per operation").
        folder = safe_paths.plain_folder(home, ("memories",))
        if folder is not None and safe_paths.is_link_at(folder, file_name):
            os.close(folder)
            folder = None
        if folder is None:
            # Nothing (not even the lock file) is created through a link leading out of the home.
            leaving = safe_paths.leaving_link(path, home)
            if leaving is not None:
                return msg.link_refusal(file_name, leaving)
            with contextlib.suppress(OSError):  # the lock open below fails with the reason
                safe_paths.make_dirs(path.parent, home)
        try:
            with exclusive_lock(lock_path, home=home, dir_fd=folder):
                read = read_store_file_at(folder, file_name) if folder is not None else None
                if read is None:
                    read = read_store_file(path, home=home)
                    self._writing[target] = (None, path, home)
                else:
                    self._writing[target] = (folder, path, home)
                try:
                    return self._locked_body(target, path, home, read, check_drift=check_drift, body=body)
                finally:
                    self._writing.pop(target, None)
        except LockOpenError as exc:
            return msg.lock_refusal(file_name, exc.reason)
        finally:
            if folder is not None:
                os.close(folder)

    def _locked_body(
        self, target: str, path: Path, home: Path, read: FileRead, *, check_drift: bool,
        body: Callable[[list[str]], Result],
    ) -> Result:
        """Under the lock, on the file as just read: the refusals, the drift guard, then ``body``."""
        file_name = path.name
        if read.linked:
            return msg.link_refusal(file_name, safe_paths.leaving_link(path, home) or file_name)
        if read.text is None:
            reason = read.error or "unreadable"
            self._unreadable[target] = reason
            return msg.unreadable_refusal(file_name, reason)
        self._unreadable.pop(target, None)
        pieces, entries = self._parse(target, read.text)
        if check_drift:
            drift = detect_drift(read.text, self.limit_for(target), pieces)
            if drift is not None:
                backup = write_backup(path.parent, file_name, read.text, clock=self._clock, home=home)
                self._set_entries(target, entries)
                return msg.drift_refusal(file_name, backup)
        self._set_entries(target, entries)
        return body(entries)

    def _parse(self, target: str, text: str) -> tuple[list[str], list[str]]:
        """``split_pieces(text)`` and its ``dedupe``, as new lists (callers mutate them). The text
        this store last read or wrote for ``target`` is not split again (docs/performance.md)."""
        memo = self._parsed.get(target)
        if memo is None or memo.text != text:
            memo = self._parse_of_written(target, text)
            if memo is None:
                pieces = split_pieces(text)
                memo = _Parsed(text, tuple(pieces), tuple(dedupe(pieces)))
            self._parsed[target] = memo
        return list(memo.pieces), list(memo.entries)

    def _parse_of_written(self, target: str, text: str) -> _Parsed | None:
        """The parse of ``text`` when it is what this store last wrote and certainly splits back
        into the entries written: distinct entries that each read back alone (known so from the
        parse they came from, or checked here) join into a text that splits back into exactly
        them (``reads_back_alone``). None otherwise: the caller splits the text."""
        written = self._written.pop(target, None)
        if written is None or written.text != text:
            return None
        known = written.basis.whole() if written.basis is not None else frozenset()
        distinct = frozenset(written.entries)
        if len(distinct) != len(written.entries) or not all(map(reads_back_alone, distinct - known)):
            return None
        return _Parsed(text, written.entries, written.entries, distinct)

    def _write(self, target: str, entries: list[str]) -> int:
        """Write ``entries`` (under the lock of ``_locked``); their ``char_count``."""
        folder, path, home = self._writing[target]
        text = serialise(entries)
        if folder is not None:
            atomic_write_at(folder, path.name, text, path=path, home=home)
        else:
            atomic_write_text(path, text, home=home)
        self._set_entries(target, entries)
        # Checked only if the next read returns this very text (another writer may come first).
        self._written[target] = _Written(text, tuple(entries), self._parsed.get(target))
        return len(text)  # char_count(entries): the length of their join

    def _usage_before(self, target: str, entries: list[str]) -> tuple[int, int]:
        return char_count(entries), self.limit_for(target)

    def _write_replacement(
        self, target: str, entries: list[str], updated: list[str], *, whole_entries: bool = False
    ) -> Result:
        """The end of every replace: the budget on the new list, then the write."""
        total = char_count(updated)
        current, limit = self._usage_before(target, entries)
        if total > limit:
            error = msg.over_budget_replace(total, limit)
            return self._counted(msg.with_entries(error, entries, current, limit))
        joined = _joins(updated, whole_entries)
        if joined:
            return joined
        return self._succeeded(target, msg.REPLACED, self._write(target, updated))

    # -- operations -------------------------------------------------------------------------------

    def add(self, target: str, content: str, *, refuse_drift: bool = False, whole_entries: bool = False) -> Result:
        """0.19.0's add. ``refuse_drift`` (memory-panel): run the drift guard under the lock first,
        as replace does, so an add never rewrites a drifted file (refusal + backup, not counted).
        ``whole_entries`` (memory-panel): refuse text that would not read back as this one entry
        (see ``delimiter_refusal``; not counted)."""
        content = _new_text(content, "content", whole_entries)
        if not content:
            return msg.failure(msg.EMPTY_CONTENT)
        refusal = refusal_of_new_content(content, whole_entries=whole_entries)
        if refusal:
            return msg.failure(refusal)

        def body(entries: list[str]) -> Result:
            if content in entries:
                return self._succeeded(target, msg.DUPLICATE)
            current, limit = self._usage_before(target, entries)
            updated = [*entries, content]
            if char_count(updated) > limit:
                error = msg.over_budget_add(current, limit, len(content))
                return self._counted(msg.with_entries(error, entries, current, limit))
            joined = _joins(updated, whole_entries)
            if joined:
                return joined
            return self._succeeded(target, msg.ADDED, self._write(target, updated))

        return self._locked(target, check_drift=refuse_drift, body=body)

    def replace(
        self, target: str, old_text: str, new_content: str, *, matched_entry: object = None, whole_entries: bool = False
    ) -> Result:
        """0.19.0's replace. ``matched_entry`` (a newer agent's staged write): only that exact
        entry may be replaced; once it is gone the write is refused (not counted).
        ``whole_entries`` as for :meth:`add`."""
        old_text = _new_text(old_text, "old_text", whole_entries)
        new_content = _new_text(new_content, "new_content", whole_entries)
        if not old_text:
            return msg.failure(msg.EMPTY_OLD_TEXT)
        if not new_content:
            return msg.failure(msg.EMPTY_NEW_CONTENT)
        refusal = refusal_of_new_content(new_content, whole_entries=whole_entries)
        if refusal:
            return msg.failure(refusal)

        def body(entries: list[str]) -> Result:
            found, candidates = _pinned_or_match(entries, old_text, matched_entry)
            if found == _MATCH_STALE:
                return msg.failure(msg.stale_entry(matched_entry))
            if found == _MATCH_NONE:
                return self._counted(msg.with_entries(msg.no_match(old_text, "replace"), entries))
            if found == _MATCH_AMBIGUOUS:
                return msg.failure(msg.ambiguous(old_text), matches=msg.previews([entries[i] for i in candidates]))
            assert isinstance(found, int)
            updated = list(entries)
            updated[found] = new_content
            return self._write_replacement(target, entries, updated, whole_entries=whole_entries)

        return self._locked(target, check_drift=True, body=body)

    def remove(self, target: str, old_text: str, *, matched_entry: object = None) -> Result:
        """0.19.0's remove; ``matched_entry`` as in :meth:`replace`."""
        old_text = _require_text(old_text, "old_text").strip()
        if not old_text:
            return msg.failure(msg.EMPTY_OLD_TEXT)

        def body(entries: list[str]) -> Result:
            found, candidates = _pinned_or_match(entries, old_text, matched_entry)
            if found == _MATCH_STALE:
                return msg.failure(msg.stale_entry(matched_entry))
            if found == _MATCH_NONE:
                return self._counted(msg.with_entries(msg.no_match(old_text, "remove"), entries))
            if found == _MATCH_AMBIGUOUS:
                return msg.failure(msg.ambiguous(old_text), matches=msg.previews([entries[i] for i in candidates]))
            assert isinstance(found, int)
            updated = entries[:found] + entries[found + 1 :]
            return self._succeeded(target, msg.REMOVED, self._write(target, updated))

        return self._locked(target, check_drift=True, body=body)

    def apply_batch(
        self, target: str, operations: Sequence[dict[str, Any]] | None, *,
        refuse_emptying: bool = False, whole_entries: bool = False,
    ) -> Result:
        """Apply every operation or none; only the final list is checked against the budget.
        ``refuse_emptying`` (newer agents): a batch that would remove every entry of a store that
        had some is refused (counted), as those agents do. ``whole_entries`` as for :meth:`add`."""
        if not operations:
            return msg.failure(msg.EMPTY_OPERATIONS)
        ops = _normalise_operations(operations, whole_entries=whole_entries)
        # D12a: the exact (stripped) text that would be written is what gets scanned.
        for index, (action, content, _old, _pin) in enumerate(ops, start=1):
            if action in ("add", "replace") and content:
                refusal = refusal_of_new_content(content, whole_entries=whole_entries)
                if refusal:
                    return msg.failure(f"Operation {index}: {refusal}")
        total_ops = len(ops)

        def body(entries: list[str]) -> Result:
            current, limit = self._usage_before(target, entries)
            working = list(entries)
            for index, (action, content, old_text, pinned) in enumerate(ops, start=1):
                error = _apply_one(working, msg.batch_position(index, action), action, content, old_text, pinned)
                if error is not None:
                    return self._counted(msg.with_entries(error + msg.BATCH_SUFFIX, entries, current, limit))
            if refuse_emptying and entries and not working:
                error = msg.refusing_to_empty(self.path_for(target).name)
                return self._counted(msg.with_entries(error + msg.BATCH_SUFFIX, entries, current, limit))
            total = char_count(working)
            if total > limit:
                error = msg.over_budget_batch(total_ops, total, limit)
                return self._counted(msg.with_entries(error, entries, current, limit))
            joined = _joins(working, whole_entries)
            if joined:
                return joined
            return self._succeeded(target, msg.applied(total_ops), self._write(target, working))

        return self._locked(target, check_drift=True, body=body)

    # -- memory-panel extensions ------------------------------------------------------------------

    def replace_exact(self, target: str, old_content: str, new_content: str) -> Result:
        """Replace the entry whose text EQUALS ``old_content`` (no substring matching).

        For the panel, which edits the entry the admin saw: if that text is no longer an entry
        when the lock is held (changed or removed meanwhile), nothing is written and the failure
        lists it under ``missing``, since any other entry merely containing it is not the one the
        admin meant. The new content goes through replace's checks at the same points (strip,
        empty, NUL, scanner before the lock; drift guard and budget under it), and is always
        held to ``whole_entries``; refusals are counted by the breaker exactly where replace's
        are (a vanished entry as a no-match).
        """
        old_content = _require_text(old_content, "old_content")
        new_content = _new_text(new_content, "new_content", True)
        if not old_content.strip():
            return msg.failure(msg.EMPTY_OLD_CONTENT)
        if not new_content:
            return msg.failure(msg.EMPTY_NEW_CONTENT)
        refusal = refusal_of_new_content(new_content, whole_entries=True)
        if refusal:
            return msg.failure(refusal)

        def body(entries: list[str]) -> Result:
            try:
                index = entries.index(old_content)
            except ValueError:
                gone = msg.failure(msg.ENTRY_CHANGED, missing=[old_content], current_entries=list(entries))
                return self._counted(gone)
            updated = list(entries)
            updated[index] = new_content
            return self._write_replacement(target, entries, updated, whole_entries=True)

        return self._locked(target, check_drift=True, body=body)

    def delete_exact(self, target: str, contents: Sequence[str]) -> Result:
        """Delete the entries whose text equals one of ``contents``, all or none.

        For the panel, which deletes what the admin saw: no substring matching, and if any of
        them is no longer in the file (changed or removed meanwhile) nothing is written and the
        failure lists them under ``missing``. Drift and unreadable files refuse as ``remove``
        does. Not counted by the breaker.
        """
        wanted = list(dict.fromkeys(_require_text(text, "content") for text in contents))
        if not wanted:
            return msg.failure(msg.NOTHING_SELECTED)

        def body(entries: list[str]) -> Result:
            present = set(entries)
            missing = [text for text in wanted if text not in present]
            if missing:
                return msg.failure(msg.entries_gone(len(missing)), missing=missing, current_entries=list(entries))
            doomed = set(wanted)
            self._write(target, [entry for entry in entries if entry not in doomed])
            result = self._succeeded(target, msg.deleted(len(wanted)))
            result["removed"] = wanted
            return result

        return self._locked(target, check_drift=True, body=body)

    def exchange_exact(
        self,
        target: str,
        old_contents: Sequence[str],
        new_contents: Sequence[str],
        *,
        positions: Sequence[int] | None = None,
    ) -> Result:
        """Swap the entries whose texts EQUAL ``old_contents`` for ``new_contents`` in one write.

        One all-or-nothing batch for the panel's maintenance (merge: many old, one new; delete a
        finding: one old, none new; undo a merge: one old, many new). Under the lock, with the
        drift guard: if any old text is no longer an entry, nothing is written and the failure
        lists it under ``missing``. The new texts go where the first old entry was, or, with
        ``positions`` (one per new text, positions in the final list, ascending), back where they
        were; a new text already held elsewhere is not added twice. Every new text is checked as
        a batch's contents are (strip, NUL, scanner) before the lock, and only the final list
        against the budget. Not counted by the breaker (an admin's action, not an agent turn).
        The success message counts the operations of the equivalent batch (one replace per
        pair, then removes or adds).
        """
        wanted = list(dict.fromkeys(_require_text(text, "old_content") for text in old_contents))
        fresh = [_new_text(text, "new_content", True) for text in new_contents]
        if not wanted and not fresh:
            return msg.failure(msg.NOTHING_SELECTED)
        if any(not text for text in fresh):
            return msg.failure(msg.EMPTY_NEW_CONTENT)
        if positions is not None and (len(positions) != len(fresh) or list(positions) != sorted(positions)):
            raise ValueError("positions must give one ascending position per new text")
        for index, text in enumerate(fresh, start=1):
            refusal = refusal_of_new_content(text, whole_entries=True)
            if refusal:
                return msg.failure(f"Operation {index}: {refusal}")
        operations = max(len(wanted), len(fresh))

        def body(entries: list[str]) -> Result:
            present = set(entries)
            missing = [text for text in wanted if text not in present]
            if missing:
                return msg.failure(msg.entries_gone(len(missing)), missing=missing, current_entries=list(entries))
            updated = exchanged(entries, wanted, fresh, positions)
            total = char_count(updated)
            current, limit = self._usage_before(target, entries)
            if total > limit:
                return msg.with_entries(msg.over_budget_batch(operations, total, limit), entries, current, limit)
            joined = _joins(updated, True)
            if joined:
                return joined
            self._write(target, updated)
            result = self._succeeded(target, msg.applied(operations))
            # What an undo needs: the removed texts in file order with their positions, and the
            # texts that were really added (one already held elsewhere was not).
            removed = sorted((entries.index(text), text) for text in wanted)
            result["removed"] = [text for _position, text in removed]
            result["removed_positions"] = [position for position, _text in removed]
            kept = set(entries) - set(wanted)
            result["added"] = [text for text in dict.fromkeys(fresh) if text not in kept]
            return result

        return self._locked(target, check_drift=True, body=body)

    def resolve_drift(self, target: str, expected_digest: str) -> Result:
        """Rewrite a round-trip-drifted file as the entries the agent loads from it.

        Only if the file still has exactly the text the admin saw (``expected_digest``, see
        ``StoreState.digest``) and only after a backup of it was written. The rewrite changes
        nothing the agent sees: the entries it loads before and after are the same list; only
        blank lines and spaces around separators, empty pieces and duplicates go. A file with an
        entry longer than the limit is refused (rewriting cannot shorten it). Not counted.
        """
        _require_text(expected_digest, "expected_digest")
        path = self.path_for(target)
        file_name = path.name

        def body(entries: list[str]) -> Result:
            read = read_store_file(path, home=self.home)  # again, under the lock: the text itself is compared
            text = read.text or ""
            if read.text is None or text_digest(text) != expected_digest:
                return msg.failure(msg.drift_stale(file_name))
            drift = detect_drift(text, self.limit_for(target))
            if drift is None:
                return msg.failure(msg.no_drift(file_name))
            if drift.rule == ENTRY_OVER_LIMIT or any(len(entry) > self.limit_for(target) for entry in entries):
                longest = max(map(len, entries))
                return msg.failure(msg.drift_not_resolvable(file_name, longest, self.limit_for(target)))
            if not reads_back_unchanged(entries):
                # "x\n§ \n§\ny" loads as "x\n§" and "y"; written cleanly it would load as "x" and "§\ny".
                return msg.failure(msg.drift_would_join(file_name))
            backup = write_backup(path.parent, file_name, text, clock=self._clock, home=self.home)
            if backup.endswith(BACKUP_FAILED_SUFFIX):
                return msg.failure(msg.drift_backup_failed(file_name, backup))
            self._write(target, list(entries))
            result = self._succeeded(target, msg.drift_resolved(file_name, len(entries), backup))
            result["drift_backup"] = backup
            return result

        return self._locked(target, check_drift=False, body=body)


def exchanged(
    entries: Sequence[str], old_contents: Sequence[str], new_contents: Sequence[str], positions: Sequence[int] | None
) -> list[str]:
    """The list ``exchange_exact`` writes: ``entries`` without ``old_contents``, with
    ``new_contents`` where the first of them was (or, with ``positions``, at those positions of
    the result); a new text already kept is not added twice. Every old text must be an entry."""
    doomed = set(old_contents)
    kept = [entry for entry in entries if entry not in doomed]
    updated = list(kept)
    if positions is None:
        first = min((entries.index(text) for text in old_contents), default=len(entries))
        insert_at = sum(1 for entry in entries[:first] if entry not in doomed)
        updated[insert_at:insert_at] = [text for text in dict.fromkeys(new_contents) if text not in kept]
    else:
        for position, text in zip(positions, new_contents, strict=True):
            if text not in updated:
                updated.insert(min(position, len(updated)), text)
    return updated


def _normalise_operations(
    operations: Sequence[Any], *, whole_entries: bool = False
) -> list[tuple[Any, str, str, object]]:
    """(action, stripped content, stripped old_text, pinned entry or None) per operation (LF
    newlines with ``whole_entries``); TypeError on a bad shape."""
    if not isinstance(operations, (list, tuple)):
        raise TypeError("operations must be a list of {action, content?, old_text?} objects.")
    ops = []
    for index, op in enumerate(operations, start=1):
        if not op:
            op = {}
        if not isinstance(op, dict):
            raise TypeError(f"Operation {index} must be an object, not {type(op).__name__}.")
        content = op.get("content") or ""
        old_text = op.get("old_text") or ""
        if not isinstance(content, str):
            raise TypeError(f"Operation {index}: content must be a string, not {type(content).__name__}.")
        if not isinstance(old_text, str):
            raise TypeError(f"Operation {index}: old_text must be a string, not {type(old_text).__name__}.")
        if whole_entries:
            content, old_text = normalise_newlines(content), normalise_newlines(old_text)
        ops.append((op.get("action"), content.strip(), old_text.strip(), op.get("matched_entry")))
    return ops


def _pinned_or_match(entries: Sequence[str], old_text: str, pinned: object) -> tuple[str | int, list[int]]:
    """``find_match``, or for a write pinned to a whole entry: that entry's index, or stale."""
    if pinned is None:
        return find_match(entries, old_text)
    if isinstance(pinned, str) and pinned in entries:
        return entries.index(pinned), []
    return _MATCH_STALE, []


def _apply_one(working: list[str], pos: str, action: Any, content: str, old_text: str,
               pinned: object = None, origins: list[str | None] | None = None) -> str | None:
    """Apply one batch operation to ``working`` in place; the error text if it cannot be applied.
    ``origins`` (see ``batch_fates``) is kept in step: the entry each working item started as."""
    if action == "add":
        if not content:
            return f"{pos}: content is required."
        if content not in working:
            working.append(content)
            if origins is not None:
                origins.append(None)
        return None
    if action not in ("replace", "remove"):
        return f"{pos}: unknown action. Use add, replace, or remove."
    if not old_text:
        return f"{pos}: old_text is required."
    if action == "replace" and not content:
        return f"{pos}: content is required (use action='remove' to delete)."
    found, _candidates = _pinned_or_match(working, old_text, pinned)
    if found == _MATCH_STALE:
        return f"{pos}: {msg.stale_entry(pinned)}"
    if found == _MATCH_NONE:
        return f"{pos}: no entry matched '{old_text}'."
    if found == _MATCH_AMBIGUOUS:
        return f"{pos}: '{old_text}' matched multiple distinct entries -- be more specific."
    assert isinstance(found, int)
    if action == "replace":
        working[found] = content
    else:
        del working[found]
        if origins is not None:
            del origins[found]
    return None


def batch_fates(entries: Sequence[str], operations: Any, *, whole_entries: bool = False) -> dict[str, str | None]:
    """What a batch would make of the entries it removes or replaces: entry → its final text (a
    replace, however many steps) or None (removed), worked out by the batch's own steps on a copy
    (nothing is written). Empty when the batch would be refused as a whole, since it then changes
    nothing. The panel offers these entries' provider copies when a staged batch is approved
    (docs/provider_contents.md §Keeping the layers consistent)."""
    try:
        ops = _normalise_operations(operations or [], whole_entries=whole_entries)
    except TypeError:
        return {}
    working: list[str] = list(entries)
    origins: list[str | None] = list(entries)
    for index, (action, content, old_text, pinned) in enumerate(ops, start=1):
        if _apply_one(working, msg.batch_position(index, action), action, content, old_text, pinned, origins):
            return {}
    final = {origin: text for origin, text in zip(origins, working, strict=True) if origin is not None}
    return {entry: final.get(entry) for entry in entries if final.get(entry) != entry}

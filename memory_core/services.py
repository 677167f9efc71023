"""Writes the panel makes (services). Each call builds a store from the home's config.yaml,
validates the target strictly, and goes through the same locked path as the agent's store.

Results are the store's dicts (``success`` first, ``error`` on failure). The panel writes
directly, as an administrator: the write-approval gate applies to the agent's tool calls only.
Every write here is held to ``whole_entries`` (``MemoryStore.add``): text that would not read
back as the same entry is refused, and new text is written with LF newlines.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from memory_core import messages as msg
from memory_core.config import MemoryConfig, store_from_config
from memory_core.entries import TARGETS
from memory_core.messages import Result
from memory_core.store import MemoryStore

Home = str | os.PathLike[str] | None


def target_error(target: object) -> Result | None:
    """The refusal for anything but "memory" or "user" (0.19.0's store would map it to MEMORY.md)."""
    if isinstance(target, str) and target in TARGETS:
        return None
    return msg.failure(msg.invalid_target(target))


def _store(home: Home, config: MemoryConfig | None) -> MemoryStore:
    # No load: every write re-reads the file under the lock anyway.
    return store_from_config(home, config, load=False)


def _text_error(**values: object) -> Result | None:
    for name, value in values.items():
        if not isinstance(value, str):
            return msg.failure(f"{name} must be text.")
    return None


def add_entry(
    *, home: Home, target: str, content: str, config: MemoryConfig | None = None, refuse_drift: bool = False
) -> Result:
    """The agent's add. ``refuse_drift=True`` (the panel's rule: never write a drifted file)
    checks drift under the lock first and refuses as replace does, with a backup."""
    refusal = target_error(target) or _text_error(content=content)
    return refusal or _store(home, config).add(target, content, refuse_drift=refuse_drift, whole_entries=True)


def replace_entry(
    *, home: Home, target: str, old_text: str, new_content: str, config: MemoryConfig | None = None
) -> Result:
    refusal = target_error(target) or _text_error(old_text=old_text, new_content=new_content)
    return refusal or _store(home, config).replace(target, old_text, new_content, whole_entries=True)


def replace_entry_exact(
    *, home: Home, target: str, old_content: str, new_content: str, config: MemoryConfig | None = None
) -> Result:
    """Replace the entry whose text equals ``old_content``, under the lock (see ``replace_exact``).

    If it is no longer an entry: ``{"success": False, "error": "Nothing was replaced: ...",
    "missing": [old_content], "current_entries": [...]}`` and nothing is written."""
    refusal = target_error(target) or _text_error(old_content=old_content, new_content=new_content)
    return refusal or _store(home, config).replace_exact(target, old_content, new_content)


def resolve_drift(*, home: Home, target: str, expected_digest: str, config: MemoryConfig | None = None) -> Result:
    """Rewrite a drifted file as its parsed entries, after a backup, if it still has the text
    whose ``StoreState.digest`` is ``expected_digest`` (see ``MemoryStore.resolve_drift``)."""
    refusal = target_error(target) or _text_error(expected_digest=expected_digest)
    return refusal or _store(home, config).resolve_drift(target, expected_digest)


def remove_entry(*, home: Home, target: str, old_text: str, config: MemoryConfig | None = None) -> Result:
    refusal = target_error(target) or _text_error(old_text=old_text)
    return refusal or _store(home, config).remove(target, old_text)


def apply_operations(*, home: Home, target: str, operations: Any, config: MemoryConfig | None = None) -> Result:
    """A batch, all or nothing. A malformed batch is a failure result, not an exception."""
    refusal = target_error(target)
    if refusal:
        return refusal
    if operations and not isinstance(operations, list):
        return msg.failure("operations must be a list of {action, content?, old_text?} objects.")
    try:
        return _store(home, config).apply_batch(target, operations, whole_entries=True)
    except TypeError as exc:
        return msg.failure(str(exc))


def delete_entries(*, home: Home, target: str, contents: Sequence[str], config: MemoryConfig | None = None) -> Result:
    """Delete entries by their exact text under the lock; all or nothing (see ``delete_exact``)."""
    refusal = target_error(target)
    if refusal:
        return refusal
    if isinstance(contents, str) or not all(isinstance(text, str) for text in contents):
        return msg.failure("contents must be a list of entry texts.")
    return _store(home, config).delete_exact(target, contents)


def exchange_entries(
    *,
    home: Home,
    target: str,
    old_contents: Sequence[str],
    new_contents: Sequence[str],
    positions: Sequence[int] | None = None,
    config: MemoryConfig | None = None,
) -> Result:
    """Swap entries by exact text in one locked, all-or-nothing write (see ``exchange_exact``):
    merging duplicates, deleting or rewriting a finding, and undoing a merge."""
    refusal = target_error(target)
    if refusal:
        return refusal
    for name, texts in (("old_contents", old_contents), ("new_contents", new_contents)):
        if isinstance(texts, str) or not all(isinstance(text, str) for text in texts):
            return msg.failure(f"{name} must be a list of entry texts.")
    if positions is not None and not all(isinstance(p, int) and not isinstance(p, bool) and p >= 0 for p in positions):
        return msg.failure("positions must be whole numbers of 0 or more.")
    try:
        return _store(home, config).exchange_exact(target, old_contents, new_contents, positions=positions)
    except ValueError as exc:
        return msg.failure(str(exc))


@dataclass
class ReaddOutcome:
    """What happened to each entry handed back to :func:`readd_entries`."""

    added: list[str] = field(default_factory=list)
    already_present: list[str] = field(default_factory=list)
    # entry text -> the store's refusal (over budget, blocked by the scanner, ...)
    refused: dict[str, str] = field(default_factory=dict)

    @property
    def all_back(self) -> bool:
        return not self.refused


def readd_entries(
    *,
    home: Home,
    target: str,
    contents: Sequence[str],
    config: MemoryConfig | None = None,
    refuse_drift: bool = False,
) -> ReaddOutcome:
    """Undo for deletions: add each entry back through the normal add path, in order, as long
    as the budget allows. Entries that do not fit (or are refused) are reported, not forced.

    ``refuse_drift``: as for :func:`add_entry`. Once the file itself refuses (drifted,
    unreadable, lock), the remaining entries get the same refusal without another attempt, so
    one undo leaves at most one drift backup."""
    refusal = target_error(target)
    if refusal:
        raise ValueError(refusal["error"])
    if isinstance(contents, str) or not all(isinstance(text, str) for text in contents):
        raise ValueError("contents must be a list of entry texts.")
    store = _store(home, config)
    outcome = ReaddOutcome()
    file_refusal = ""
    for text in contents:
        if file_refusal:
            outcome.refused[text] = file_refusal
            continue
        # A panel action is not an agent turn: never let earlier refusals trip the breaker.
        store.reset_consolidation_failures()
        result = store.add(target, text, refuse_drift=refuse_drift, whole_entries=True)
        if not result.get("success"):
            outcome.refused[text] = result.get("error", "")
            if msg.is_file_refusal(result):
                file_refusal = outcome.refused[text]
        elif result.get("message") == msg.DUPLICATE:
            outcome.already_present.append(text)
        else:
            outcome.added.append(text)
    return outcome

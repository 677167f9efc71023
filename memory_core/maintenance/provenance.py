"""Provenance: which write put each entry's current text into its store (docs/agent_formats.md §Memory tool calls in
history).

Pure logic, no database and no Django: the history reader (``memory_core.history.memory_writes``)
and the panel's audit log turn their records into ``WriteEvent`` values; ``trace_entries`` replays
them in time order and says, for every entry of a store, the event that wrote its current text.

The replay keeps a model of the texts the recorded writes left in each store, so that an ``add``
of a text that was already there (skipped by the agent, silently inside a batch) does not count
as a newer write, and a ``replace`` or ``remove`` takes the text it hit out of the model. Texts
the history never saw (the background review, hand edits, writes from before history was kept)
have no record; an entry whose text differs in any way from every recorded write has none either.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from memory_core.entries import TARGETS, dedupe, split_pieces

TOOL = "tool"  # a ``memory`` tool call recorded in state.db
PANEL = "panel"  # a write made in the panel (from its audit log)
ALREADY_EXISTS = "Entry already exists (no duplicate added)."
SECONDS_PER_DAY = 86400.0


@dataclass(frozen=True)
class MemoryOp:
    action: str  # "add", "replace", "remove", or "restore" (the panel putting back what it removed)
    content: str = ""
    old_text: str = ""


@dataclass(frozen=True)
class WriteEvent:
    """One write that landed: its operations, in order, on one store."""

    target: str
    ops: tuple[MemoryOp, ...]
    at: float  # Unix epoch seconds
    origin: str  # TOOL or PANEL
    order: int = 0  # tie-break at equal times (message id, audit row id)
    session_id: str | None = None
    message_id: int | None = None  # the assistant row holding the call
    source: str = ""  # the session's source (cli, telegram, …); "panel" for the panel
    actor: str = ""  # the panel account that acted
    audit_id: int | None = None
    action: str = ""  # how the panel named it (add, edit, merge, approve, …)

    @property
    def sort_key(self) -> tuple[float, int, int]:
        # A panel write and a tool write at the same instant: the history's row first.
        return (self.at, 0 if self.origin == TOOL else 1, self.order)


@dataclass(frozen=True)
class EntrySource:
    """Where an entry's current text came from."""

    write: WriteEvent
    now: float = field(compare=False)

    @property
    def age_days(self) -> float:
        return max(0.0, (self.now - self.write.at) / SECONDS_PER_DAY)


def stored_texts(content: Any) -> list[str]:
    """The entries a write of ``content`` leaves in the file once it is read back: stripped,
    newlines translated, split on the delimiter, pieces stripped, empties dropped."""
    if not isinstance(content, str):
        return []
    text = content.strip().replace("\r\n", "\n").replace("\r", "\n")
    return dedupe(split_pieces(text))


def parse_arguments(arguments: Any) -> tuple[str, tuple[MemoryOp, ...]] | None:
    """A ``memory`` call's target and operations (JSON text or a dict), or None when the call
    cannot have written anything (unknown target, no operation)."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return None
    if not isinstance(arguments, dict):
        return None
    target = arguments.get("target")
    target = "memory" if target is None else target
    if target not in TARGETS:
        return None
    if arguments.get("operations") is not None:
        raw_ops = arguments["operations"]
        if not isinstance(raw_ops, list) or not raw_ops:
            return None
    else:
        raw_ops = [arguments]
    batch = arguments.get("operations") is not None
    ops = []
    for raw in raw_ops:
        if not isinstance(raw, dict) or raw.get("action") not in ("add", "replace", "remove"):
            continue
        content, old_text = raw.get("content"), raw.get("old_text")
        # Newer agents take ``new_text`` for the content (a batch operation's when it has none; a
        # single call's when ``content`` is absent). 0.19.0 refused such calls, so no result of its
        # says they wrote.
        if (not content if batch else content is None) and isinstance(raw.get("new_text"), str):
            content = raw["new_text"]
        ops.append(MemoryOp(
            action=raw["action"],
            content=content if isinstance(content, str) else "",
            old_text=old_text.strip() if isinstance(old_text, str) else "",
        ))
    return (target, tuple(ops)) if ops else None


def parse_result(content: Any) -> dict[str, Any] | None:
    if isinstance(content, dict):
        return content
    if not isinstance(content, str):
        return None
    try:
        value = json.loads(content)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def result_wrote(result: Mapping[str, Any] | None, ops: Sequence[MemoryOp]) -> bool:
    """Whether a call with this tool result changed its store: it parses, says ``success``, was
    not only staged for approval, and is not a single add of a text that was already there."""
    if result is None or result.get("success") is not True or result.get("staged") is True:
        return False
    return not (len(ops) == 1 and ops[0].action == "add" and result.get("message") == ALREADY_EXISTS)


def _hit(present: dict[str, WriteEvent], old_text: str) -> str | None:
    """The one modelled text an ``old_text`` points at (None when none or several do)."""
    if not old_text:
        return None
    if old_text in present:
        return old_text
    hits = [text for text in present if old_text in text]
    return hits[0] if len(hits) == 1 else None


def trace_entries(
    stores: Mapping[str, Sequence[str]], events: Iterable[WriteEvent], *, now: float
) -> dict[str, dict[str, EntrySource]]:
    """``{target: {entry text: EntrySource}}`` for the entries of ``stores`` that a recorded
    write produced. The latest write of a text wins, except an add of a text the recorded writes
    had already put there and not taken away (the agent skips those)."""
    present: dict[str, dict[str, WriteEvent]] = {target: {} for target in TARGETS}
    latest: dict[str, dict[str, WriteEvent]] = {target: {} for target in TARGETS}
    for event in sorted(events, key=lambda e: e.sort_key):
        model, last = present[event.target], latest[event.target]
        for op in event.ops:
            if op.action == "add":
                for text in stored_texts(op.content):
                    if text not in model:
                        model[text] = last[text] = event
            elif op.action == "replace":
                hit = _hit(model, op.old_text)
                if hit is not None:
                    del model[hit]
                for text in stored_texts(op.content):
                    model[text] = last[text] = event
            elif op.action == "remove":
                hit = _hit(model, op.old_text)
                if hit is not None:
                    del model[hit]
            elif op.action == "restore":
                # An undo puts a text back as it was: it keeps the write that first produced it.
                for text in stored_texts(op.content):
                    if text not in model:
                        model[text] = last.setdefault(text, event)
    found: dict[str, dict[str, EntrySource]] = {}
    for target, entries in stores.items():
        model, last = present.get(target, {}), latest.get(target, {})
        found[target] = {}
        for text in entries:
            event = model.get(text) or last.get(text)
            if event is not None:
                found[target][text] = EntrySource(write=event, now=now)
    return found

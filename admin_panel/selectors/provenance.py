"""Where each memory entry came from: the agent's ``memory`` calls in ``state.db`` and the writes
made in the panel (its audit log), traced by ``memory_core.maintenance.provenance``.

The history read is kept while ``state.db`` (and its WAL) is unchanged, and the trace while the
history, the audit log and the entries are unchanged, so the memory page and its live updates
do not read the whole history on every render.
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from django.db.models import Max
from django.urls import get_script_prefix, reverse

from admin_panel.models import AuditEntry
from admin_panel.selectors.sessions import _file_stamp, epoch
from memory_core.caching import MISSING, KeyedCache, home_key
from memory_core.history import HistoryUnavailable, open_history, state_db_path
from memory_core.history.memory_writes import MemoryHistory, read_memory_history
from memory_core.maintenance.provenance import PANEL, EntrySource, MemoryOp, WriteEvent, parse_arguments, trace_entries

# state.db's real path -> (history, state) under the file's stamp (state.db and its log).
_histories = KeyedCache("memory writes of the history", size=16)
# A trace is reused for this long at most (ages move on even when nothing else does).
_TRACE_SECONDS = 60.0
# home -> (fingerprint, trace) under (history stamp, last audit row, the entries traced).
_traces = KeyedCache("traced entry sources", size=16, max_age=_TRACE_SECONDS)
# (home, script prefix) -> the trace shaped for the pages, under the trace's own fingerprint.
_views = KeyedCache("entry sources as shown", size=16)


def memory_history(*, home: Path) -> tuple[MemoryHistory | None, str]:
    """The recorded memory writes of ``home``'s history and the history's state ("" when read,
    else a ``HistoryUnavailable`` state such as ``missing``)."""
    path = state_db_path(home)
    key, stamp = os.path.realpath(path), _file_stamp(path)
    hit = _histories.get(key, stamp)
    if hit is not MISSING:
        return hit
    try:
        with open_history(home) as history:
            found: MemoryHistory | None = read_memory_history(history)
        state = ""
    except HistoryUnavailable as exc:
        found, state = None, exc.state
    return _histories.put(key, stamp, (found, state))


def _texts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _panel_ops(entry: AuditEntry) -> tuple[str, tuple[MemoryOp, ...]] | None:
    details = entry.details if isinstance(entry.details, dict) else {}
    action = details.get("action")
    if entry.kind == AuditEntry.Kind.APPROVAL:
        if action != "approve" or details.get("result") != "applied":
            return None
        return parse_arguments(details.get("payload"))
    target = details.get("target")
    if target not in ("memory", "user"):
        return None
    content, old = details.get("content"), details.get("old_content")
    ops: list[MemoryOp] = []
    if action == "add":
        ops = [MemoryOp("add", content=text) for text in _texts(content)]
    elif action == "edit" and isinstance(content, str) and isinstance(old, str):
        ops = [MemoryOp("replace", content=content, old_text=old)]
    elif action == "merge" and isinstance(content, str):
        olds = _texts(old)
        ops = [MemoryOp("replace", content=content, old_text=olds[0])] if olds else [MemoryOp("add", content=content)]
        ops += [MemoryOp("remove", old_text=text) for text in olds[1:]]
    elif action == "delete":
        ops = [MemoryOp("remove", old_text=text) for text in _texts(content)]
    elif action == "restore":
        ops = [MemoryOp("remove", old_text=text) for text in _texts(old)]
        ops += [MemoryOp("restore", content=text) for text in _texts(content)]
    return (target, tuple(ops)) if ops else None


def panel_writes(*, home: Path) -> list[WriteEvent]:
    """The panel's own writes to ``home``'s stores, from its audit log."""
    rows = AuditEntry.objects.filter(
        home=str(home), kind__in=(AuditEntry.Kind.MEMORY_ENTRY, AuditEntry.Kind.APPROVAL)
    ).order_by("pk")
    events = []
    for entry in rows:
        parsed = _panel_ops(entry)
        if parsed is None:
            continue
        target, ops = parsed
        events.append(WriteEvent(
            target=target, ops=ops, at=entry.created_at.timestamp(), origin=PANEL, order=entry.pk,
            source=PANEL, actor=entry.username, audit_id=entry.pk, action=str(entry.details.get("action", "")),
        ))
    return events


def _trace(*, home: Path, stores: Mapping[str, Sequence[str]]) -> tuple[tuple, dict[str, dict[str, EntrySource]]]:
    found, _state = memory_history(home=home)
    last_audit = AuditEntry.objects.filter(home=str(home)).aggregate(last=Max("pk"))["last"]
    fingerprint = (_file_stamp(state_db_path(home)), last_audit,
                   tuple((target, tuple(texts)) for target, texts in sorted(stores.items())))
    key = home_key(home)
    hit = _traces.get(key, fingerprint)
    if hit is not MISSING:
        return hit
    events = list(found.writes) if found is not None else []
    events += panel_writes(home=home)
    # A new trace is a new version even under the same inputs: its ages were worked out again.
    now = time.time()
    return _traces.put(key, fingerprint, ((*fingerprint, now), trace_entries(stores, events, now=now)))


def entry_sources(*, home: Path, stores: Mapping[str, Sequence[str]]) -> dict[str, dict[str, EntrySource]]:
    """``{target: {entry text: EntrySource}}`` for the entries a recorded write produced."""
    return _trace(home=home, stores=stores)[1]


@dataclass(frozen=True)
class SourceView:
    """An entry's source as the pages show it."""

    origin: str  # "tool" or "panel"
    at: Any  # aware datetime
    source: str  # the session's platform (cli, telegram, …) or "panel"
    actor: str
    url: str  # the transcript at the message, or the audit entry
    age_days: float
    session_id: str | None
    message_id: int | None


_PLACEHOLDER = "0" * 12


@functools.lru_cache(maxsize=4)
def _url_parts(name: str, script_prefix: str) -> tuple[str, str]:
    """A route's address around its one argument: a page may show hundreds of sources, and
    ``reverse`` per source is a large share of rendering it."""
    before, _slash, after = reverse(name, args=[_PLACEHOLDER]).partition(_PLACEHOLDER)
    return before, after


def source_view(source: EntrySource) -> SourceView:
    write = source.write
    prefix = get_script_prefix()
    if write.origin == PANEL:
        before, after = _url_parts("audit_detail", prefix)
        url = f"{before}{write.audit_id}{after}"
    else:
        before, after = _url_parts("session_detail", prefix)
        url = f"{before}{quote(str(write.session_id), safe='')}{after}?hit={write.message_id}#m-{write.message_id}"
    return SourceView(
        origin=write.origin, at=epoch(write.at), source=write.source, actor=write.actor, url=url,
        age_days=source.age_days, session_id=write.session_id, message_id=write.message_id,
    )


def source_views(*, home: Path, stores: Mapping[str, Sequence[str]]) -> dict[str, dict[str, SourceView]]:
    """``entry_sources`` shaped for the pages (kept as long as the trace is)."""
    version, traced = _trace(home=home, stores=stores)
    return _views.get_or_compute(
        (home_key(home), get_script_prefix()),
        version,
        lambda: {target: {text: source_view(source) for text, source in found.items()}
                 for target, found in traced.items()},
    )

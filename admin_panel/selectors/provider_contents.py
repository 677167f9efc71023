"""Reads of an external provider's own store for the contents pages (nothing here writes)."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from admin_panel.selectors.providers import secret_store_for
from admin_panel.selectors.sessions import secret_masker
from memory_core.entries import parse_entries
from memory_core.external import BROWSABLE, UNREACHABLE, source_for
from memory_core.external.base import (
    MAX_PER_PAGE,
    PER_PAGE,
    ContentsError,
    ContentsSource,
    Item,
    Page,
    Query,
    can_replace_text,
)
from memory_core.files import read_store_file
from provider_schemas.reading.state import active_provider

KNOWN = (*BROWSABLE, *UNREACHABLE)
MAX_SEARCH_CHARS = 200


def is_known(name: str) -> bool:
    return name in KNOWN


def source(*, home: Path, name: str) -> ContentsSource | None:
    return source_for(name, home=home, secret_store=secret_store_for(home=home))


# holographic: category, trust range, entity; hindsight: bank, type; byterover: domain, topic.
FILTERS = ("category", "min_trust", "max_trust", "entity", "bank", "type", "domain", "topic")


def query_from(params: Mapping[str, str]) -> Query:
    def number(key: str, default: int, top: int) -> int:
        raw = str(params.get(key, "")).strip()
        return max(1, min(int(raw), top)) if raw.isdigit() and len(raw) < 7 else default

    filters = {key: str(params.get(key, "")).strip()[:MAX_SEARCH_CHARS] for key in FILTERS
               if str(params.get(key, "")).strip()}
    return Query(search=str(params.get("q", "")).strip()[:MAX_SEARCH_CHARS], page=number("page", 1, 100_000),
                 per_page=number("per_page", PER_PAGE, MAX_PER_PAGE), filters=filters)


@dataclass(frozen=True)
class ShownItem:
    item: Item
    text: str  # secrets masked
    secrets: tuple[str, ...]
    mirror_of: str = ""  # "memory" / "user" when this is the copy of a current built-in entry


@dataclass
class ContentsPage:
    name: str
    active: bool
    exists: bool
    error: ContentsError | None = None
    page: Page | None = None
    rows: list[ShownItem] = field(default_factory=list)
    choices: Mapping[str, Any] = field(default_factory=dict)
    query: Query = field(default_factory=Query)

    @property
    def has_filters(self) -> bool:
        return bool(self.query.search or self.query.filters)

    @property
    def previous_page(self) -> int | None:
        return self.query.page - 1 if self.query.page > 1 else None

    @property
    def next_page(self) -> int | None:
        return self.query.page + 1 if self.page is not None and self.page.has_next else None


def builtin_entries(*, home: Path) -> dict[str, list[str]]:
    """The current MEMORY.md and USER.md entries (empty when a file is missing or unreadable)."""
    found: dict[str, list[str]] = {}
    for target, file_name in (("memory", "MEMORY.md"), ("user", "USER.md")):
        read = read_store_file(Path(home) / "memories" / file_name)
        found[target] = parse_entries(read.text) if getattr(read, "text", None) else []
    return found


# Identifiers the pages compare or post back: masking could only corrupt them.
_UNMASKED_DETAILS = frozenset({"version"})


def _masked_value(masker: Any, value: Any) -> Any:
    if isinstance(value, str):
        return masker.mask(value)
    if isinstance(value, (list, tuple)):
        return [_masked_value(masker, v) for v in value]
    if isinstance(value, Mapping):
        return {masker.mask(str(k)): _masked_value(masker, v) for k, v in value.items()}
    return value


def _masked_details(masker: Any, item: Item) -> Item:
    """Every text an item carries besides its own (entities, tags, context, front matter, a
    hindsight document's other memories) masked like the item's text: the plugins store whatever
    the agent wrote, secrets included."""
    details = {key: value if key in _UNMASKED_DETAILS else _masked_value(masker, value)
               for key, value in item.details.items()}
    return replace(item, group=masker.mask(item.group), details=details)


def _shown(home: Path, items: list[Item], mirrors: Mapping[str, str] | None = None) -> list[ShownItem]:
    masker = secret_masker(home=home)
    return [ShownItem(item=_masked_details(masker, i), text=masker.mask(i.text), secrets=tuple(masker.names_in(i.text)),
                      mirror_of=(mirrors or {}).get(i.id, "")) for i in items]


def contents_page(*, home: Path, name: str, query: Query) -> ContentsPage:
    store = source(home=home, name=name)
    result = ContentsPage(name=name, active=active_provider(home=home) == name, exists=False, query=query)
    if store is None:
        return result
    result.exists = store.exists()
    if not result.exists:
        return result
    try:
        result.choices = store.filter_choices()
        result.page = store.list(query)
        entries = builtin_entries(home=home)
        mirrors = {item.id: target for (target, _text), item in store.mirrors(entries).items()}
    except ContentsError as exc:
        result.error = exc
        return result
    result.rows = _shown(home, list(result.page.items), mirrors)
    return result


def item_detail(*, home: Path, name: str, item_id: str) -> ShownItem:
    store = source(home=home, name=name)
    if store is None:
        raise ContentsError("This provider's store cannot be read here.", code="unreachable")
    item = store.get(item_id)
    entries = builtin_entries(home=home)
    mirror = next((t for (t, _e), m in store.mirrors(entries).items() if m.id == item.id), "")
    return _shown(home, [item], {item.id: mirror} if mirror else None)[0]


LEFT_BEHIND_SHOWN = 200


def former_entries(*, home: Path) -> set[str]:
    """Every text a recorded write put into (or took whole out of) MEMORY.md or USER.md, trimmed:
    the agent's ``memory`` calls in its history and the panel's own writes (its audit log), as the
    entries' provenance reads them (docs/agent_formats.md §Memory tool calls in history)."""
    from admin_panel.selectors.provenance import memory_history, panel_writes

    found, _state = memory_history(home=home)
    events = [*(found.writes if found is not None else ()), *panel_writes(home=home)]
    return {text.strip() for event in events for op in event.ops for text in (op.content, op.old_text)
            if text and text.strip()}


def left_behind(*, home: Path, name: str) -> tuple[list[ShownItem], bool, set[str]]:
    """Copies in the mirror categories whose built-in entry is gone: the first LEFT_BEHIND_SHOWN,
    whether there are more (cleaning those up shows the next ones), and the ids of those whose text
    a built-in store is known to have held. The others may be facts the agent stored on its own in
    those categories: the page lists them apart and does not tick them."""
    store = source(home=home, name=name)
    if store is None or not store.exists():
        return [], False, set()
    items = store.copies_without_entry(builtin_entries(home=home), limit=LEFT_BEHIND_SHOWN + 1)
    known = former_entries(home=home)
    return (_shown(home, items[:LEFT_BEHIND_SHOWN]), len(items) > LEFT_BEHIND_SHOWN,
            {item.id for item in items if item.text.strip() in known})


def still_left_behind(*, home: Path, name: str, item_ids: list[str]) -> list[str]:
    """Those of ``item_ids`` that are copies left behind now: an entry put back (by the agent or a
    person) after the list was shown keeps its copy."""
    store = source(home=home, name=name)
    if store is None or not store.exists():
        return []
    wanted = set(item_ids)
    now = {item.id for item in store.copies_without_entry(builtin_entries(home=home), limit=1_000_000)
           if item.id in wanted}
    return [i for i in item_ids if i in now]


def watched_paths(*, home: Path, name: str) -> list[str]:
    store = source(home=home, name=name)
    return list(store.fingerprint_paths()) if store is not None else []


def fingerprint(*, home: Path, name: str) -> str:
    """stat results of the provider's files and the built-in stores (the mirror marks follow them)."""
    paths = [*watched_paths(home=home, name=name), str(Path(home) / "memories" / "MEMORY.md"),
             str(Path(home) / "memories" / "USER.md")]
    digest = hashlib.sha256()
    for path in paths:
        try:
            st = os.stat(path)
            digest.update(f"{path}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}|".encode())
        except OSError:
            digest.update(f"{path}:-|".encode())
    return digest.hexdigest()[:32]


@dataclass(frozen=True)
class EntryCopy:
    """A built-in entry's copy in the active provider's store."""

    provider: str
    item_id: str
    version: str
    label: str  # "fact 42" / "ops/deploy/x.md" (the caller translates "fact")
    url: str = ""
    can_update: bool = False  # the provider's source can change the copy's text in place


def entry_copies(*, home: Path, entries: Mapping[str, list[str]]) -> dict[tuple[str, str], EntryCopy]:
    """(target, entry text) → its copy in the active provider, when that provider's store can be read.
    A store that cannot be read right now shows no copies rather than failing the memory page."""
    name = active_provider(home=home)
    store = source(home=home, name=name) if name in BROWSABLE else None
    if store is None or not store.exists():
        return {}
    try:
        found = store.mirrors(entries)
    except ContentsError:
        return {}
    updatable = can_replace_text(store)
    return {key: EntryCopy(provider=name, item_id=item.id, version=str(item.details.get("version", "")),
                           label=str(item.details.get("path") or item.id), can_update=updatable)
            for key, item in found.items()}


@dataclass(frozen=True)
class PendingCopy:
    """The copy of the entry a staged remove/replace will take out of its store."""

    target: str
    entry: str  # the whole entry the staged write hits
    new_text: str | None  # a replace's new text; None for a remove
    copy: EntryCopy


def _staged_hit(entries: Sequence[str], old_text: str, pinned: str | None) -> str | None:
    """The entry a staged replace/remove will hit, by the store's rule: the entry it was pinned to,
    else the one entry holding ``old_text`` (several different ones: the store refuses)."""
    if pinned:
        return pinned if pinned in entries else None
    hits = {entry for entry in entries if old_text and old_text.strip() in entry}
    return hits.pop() if len(hits) == 1 else None


def pending_copies(*, home: Path, rows: Sequence[Any]) -> dict[str, PendingCopy]:
    """Pending id → the copy of the entry its staged remove or replace hits, for the single
    remove/replace rows whose entry has a copy in the active provider. Approving it then offers
    the copy like a remove or replace made in the panel does."""
    current = builtin_entries(home=home)
    hits: dict[str, tuple[str, str, str | None]] = {}
    for row in rows:
        if row.action not in ("remove", "replace") or row.problem or row.target not in current:
            continue
        entry = _staged_hit(current[row.target], row.old_text or "", row.matched_entry)
        if entry is not None:
            hits[row.id] = (row.target, entry, (row.content or "") if row.action == "replace" else None)
    entries: dict[str, list[str]] = {}
    for target, entry, _new in hits.values():
        entries.setdefault(target, []).append(entry)
    found = entry_copies(home=home, entries=entries) if entries else {}
    return {pending_id: PendingCopy(target=target, entry=entry, new_text=new, copy=found[(target, entry)])
            for pending_id, (target, entry, new) in hits.items() if (target, entry) in found}


@dataclass(frozen=True)
class ProviderRow:
    name: str
    active: bool
    browsable: bool
    has_store: bool


def overview(*, home: Path) -> list[ProviderRow]:
    active = active_provider(home=home)
    rows = []
    for name in KNOWN:
        store = source(home=home, name=name)
        rows.append(ProviderRow(name=name, active=name == active, browsable=store is not None,
                                has_store=store is not None and store.exists()))
    return sorted(rows, key=lambda r: (not r.active, not r.browsable, r.name))

"""Reads for the live memory view: both stores, the blocked-entry queue, drift backups, pending writes.

All store knowledge comes from ``memory_core``; this module shapes it for templates and adds the
panel's own notion of an *entry reference*: ``<target>:<key>`` where the key is a digest of the
entry's exact text. Forms carry references instead of the text itself, so a form never has to
round-trip entry text through the browser (which would turn line breaks into CRLF), and an entry
that changed in the meantime simply no longer resolves.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import Any

from admin_panel.selectors.provenance import SourceView, source_views
from memory_core.config import MemoryConfig, read_memory_config
from memory_core.drift import DriftInfo, detect_drift, is_backup_name
from memory_core.entries import DELIMITER, TARGETS, char_count, file_name_for, parse_entries, usage_text
from memory_core.external import BROWSABLE, source_for
from memory_core.files import read_store_file
from memory_core.fingerprints import fingerprint_of
from memory_core.maintenance import analyse_store
from memory_core.pending import count_pending, scan_pending
from memory_core.safe_paths import leaving_link
from memory_core.state import (
    BackupFile,
    EntryView,
    StoreState,
    fingerprint,
    list_backups,
    read_all_states,
    read_store_state,
)
from memory_core.state import fingerprint_paths as memory_fingerprint_paths
from provider_schemas.reading.state import active_provider

KEY_LENGTH = 32
# The memory page lists a store's entries this many at a time: a store of thousands of entries
# (under a raised budget) would otherwise make every render and live update megabytes long.
ENTRIES_PER_PAGE = 100
# The memory page previews this much of each snapshot block (whole entries); the snapshot page
# shows all of it.
SNAPSHOT_PREVIEW_CHARS = 20_000
# Page links shown on either side of the current page (plus the first and the last).
_PAGER_WINDOW = 2
# The memory page points to maintenance from this share of a store's budget.
MAINTENANCE_BANNER_PERCENT = 80
_REF = re.compile(rf"^(memory|user):([0-9a-f]{{{KEY_LENGTH}}})$")
_KEY = re.compile(rf"^[0-9a-f]{{{KEY_LENGTH}}}$")


def entry_key(text: str) -> str:
    """A stable name for one exact entry text (128 bits of SHA-256)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:KEY_LENGTH]


def is_target(value: object) -> bool:
    return isinstance(value, str) and value in TARGETS


def is_entry_key(value: object) -> bool:
    return isinstance(value, str) and _KEY.fullmatch(value) is not None


def parse_ref(value: str) -> tuple[str, str] | None:
    match = _REF.fullmatch(value.strip())
    return (match.group(1), match.group(2)) if match else None


def make_ref(target: str, text: str) -> str:
    return f"{target}:{entry_key(text)}"


# --- the stores ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class EntryRow:
    """One entry as the page lists it."""

    target: str
    key: str
    view: EntryView
    # Where the current text came from (None: no record in the history or the audit log).
    source: SourceView | None = None

    @property
    def ref(self) -> str:
        return f"{self.target}:{self.key}"

    @property
    def text(self) -> str:
        return self.view.text

    @property
    def chars(self) -> int:
        return self.view.chars

    @property
    def share_percent(self) -> float:
        return self.view.share_of_budget * 100

    @property
    def blocked(self) -> bool:
        return self.view.blocked

    @property
    def findings(self) -> list[Any]:
        return self.view.findings

    @property
    def pattern_ids(self) -> list[str]:
        return [finding.pattern_id for finding in self.view.findings]


@dataclass(frozen=True)
class PageLink:
    number: int
    url: str
    current: bool = False


@dataclass(frozen=True)
class RowsPage:
    """One page of a store's entries. ``links`` holds the page links to show, with ``None`` where
    a run of pages is left out; ``number`` is always within 1..``count``."""

    rows: list[EntryRow]
    number: int
    count: int
    total: int
    start: int  # index of the first row shown
    links: list[PageLink | None] = field(default_factory=list)
    previous_url: str = ""
    next_url: str = ""
    # A filter: only entries containing this text (case-insensitive) are listed and counted.
    query: str = ""
    # Address parameters of the rest of the page (the other store's page and filter), for a form
    # that changes only this store's listing.
    keep: tuple[tuple[str, str], ...] = ()

    @property
    def first_number(self) -> int:
        return self.start + 1

    @property
    def last_number(self) -> int:
        return self.start + len(self.rows)


def page_count(total: int, per_page: int = ENTRIES_PER_PAGE) -> int:
    return max(1, -(-total // per_page))


def rows_page(
    rows: list[EntryRow],
    number: int,
    *,
    url_for: Callable[[int], str] | None = None,
    per_page: int = ENTRIES_PER_PAGE,
) -> RowsPage:
    """Page ``number`` of ``rows`` (clamped into range), with links built by ``url_for``."""
    count = page_count(len(rows), per_page)
    number = min(max(1, number), count)
    start = (number - 1) * per_page
    links: list[PageLink | None] = []
    previous_url = next_url = ""
    if url_for is not None and count > 1:
        shown = sorted({1, count, *range(max(1, number - _PAGER_WINDOW), min(count, number + _PAGER_WINDOW) + 1)})
        for index, page in enumerate(shown):
            if index and page != shown[index - 1] + 1:
                links.append(None)
            links.append(PageLink(number=page, url=url_for(page), current=page == number))
        previous_url = url_for(number - 1) if number > 1 else ""
        next_url = url_for(number + 1) if number < count else ""
    return RowsPage(
        rows=rows[start : start + per_page],
        number=number,
        count=count,
        total=len(rows),
        start=start,
        links=links,
        previous_url=previous_url,
        next_url=next_url,
    )


@dataclass(frozen=True)
class StoreView:
    state: StoreState
    rows: list[EntryRow]
    # The entries the memory page lists (the first page unless ``paged`` chose another).
    page: RowsPage | None = None

    def paged(
        self,
        number: int,
        *,
        query: str = "",
        url_for: Callable[[int], str] | None = None,
        keep: tuple[tuple[str, str], ...] = (),
    ) -> StoreView:
        """This store listing page ``number`` of its entries, of those containing ``query`` if given."""
        rows = self.rows
        if query:
            folded = query.casefold()
            rows = [row for row in rows if folded in row.text.casefold()]
        page = dataclasses.replace(rows_page(rows, number, url_for=url_for), query=query, keep=keep)
        return dataclasses.replace(self, page=page)

    def page_number_of(self, key: str) -> int | None:
        """The page listing the entry with this key, if it is in the store."""
        for position, row in enumerate(self.rows):
            if row.key == key:
                return position // ENTRIES_PER_PAGE + 1
        return None

    @property
    def shown_rows(self) -> list[EntryRow]:
        return self.page.rows if self.page is not None else self.rows

    @property
    def shown_without_source(self) -> bool:
        """Whether a listed entry has no record in history: the store says so once, not per entry."""
        return any(row.source is None for row in self.shown_rows)

    @property
    def offers_filter(self) -> bool:
        """A store longer than a page can be filtered (and one being filtered shows its filter)."""
        return len(self.rows) > ENTRIES_PER_PAGE or bool(self.page is not None and self.page.query)

    @property
    def target(self) -> str:
        return self.state.target

    @property
    def file_name(self) -> str:
        return self.state.file_name

    @property
    def writable(self) -> bool:
        """The panel writes only files it can read and that round-trip (no drift)."""
        return self.state.readable and self.state.drift is None

    @property
    def meter_max(self) -> int:
        return max(self.state.limit, 1)

    @property
    def meter_value(self) -> int:
        return min(self.state.total_chars, self.meter_max)

    @property
    def meter_low(self) -> int:
        return self.meter_max * 3 // 4

    @property
    def meter_high(self) -> int:
        return self.meter_max * 9 // 10

    @property
    def header_line(self) -> str:
        """The title line of the block the agent will inject (its percentage counts placeholders)."""
        lines = self.state.snapshot.split("\n", 2)
        return lines[1] if len(lines) > 1 else ""

    @property
    def snapshot_chars(self) -> int | None:
        """The character count the snapshot's header line shows (None: no header)."""
        found = re.search(r"— ([\d,]+)/[\d,]+ ", self.header_line)
        return int(found.group(1).replace(",", "")) if found else None

    @property
    def snapshot_differs(self) -> bool:
        """The header counts another figure than the store holds: each blocked entry is injected as its
        placeholder (docs/agent_formats.md §Snapshot), and the header counts what is injected."""
        counted = self.snapshot_chars
        return counted is not None and counted != self.state.total_chars

    @property
    def version(self) -> str:
        """Changes whenever anything this store's section shows changes (announced to readers)."""
        state = self.state
        parts = [
            state.status,
            str(state.error),
            state.drift.rule if state.drift else "",
            str(state.limit),
            str(state.enabled),
            ",".join(backup.name for backup in state.backups),
            *(row.key for row in self.rows),
        ]
        return hashlib.sha256("\x00".join(parts).encode("utf-8")).hexdigest()[:16]

    @property
    def blocked_rows(self) -> list[EntryRow]:
        return [row for row in self.rows if row.blocked]

    @property
    def needs_maintenance(self) -> bool:
        """At or above the maintenance banner's share of the budget."""
        limit = self.state.limit
        return limit > 0 and self.state.total_chars * 100 >= MAINTENANCE_BANNER_PERCENT * limit

    @cached_property
    def snapshot_preview(self) -> str:
        """The snapshot block, cut after the last whole entry that fits the preview. Never cut
        inside an entry: a secret the masking hides must not be left half shown."""
        snapshot = self.state.snapshot
        if len(snapshot) <= SNAPSHOT_PREVIEW_CHARS:
            return snapshot
        cut = snapshot.rfind(DELIMITER, 0, SNAPSHOT_PREVIEW_CHARS)
        header_end = len("\n".join(snapshot.split("\n", 3)[:3]))  # rule, title, rule
        return snapshot[:cut] if cut > header_end else snapshot

    @property
    def snapshot_cut(self) -> bool:
        return len(self.snapshot_preview) < len(self.state.snapshot)

    @cached_property
    def freeable_chars(self) -> int:
        """What merging the store's duplicate groups would free (see the maintenance page)."""
        return analyse_store([row.text for row in self.rows], self.state.limit).freeable_chars


def store_view(state: StoreState, sources: Mapping[str, SourceView] | None = None) -> StoreView:
    sources = sources or {}
    rows = [
        EntryRow(target=state.target, key=entry_key(view.text), view=view, source=sources.get(view.text))
        for view in state.entries
    ]
    return StoreView(state=state, rows=rows, page=rows_page(rows, 1))


@dataclass(frozen=True)
class PendingRow:
    id: str
    action: str
    target: str
    summary: str
    origin: str
    created_at: datetime | None
    content: str | None
    old_text: str | None
    operations: list[dict[str, str]] = field(default_factory=list)
    operations_error: bool = False
    # A newer agent's staged replace/remove names the whole entry it was reviewed against.
    matched_entry: str | None = None
    # Why the panel does not understand this record ("" when it does): it is shown, kept, and
    # approving it fails with the store's own reason.
    problem: str = ""

    @property
    def automatic(self) -> bool:
        return self.origin == "background_review"


def _text_or_none(value: Any) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else str(value)


def _pending_row(record: dict[str, Any]) -> PendingRow:
    payload = record.get("payload")
    payload = payload if isinstance(payload, dict) else {}
    created = record.get("created_at")
    created_at = None
    if isinstance(created, (int, float)) and not isinstance(created, bool):
        try:
            created_at = datetime.fromtimestamp(float(created), tz=UTC)
        except (OverflowError, OSError, ValueError):
            created_at = None
    operations: list[dict[str, str]] = []
    operations_error = False
    raw_ops = payload.get("operations")
    if payload.get("action") == "batch":
        if isinstance(raw_ops, list):
            for op in raw_ops:
                op = op if isinstance(op, dict) else {}
                operations.append(
                    {
                        "action": str(op.get("action") or "?"),
                        "content": _text_or_none(op.get("content")) or _text_or_none(op.get("new_text")) or "",
                        "old_text": _text_or_none(op.get("old_text")) or "",
                        "matched_entry": _text_or_none(op.get("matched_entry")) or "",
                    }
                )
        else:
            operations_error = True
    target = payload.get("target")
    return PendingRow(
        problem=_pending_problem(record, payload, operations, operations_error),
        matched_entry=_text_or_none(payload.get("matched_entry")),
        id=str(record.get("id", "")),
        action=str(payload.get("action") or record.get("action") or "?"),
        target="memory" if target is None else str(target),
        summary=str(record.get("summary") or ""),
        origin=str(record.get("origin") or "foreground"),
        created_at=created_at,
        content=_text_or_none(payload.get("content")),
        old_text=_text_or_none(payload.get("old_text")),
        operations=operations,
        operations_error=operations_error,
    )


_KNOWN_ACTIONS = ("add", "replace", "remove", "batch")
_KNOWN_OP_ACTIONS = ("add", "replace", "remove")
# Why a readable record is not understood (shown on the pending page; translated there).
PROBLEM_PAYLOAD = "payload"
PROBLEM_ACTION = "action"
PROBLEM_TARGET = "target"
PROBLEM_OPERATIONS = "operations"
PROBLEM_SUBSYSTEM = "subsystem"


def _pending_problem(record: dict[str, Any], payload: dict[str, Any], operations: list[dict[str, str]],
                     operations_error: bool) -> str:
    if not isinstance(record.get("payload"), dict):
        return PROBLEM_PAYLOAD
    if record.get("subsystem", "memory") != "memory":
        return PROBLEM_SUBSYSTEM
    if payload.get("action") not in _KNOWN_ACTIONS:
        return PROBLEM_ACTION
    if payload.get("target") not in (None, "memory", "user"):
        return PROBLEM_TARGET
    if operations_error or any(op["action"] not in _KNOWN_OP_ACTIONS for op in operations):
        return PROBLEM_OPERATIONS
    return ""


@dataclass(frozen=True)
class UnreadablePendingRow:
    name: str
    reason: str


def pending_queue(*, home: Path) -> tuple[list[PendingRow], list[UnreadablePendingRow]]:
    """The records, and the queue's files the panel cannot read (shown, never deleted)."""
    records, unreadable = scan_pending(home)
    return ([_pending_row(record) for record in records],
            [UnreadablePendingRow(name=item.name, reason=item.reason) for item in unreadable])


@dataclass(frozen=True)
class MemoryOverview:
    """Everything the live memory pages show, read in one go."""

    fingerprint: str
    config: MemoryConfig
    stores: list[StoreView]
    pending: list[PendingRow]
    unreadable_pending: list[UnreadablePendingRow] = field(default_factory=list)

    def store(self, target: str) -> StoreView:
        return next(store for store in self.stores if store.target == target)

    @property
    def prompt_stores(self) -> list[StoreView]:
        """The stores whose block the next session's prompt will hold (enabled, not empty)."""
        return [store for store in self.stores if store.state.enabled and store.state.snapshot]

    @property
    def prompt_held(self) -> int:
        """Characters the same stores hold: less or more than ``prompt_chars`` when a blocked entry is
        injected as its placeholder (docs/agent_formats.md §Snapshot)."""
        return sum(store.state.total_chars for store in self.prompt_stores)

    @property
    def prompt_chars(self) -> int:
        """Characters of memory in the next session's prompt, as the blocks' headers count them."""
        return sum(store.snapshot_chars if store.snapshot_chars is not None else store.state.total_chars
                   for store in self.prompt_stores)

    def paged(
        self,
        listings: Mapping[str, tuple[int, str]],
        *,
        url_for: Callable[[str, int], str],
        keep_for: Callable[[str], tuple[tuple[str, str], ...]] = lambda target: (),
    ) -> MemoryOverview:
        """The overview with each store listing ``listings[target]`` = (page number, filter text)."""
        stores = []
        for store in self.stores:
            number, query = listings.get(store.target, (1, ""))
            stores.append(
                store.paged(
                    number,
                    query=query,
                    url_for=lambda page, target=store.target: url_for(target, page),
                    keep=keep_for(store.target),
                )
            )
        return dataclasses.replace(self, stores=stores)

    @property
    def pending_total(self) -> int:
        """Everything waiting in the queue, files the panel cannot read included."""
        return len(self.pending) + len(self.unreadable_pending)

    @property
    def blocked(self) -> list[EntryRow]:
        return [row for store in self.stores for row in store.blocked_rows]


def provider_store_paths(*, home: Path) -> tuple[str, ...]:
    """The active provider's own store files (holographic's database and its log; byterover's
    folders): the memory page marks each entry's copy there, so those marks follow these files."""
    name = active_provider(home=home)
    source = source_for(name, home=home) if name in BROWSABLE else None
    return tuple(source.fingerprint_paths()) if source is not None else ()


def _page_fingerprint(home: Path) -> str:
    own = fingerprint(home)
    provider = provider_store_paths(home=home)
    if not provider:
        return own
    # Folders count the files directly inside them: a byterover file edited in place leaves its
    # folder's own stat as it was.
    return f"{own}-{fingerprint_of(provider, with_folder_contents=True)}"


def memory_overview(*, home: Path) -> MemoryOverview:
    # The fingerprint is taken first: a change landing while the files are read makes the next
    # poll differ and re-render, never the other way round.
    current = _page_fingerprint(home)
    config = read_memory_config(home)
    states = read_all_states(home=home, config=config)
    sources = source_views(home=home, stores={target: [view.text for view in states[target].entries]
                                              for target in TARGETS})
    pending, unreadable = pending_queue(home=home)
    return MemoryOverview(
        fingerprint=current,
        config=config,
        stores=[store_view(states[target], sources.get(target)) for target in TARGETS],
        pending=pending,
        unreadable_pending=unreadable,
    )


def store_state(*, home: Path, target: str) -> StoreState:
    return read_store_state(home=home, target=target)


def current_fingerprint(*, home: Path) -> str:
    """The poll's only work while nothing changes: a few ``stat`` calls."""
    return _page_fingerprint(home)


def fingerprint_paths(*, home: Path) -> tuple[Path, ...]:
    """What the fingerprint is taken from, for the change feed to watch."""
    return (*memory_fingerprint_paths(home), *(Path(p) for p in provider_store_paths(home=home)))


# --- resolving references -------------------------------------------------------------------------


@dataclass(frozen=True)
class ResolvedRef:
    target: str
    key: str
    text: str | None  # None: no entry with this exact text any more

    @property
    def ref(self) -> str:
        return f"{self.target}:{self.key}"

    @property
    def file_name(self) -> str:
        return "USER.md" if self.target == "user" else "MEMORY.md"


@dataclass(frozen=True)
class StoreFile:
    """A store's entries and write-relevant condition, without the threat scan of a full state
    (cheap enough for every write, even on a large store)."""

    target: str
    file_name: str
    entries: list[str]
    readable: bool
    error: str | None
    drift: DriftInfo | None
    usage: str = ""  # the agent's usage line
    linked: bool = False  # leads out of the home through a link (docs/safe_paths.md)
    linked_name: str = ""


def store_file(*, home: Path, target: str, config: MemoryConfig | None = None) -> StoreFile:
    config = read_memory_config(home) if config is None else config
    file_name = file_name_for(target)
    path = Path(home) / "memories" / file_name
    read = read_store_file(path, home=Path(home))
    text = read.text or ""
    entries = parse_entries(text)
    return StoreFile(
        target=target,
        file_name=file_name,
        entries=entries,
        readable=read.readable,
        error=read.error,
        drift=detect_drift(text, config.limit_for(target)) if read.readable else None,
        usage=usage_text(char_count(entries), config.limit_for(target)),
        linked=read.linked,
        linked_name=(leaving_link(path, home) or file_name) if read.linked else "",
    )


def resolve_refs(*, home: Path, refs: list[str]) -> list[ResolvedRef]:
    """Each well-formed reference (duplicates dropped, order kept) with the entry text it names now."""
    parsed: list[tuple[str, str]] = []
    for raw in refs:
        item = parse_ref(raw)
        if item is not None and item not in parsed:
            parsed.append(item)
    if not parsed:
        return []
    config = read_memory_config(home)
    texts: dict[str, dict[str, str]] = {}
    for target in {target for target, _key in parsed}:
        current = store_file(home=home, target=target, config=config)
        texts[target] = {entry_key(text): text for text in current.entries}
    return [ResolvedRef(target=target, key=key, text=texts[target].get(key)) for target, key in parsed]


def find_entry(*, home: Path, target: str, key: str) -> str | None:
    resolved = resolve_refs(home=home, refs=[f"{target}:{key}"])
    return resolved[0].text if resolved else None


# --- drift backups -------------------------------------------------------------------------------


@dataclass(frozen=True)
class DiffLine:
    kind: str  # "add", "remove", "context", "hunk", "meta"
    text: str


@dataclass(frozen=True)
class BackupEntry:
    key: str
    text: str
    in_store: bool


@dataclass(frozen=True)
class BackupDetail:
    target: str
    backup: BackupFile
    text: str | None
    error: str | None
    entries: list[BackupEntry]
    diff: list[DiffLine]
    current_text: str | None

    @property
    def missing_entries(self) -> list[BackupEntry]:
        return [entry for entry in self.entries if not entry.in_store]

    @property
    def identical(self) -> bool:
        return self.text is not None and self.text == self.current_text


def backups(*, home: Path, target: str) -> list[BackupFile]:
    return list(reversed(list_backups(home, target)))  # newest first


def find_backup(*, home: Path, target: str, name: str) -> BackupFile | None:
    """Only names memory_core recognises as this file's backups, and only ones that exist."""
    file_name = "USER.md" if target == "user" else "MEMORY.md"
    if not is_backup_name(name, file_name):
        return None
    return next((backup for backup in list_backups(home, target) if backup.name == name), None)


def _diff_lines(old: str, new: str, *, old_name: str, new_name: str) -> list[DiffLine]:
    lines = []
    for line in difflib.unified_diff(
        old.splitlines(), new.splitlines(), fromfile=old_name, tofile=new_name, lineterm="", n=2
    ):
        if line.startswith(("---", "+++")):
            kind = "meta"
        elif line.startswith("@@"):
            kind = "hunk"
        elif line.startswith("+"):
            kind = "add"
        elif line.startswith("-"):
            kind = "remove"
        else:
            kind = "context"
        lines.append(DiffLine(kind=kind, text=line))
    return lines


def backup_detail(*, home: Path, target: str, backup: BackupFile) -> BackupDetail:
    read = read_store_file(Path(backup.path), home=Path(home))
    text = read.text if read.readable else None
    state = read_store_state(home=home, target=target)
    current_text = None
    if state.readable:
        current = read_store_file(Path(state.path), home=Path(home))
        current_text = current.text if current.readable else None
    current_entries = {view.text for view in state.entries}
    entries = [
        BackupEntry(key=entry_key(entry), text=entry, in_store=entry in current_entries)
        for entry in (parse_entries(text) if text else [])
    ]
    diff: list[DiffLine] = []
    if text is not None and current_text is not None:
        diff = _diff_lines(text, current_text, old_name=backup.name, new_name=state.file_name)
    return BackupDetail(
        target=target,
        backup=backup,
        text=text,
        error=read.error,
        entries=entries,
        diff=diff,
        current_text=current_text,
    )


# --- the overview card on the home page -----------------------------------------------------------


@dataclass(frozen=True)
class MemorySummary:
    stores: list[StoreState]
    pending_count: int
    write_approval: bool

    @property
    def blocked_count(self) -> int:
        return sum(state.blocked_count for state in self.stores)


def memory_summary(*, home: Path) -> MemorySummary:
    config = read_memory_config(home)
    states = read_all_states(home=home, config=config)
    return MemorySummary(
        stores=[states[target] for target in TARGETS],
        pending_count=count_pending(home),
        write_approval=config.write_approval,
    )

"""What the panel needs from an external memory provider's own store (docs/provider_contents.md).

One small module per provider implements :class:`ContentsSource`. Nothing here imports Django:
the admin panel wraps these in selectors (reads) and services (writes). A provider whose store
the panel cannot reach from this machine has no source; :data:`UNREACHABLE` says what it would
need instead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

PER_PAGE = 25
MAX_PER_PAGE = 200
# Built-in store → the category a mirrored entry gets in providers that keep categories.
TARGETS = ("memory", "user")


class ContentsError(Exception):
    """A read or write the provider's store refused, in words a person understands."""

    def __init__(self, message: str, *, code: str = "unreadable") -> None:
        super().__init__(message)
        self.message = message
        self.code = code


class NotFound(ContentsError):
    def __init__(self, message: str = "That item is no longer in the provider's store.") -> None:
        super().__init__(message, code="gone")


@dataclass(frozen=True)
class Query:
    search: str = ""
    page: int = 1
    per_page: int = PER_PAGE
    filters: Mapping[str, str] = field(default_factory=dict)

    @property
    def offset(self) -> int:
        return (max(self.page, 1) - 1) * self.per_page


@dataclass(frozen=True)
class Item:
    """One thing the provider remembers. ``id`` is the provider's own identity as text."""

    id: str
    text: str
    group: str = ""  # holographic: category; byterover: domain/topic
    details: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Page:
    items: Sequence[Item]
    total: int  # exact unless ``capped``: then "more than total"
    query: Query
    capped: bool = False
    more_after: bool = False  # when capped: whether a page follows this one

    @property
    def page_count(self) -> int:
        return max(1, -(-self.total // self.query.per_page))

    @property
    def has_next(self) -> bool:
        return self.more_after if self.capped else self.query.page < self.page_count


@dataclass(frozen=True)
class Removed:
    """What a delete took away: enough for the panel to say so and, where possible, undo it."""

    item: Item
    undo: Mapping[str, Any] | None  # JSON-serialisable; None: the provider allows no undo
    notes: Sequence[str] = ()


class ContentsSource(Protocol):
    name: str
    # Optional ``local_files = True``: the whole store is in ``fingerprint_paths()``, so an
    # unchanged stat means unchanged contents and an analysis of it may be reused.

    def exists(self) -> bool: ...
    def fingerprint_paths(self) -> Sequence[str]: ...
    def filter_choices(self) -> Mapping[str, Sequence[str]]: ...
    def list(self, query: Query) -> Page: ...
    def get(self, item_id: str) -> Item: ...
    def delete(self, item_id: str, *, expected: str | None = None) -> Removed: ...
    def delete_many(self, item_ids: Sequence[str]) -> tuple[list[Removed], list[tuple[str, ContentsError]]]: ...
    def restore(self, undo: Mapping[str, Any]) -> Item: ...
    def mirrors(self, entries: Mapping[str, Sequence[str]]) -> dict[tuple[str, str], Item]: ...
    def copies_without_entry(self, entries: Mapping[str, Sequence[str]], *, limit: int = 500) -> list[Item]: ...


def delete_each(source: Any, item_ids: Sequence[str]) -> tuple[list[Removed], list[tuple[str, ContentsError]]]:
    """``delete_many`` for a source without a bulk delete of its own: each item deleted in turn, a
    refusal kept beside its id so the rest still go."""
    removed: list[Removed] = []
    failed: list[tuple[str, ContentsError]] = []
    for item_id in item_ids:
        try:
            removed.append(source.delete(item_id))
        except ContentsError as exc:
            failed.append((item_id, exc))
    return removed, failed


@runtime_checkable
class ReplacesText(Protocol):
    """Optional: a source that can change an item's text in place, the way its plugin would, so
    replacing a built-in entry in the panel can update its copy in the same step. A source without
    it still gets the rest (the panel then offers to delete the copy instead)."""

    def replace_text(self, item_id: str, text: str, *, expected: str | None = None, old: str = "") -> Item:
        """``old``: the built-in entry's text before the change (a source whose item holds more than
        the entry replaces only that part). Raises ``ContentsError`` and changes nothing when it
        cannot."""
        ...


def can_replace_text(source: object) -> bool:
    return isinstance(source, ReplacesText)


@runtime_checkable
class RemovesText(Protocol):
    """Optional: a source whose item may hold more than one built-in entry's text (byterover's
    curated files), so removing an entry's copy cuts only that text and keeps the rest. A source
    without it deletes the whole item, which is then the entry's copy and nothing else."""

    def remove_text(self, item_id: str, text: str, *, expected: str | None = None) -> Removed: ...


def can_remove_text(source: object) -> bool:
    return isinstance(source, RemovesText)


# Providers the panel cannot browse from here, and what it would take (shown as-is on their page).
UNREACHABLE: dict[str, str] = {
    "mem0": "mem0 keeps memories in the Mem0 cloud service; browsing them needs its API key and network access "
            "to api.mem0.ai, which this panel does not have.",
    "honcho": "Honcho keeps its memory on a Honcho server (the cloud service or your own deployment); browsing "
              "it needs that server running and reachable with its key.",
    "openviking": "OpenViking keeps its memory in an OpenViking server; browsing it needs that server running "
                  "and reachable from the panel.",
    "retaindb": "RetainDB keeps memories in its cloud service; browsing them needs its API key and network "
                "access to the service.",
    "supermemory": "Supermemory keeps memories in its cloud service; browsing them needs its API key and "
                   "network access to the service.",
}

"""The maintenance findings (duplicates, credentials and stored secrets, relative dates, task
state, raw dumps) over what an external provider remembers, through the provider-contents
interface (``memory_core.external.base``), so every provider that implements it gets them.

A provider may hold far more than a built-in store (holographic: 100,000 facts), so the newest
``SCAN_LIMIT`` items are checked, duplicates among the newest ``DUPLICATE_LIMIT`` (the duplicate
search grows with the square of the count when items share their words), and the result says
whether there were more. The analysis of an
unchanged store is reused: it is keyed on the ``stat`` fingerprint of the provider's own files.
No Django, nothing written.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memory_core.caching import MISSING, KeyedCache
from memory_core.external.base import ContentsSource, Item, Query
from memory_core.fingerprints import fingerprint_of
from memory_core.maintenance.duplicates import DuplicateGroup, find_duplicate_groups
from memory_core.maintenance.findings import CREDENTIAL, Finding, find_hygiene_issues

# Newest first; measured in bench/provider_contents.py ("provider findings"): about 0.1 s each
# on the bench's worst case, once per change of the store.
SCAN_LIMIT = 1000
DUPLICATE_LIMIT = 300


@dataclass(frozen=True)
class ProviderAnalysis:
    provider: str
    items: tuple[Item, ...]  # the analysed items, newest first; findings and groups index into it
    more: bool  # the store holds more items than were analysed
    duplicate_scope: int  # duplicates were looked for among this many newest items
    groups: tuple[DuplicateGroup, ...]
    findings: tuple[Finding, ...]

    @property
    def has_credentials(self) -> bool:
        return any(finding.category == CREDENTIAL for finding in self.findings)

    def item_of(self, finding: Finding) -> Item:
        return self.items[finding.index]


def analyse_provider(source: ContentsSource, *, secrets: Sequence[str] = ()) -> ProviderAnalysis:
    """``secrets``: the stored secret values (an item holding one is a credential finding).
    Raises ``ContentsError`` when the store cannot be read."""
    limit, duplicate_limit = SCAN_LIMIT, DUPLICATE_LIMIT
    paths = tuple(source.fingerprint_paths())
    # Only a store held in local files can tell a change by their stat; a server's is read every
    # time (its fingerprint_paths, if any, are settings, not the memories).
    reusable = bool(paths) and getattr(source, "local_files", False)
    # The source object is new on every request: the key names its store, the fingerprint its state.
    key = (source.name, paths)
    version = (fingerprint_of(paths, with_folder_contents=True), tuple(secrets), limit, duplicate_limit)
    if reusable:
        hit = _analyses.get(key, version)
        if hit is not MISSING:
            return hit
    page = source.list(Query(page=1, per_page=limit + 1))
    items = tuple(page.items[:limit])
    texts = [item.text for item in items]
    scope = min(len(texts), duplicate_limit)
    # A source may cap its page below what was asked: its total still says whether more exist.
    result = ProviderAnalysis(provider=source.name, items=items, more=max(page.total, len(page.items)) > len(items),
                              duplicate_scope=scope, groups=tuple(find_duplicate_groups(texts[:scope])),
                              findings=tuple(find_hygiene_issues(texts, secrets=tuple(secrets))))
    return _analyses.put(key, version, result) if reusable else result


_analyses = KeyedCache("provider findings", size=8)

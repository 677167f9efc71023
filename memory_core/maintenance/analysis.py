"""One call for everything the maintenance page and ``memory check`` show about a store."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memory_core.entries import char_count
from memory_core.maintenance.duplicates import DuplicateGroup, find_duplicate_groups
from memory_core.maintenance.findings import CREDENTIAL, Finding, find_hygiene_issues


@dataclass(frozen=True)
class StoreAnalysis:
    entries: tuple[str, ...]
    limit: int
    groups: tuple[DuplicateGroup, ...]
    findings: tuple[Finding, ...]

    @property
    def total_chars(self) -> int:
        return char_count(self.entries)

    @property
    def freeable_chars(self) -> int:
        """What merging every duplicate group into its kept entry would free (groups never share
        an entry, so their savings add up)."""
        return sum(group.wasted_chars for group in self.groups)

    @property
    def has_credentials(self) -> bool:
        return any(finding.category == CREDENTIAL for finding in self.findings)

    def findings_for(self, index: int) -> list[Finding]:
        return [finding for finding in self.findings if finding.index == index]


def analyse_store(
    entries: Sequence[str],
    limit: int,
    *,
    provenance: Mapping[str, Any] | None = None,
    max_age_days: float | None = None,
    secrets: Sequence[str] = (),
) -> StoreAnalysis:
    """``secrets``: the stored secret values (an entry holding one is a credential finding)."""
    if provenance is None:
        return _analysed(tuple(entries), limit, tuple(secrets))
    return StoreAnalysis(
        entries=tuple(entries),
        limit=limit,
        groups=tuple(find_duplicate_groups(entries)),
        findings=tuple(find_hygiene_issues(entries, provenance=provenance, max_age_days=max_age_days,
                                           secrets=secrets)),
    )


@functools.lru_cache(maxsize=16)
def _analysed(entries: tuple[str, ...], limit: int, secrets: tuple[str, ...]) -> StoreAnalysis:
    """The analysis is a pure function of the entries: a page shown again for an unchanged store
    (every reload, every poll) reuses it."""
    return StoreAnalysis(
        entries=entries,
        limit=limit,
        groups=tuple(find_duplicate_groups(entries)),
        findings=tuple(find_hygiene_issues(entries, secrets=secrets)),
    )

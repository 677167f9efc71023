"""Maintenance analysis of a store: duplicate groups and hygiene findings. Pure, deterministic, no
model calls, no Django, no disk access: it takes the entries (as ``parse_entries`` returns them)
and the limit, and says what could be merged or cleaned and why. Nothing here writes.

Provenance (which session wrote an entry, and when) is an optional input: ``analyse_store``
accepts a ``provenance`` mapping (entry text -> anything with an ``age_days`` attribute) for the
findings that need it. Without it those findings are simply not made. ``provenance`` traces
entries to the writes recorded in the history (``memory_core.history.memory_writes``).
"""

from __future__ import annotations

from memory_core.maintenance.analysis import StoreAnalysis, analyse_store
from memory_core.maintenance.duplicates import (
    NEAR_DUPLICATE_THRESHOLD,
    DuplicateGroup,
    find_duplicate_groups,
    normalise,
    shingle_similarity,
)
from memory_core.maintenance.findings import CATEGORIES, Finding, find_hygiene_issues

__all__ = [
    "CATEGORIES",
    "NEAR_DUPLICATE_THRESHOLD",
    "DuplicateGroup",
    "Finding",
    "StoreAnalysis",
    "analyse_store",
    "find_duplicate_groups",
    "find_hygiene_issues",
    "normalise",
    "shingle_similarity",
]

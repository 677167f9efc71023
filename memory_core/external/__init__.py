"""External memory providers' own stores: what they remember, read and cleaned (docs/provider_contents.md)."""

from __future__ import annotations

from pathlib import Path

from memory_core.external.base import UNREACHABLE, ContentsSource
from memory_core.external.byterover import ByteroverTree
from memory_core.external.holographic import HolographicStore

BROWSABLE = ("holographic", "byterover")


def source_for(name: str, *, home: Path) -> ContentsSource | None:
    """The provider's store as the panel can read it, or None when it cannot (see ``UNREACHABLE``)."""
    if name == "holographic":
        return HolographicStore(home=home)
    if name == "byterover":
        return ByteroverTree(home=home)
    return None


__all__ = ["BROWSABLE", "UNREACHABLE", "source_for"]

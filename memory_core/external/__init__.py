"""External memory providers' own stores: what they remember, read and cleaned (docs/provider_contents.md)."""

from __future__ import annotations

from pathlib import Path

from memory_core.external.base import UNREACHABLE, ContentsSource
from memory_core.external.byterover import ByteroverTree
from memory_core.external.hindsight import HindsightServer
from memory_core.external.holographic import HolographicStore

BROWSABLE = ("holographic", "byterover", "hindsight")


def source_for(name: str, *, home: Path, secret_store: str = "env_file") -> ContentsSource | None:  # noqa: S107 - a store name
    """The provider's store as the panel can read it, or None when it cannot (see ``UNREACHABLE``).
    ``secret_store``: where the panel keeps this home's secrets (hindsight's API key may be there)."""
    if name == "holographic":
        return HolographicStore(home=home)
    if name == "byterover":
        return ByteroverTree(home=home)
    if name == "hindsight":
        return HindsightServer(home=home, secret_store=secret_store)
    return None


__all__ = ["BROWSABLE", "UNREACHABLE", "source_for"]

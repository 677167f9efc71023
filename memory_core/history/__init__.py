"""The agent's session history (``state.db``), read-only: the third layer of its memory.

``open_history(home)`` gives a ``History`` for one request; ``sessions`` and ``search`` read it
with 0.19.0's rules (see /docs and docs/agent_formats.md). Nothing here imports Django or writes the file.
"""

from __future__ import annotations

from memory_core.history.db import (
    LOCKED,
    MALFORMED,
    MISSING,
    NEW_SCHEMA,
    OLD_SCHEMA,
    UNREADABLE,
    Capabilities,
    History,
    HistoryUnavailable,
    open_history,
    state_db_path,
)

__all__ = [
    "LOCKED",
    "MALFORMED",
    "MISSING",
    "NEW_SCHEMA",
    "OLD_SCHEMA",
    "UNREADABLE",
    "Capabilities",
    "History",
    "HistoryUnavailable",
    "open_history",
    "state_db_path",
]

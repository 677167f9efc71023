"""Real ``state.db`` files in 0.19.0's format holding ``memory`` tool calls and their results, in
the shape the agent's message builders produce (docs/agent_formats.md §Memory tool calls in history)."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memory_core.history.schema import create_state_db, insert_message, insert_session
from tests.sessions.fixture import memory_call

T0 = 1767261600.0  # 2026-01-01 10:00 UTC
ADDED = {"success": True, "done": True, "message": "Entry added.",
         "note": "Write saved. This update is complete — do not repeat it."}


def success(target: str, *, chars: int = 40, limit: int = 2200, message: str = "Entry added.") -> dict[str, Any]:
    return {**ADDED, "target": target, "usage": f"{chars * 100 // limit}% — {chars:,}/{limit:,} chars",
            "entry_count": 1, "message": message}


@dataclass
class HistoryBuilder:
    """Adds sessions and memory calls to a new ``state.db`` in ``home``; ``ids`` names the
    assistant rows holding the calls."""

    home: Path
    conn: sqlite3.Connection = field(init=False)
    ids: dict[str, int] = field(default_factory=dict)
    _clock: float = T0

    def __post_init__(self) -> None:
        self.conn = create_state_db(self.home / "state.db")

    def session(self, session_id: str, *, source: str = "cli", at: float | None = None, **columns: Any) -> str:
        return insert_session(self.conn, id=session_id, source=source, started_at=at or self._clock,
                              title=columns.pop("title", None), **columns)

    def call(self, label: str, session_id: str, arguments: dict[str, Any], result: dict[str, Any] | str | None, *,
             at: float | None = None, call_id: str | None = None, **columns: Any) -> int:
        """An assistant row with one ``memory`` call and (unless ``result`` is None) its tool row."""
        self._clock = at if at is not None else self._clock + 60
        call_id = call_id or f"call_{label}"
        self.ids[label] = insert_message(
            self.conn, session_id=session_id, role="assistant", content="", timestamp=self._clock,
            finish_reason="tool_calls", tool_calls=memory_call(call_id, arguments), **columns)
        if result is not None:
            content = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
            insert_message(self.conn, session_id=session_id, role="tool", content=content,
                           timestamp=self._clock + 1, tool_name="memory", tool_call_id=call_id, **columns)
        return self.ids[label]

    def say(self, session_id: str, role: str, text: str) -> int:
        self._clock += 10
        return insert_message(self.conn, session_id=session_id, role=role, content=text, timestamp=self._clock)

    def close(self) -> None:
        self.conn.close()

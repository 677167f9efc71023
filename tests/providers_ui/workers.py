"""Code run in separate processes (multiprocessing, spawn): another writer of a provider's files,
as the agent or an editor would be. Imports nothing from Django."""

from __future__ import annotations

from pathlib import Path


def replace_file(path: str, text: str) -> None:
    """Replace a file as editors and the agent do: a temporary file renamed over it."""
    target = Path(path)
    temporary = target.with_name(target.name + ".tmp")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(target)

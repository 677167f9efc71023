"""Building agent homes for the memory-view tests: real files in the agent's formats."""

from __future__ import annotations

import os
import re
from pathlib import Path

DELIMITER = "\n§\n"


def write_store(home: Path, target: str, entries: list[str] | str) -> Path:
    """Write MEMORY.md / USER.md directly, as the agent (or a text editor) would leave it."""
    path = home / "memories" / ("USER.md" if target == "user" else "MEMORY.md")
    path.parent.mkdir(parents=True, exist_ok=True)
    text = entries if isinstance(entries, str) else DELIMITER.join(entries)
    path.write_text(text, encoding="utf-8")
    return path


def read_store(home: Path, target: str) -> list[str]:
    path = home / "memories" / ("USER.md" if target == "user" else "MEMORY.md")
    if not path.exists():
        return []
    text = path.read_text(encoding="utf-8")
    return [piece.strip() for piece in text.split(DELIMITER) if piece.strip()] if text.strip() else []


def write_config(home: Path, **memory: object) -> None:
    lines = ["memory:"]
    for key, value in memory.items():
        rendered = str(value).lower() if isinstance(value, bool) else value
        lines.append(f"  {key}: {rendered}")
    (home / "config.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")


def make_unreadable(path: Path) -> None:
    """Invalid UTF-8 (works for root too, unlike a chmod)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\xff\xfeA")
    os.chmod(path, 0o600)


def entry_ref(target: str, text: str) -> str:
    from admin_panel.selectors.memory import make_ref

    return make_ref(target, text)


def text_of(html: str) -> str:
    """Visible-ish text of an HTML fragment (tags dropped, entities left as they are)."""
    return re.sub(r"<[^>]+>", "", html)

"""A second process writing memory_store.db the plugin's way while the panel works on it.

    python -m tests.provider_contents.agent_writer DB PREFIX STOP_FILE OUT_FILE

Adds facts (each naming an entity of its own) and deletes every third one it added, until
STOP_FILE exists; writes progress after each write and, at the end, the facts it left in the store
and any error it met. Imports no Django.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.provider_contents import store as plugin


def main(db: str, prefix: str, stop_file: str, out_file: str) -> None:
    conn = plugin.connect(Path(db))
    present: dict[str, int] = {}
    errors: list[str] = []
    number = 0
    out = Path(out_file)
    while not Path(stop_file).exists() or number < 30:
        text = f"{prefix} note {number} about Writer Person{number % 7}"
        category = ("general", "project", "user_pref")[number % 3]
        try:
            present[text] = plugin.add_fact(conn, text, category)
            if number % 3 == 2:
                victim = f"{prefix} note {number - 1} about Writer Person{(number - 1) % 7}"
                plugin.remove_fact(conn, present.pop(victim))
        except Exception as exc:
            errors.append(f"{type(exc).__name__}: {exc}")
        number += 1
        out.with_suffix(".progress").write_text(str(number))
    conn.close()
    out.write_text(json.dumps({"present": present, "errors": errors}))


if __name__ == "__main__":
    main(*sys.argv[1:5])

"""The first search after the panel starts, on a file whose main index cuts long tool rows (v30).

    .venv/bin/python bench/first_search.py STATE_DB [--query kubernetes]

Copies nothing: opens STATE_DB read-only as the panel does. Prints, each in a fresh cache:
- the ways to find tool rows longer than the indexed prefix (docs/history.md "Speed");
- the first search as before (every long tool row read before answering);
- the first search now (the read left to the background; the stretch not read yet scanned with
  the search itself), and a search once the background read is done.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def _clear() -> None:
    from memory_core.history import search

    with search._LONG_TOOL_LOCK:
        search._LONG_TOOL_CACHE.clear()
        search._WARMING.clear()
    with search._LONG_TEXT_LOCK:
        search._LONG_TEXT_INDEX.clear()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db", type=Path)
    parser.add_argument("--query", default="kubernetes")
    args = parser.parse_args()

    from memory_core.history import search
    from memory_core.history.db import open_history

    # A hard link: the panel refuses to read through symbolic links (docs/safe_paths.md).
    home = Path(tempfile.mkdtemp(prefix="memory-panel-first-search-", dir=args.db.resolve().parent))
    os.link(args.db.resolve(), home / "state.db")
    with open_history(home) as history:
        prefix = history.caps.tool_prefix
        if not prefix:
            raise SystemExit("this file's index holds every row in full: nothing to read first")
        rows = history.one("SELECT MAX(id) AS n FROM messages")["n"]
        print(f"{args.db.name}: {rows} messages, tool prefix {prefix}")
        for label, sql in (
            ("rows by role only (no text read)", "SELECT count(*) FROM messages WHERE role = 'tool'"),
            ("length(content) of tool rows", "SELECT id FROM messages WHERE role = 'tool' AND length(content) > ?"),
            ("length(CAST(content AS BLOB))",
             "SELECT id FROM messages WHERE role = 'tool' AND length(CAST(content AS BLOB)) > ?"),
        ):
            started = time.perf_counter()
            history.conn.execute(sql, (prefix,) if "?" in sql else ()).fetchall()
            print(f"  {label:<40} {1000 * (time.perf_counter() - started):8.0f} ms")

        _clear()
        started = time.perf_counter()
        search.long_tool_ids(history, prefix)
        search.search_messages(history, args.query, limit=50, with_context=False)
        print(f"  first search, every long row read first  {1000 * (time.perf_counter() - started):8.0f} ms")

        _clear()
        warm = search.start_warming
        search.start_warming = lambda path, p: False  # as if the background read had not begun
        try:
            started = time.perf_counter()
            search.search_messages(history, args.query, limit=50, with_context=False)
            print(f"  first search, nothing read yet           {1000 * (time.perf_counter() - started):8.0f} ms")
        finally:
            search.start_warming = warm

        _clear()
        started = time.perf_counter()
        search.start_warming(history.path, prefix)
        while True:
            with search._LONG_TOOL_LOCK:
                if not search._WARMING:
                    break
            time.sleep(0.01)
        print(f"  background read (off the request path)   {1000 * (time.perf_counter() - started):8.0f} ms")
        started = time.perf_counter()
        search.search_messages(history, args.query, limit=50, with_context=False)
        print(f"  a search once it is done                 {1000 * (time.perf_counter() - started):8.0f} ms")
    shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()

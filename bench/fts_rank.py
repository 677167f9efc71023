"""What bounds a ranked word search: FTS5 alone, on a kept ``state.db`` (docs/history.md "Speed").

    .venv/bin/python bench/fts_rank.py STATE_DB [--repeat 5]

For each query kind of ``bench/sessions.py`` (the route's form, ``*`` added), prints the median of:
counting the matches, the best 100 by ``ORDER BY rank`` (FTS5 sorts inside the virtual table), the
same by ``ORDER BY bm25(messages_fts)`` (SQLite sorts), and the panel's whole query with its joins;
and the plan SQLite chose for the panel's query.
"""

# SQL from fixed fragments only.
# ruff: noqa: S608

from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def _median_ms(conn: sqlite3.Connection, sql: str, params: tuple, repeat: int) -> tuple[float, int]:
    times, count = [], 0
    for _ in range(repeat):
        started = time.perf_counter()
        rows = conn.execute(sql, params).fetchall()
        times.append(1000 * (time.perf_counter() - started))
        count = rows[0][0] if "count(*)" in sql else len(rows)
    return statistics.median(times), count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db", type=Path)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    from bench.sessions import QUERIES
    from memory_core.history.search import _HIT_COLUMNS, route_query, sanitize_fts5_query

    conn = sqlite3.connect(f"file:{args.db.resolve()}?mode=ro", uri=True)
    snippet = "snippet(messages_fts, 0, '>>>', '<<<', '...', 40)"
    panel = (f"SELECT {_HIT_COLUMNS.format(snippet=snippet)} FROM messages_fts"
             " JOIN messages m ON m.id = messages_fts.rowid JOIN sessions s ON s.id = m.session_id"
             " WHERE messages_fts MATCH ? ORDER BY rank LIMIT 100")
    print(f"{args.db.name}, SQLite {sqlite3.sqlite_version}, median of {args.repeat}")
    for kind in ("word", "prefix", "phrase", "boolean"):
        match = sanitize_fts5_query(route_query(QUERIES[kind]))
        count_ms, matches = _median_ms(conn, "SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?",
                                       (match,), args.repeat)
        rank_ms, _ = _median_ms(conn, "SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?"
                                " ORDER BY rank LIMIT 100", (match,), args.repeat)
        bm25_ms, _ = _median_ms(conn, "SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?"
                                " ORDER BY bm25(messages_fts) LIMIT 100", (match,), args.repeat)
        panel_ms, _ = _median_ms(conn, panel, (match,), args.repeat)
        print(f"  {kind:<8} {match!r:<28} {matches:>7} matches: count {count_ms:6.0f} ms,"
              f" ORDER BY rank {rank_ms:6.0f} ms, ORDER BY bm25() {bm25_ms:6.0f} ms, panel query {panel_ms:6.0f} ms")
    plan = conn.execute("EXPLAIN QUERY PLAN " + panel, ("kubernetes*",)).fetchall()
    print("  plan: " + "; ".join(row[-1] for row in plan))


if __name__ == "__main__":
    main()

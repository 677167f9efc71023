"""An agent-like writer for the concurrency test: the agent's connection settings (busy timeout
1 s, autocommit, ``BEGIN IMMEDIATE`` per write, a PASSIVE checkpoint every 50 writes, a TRUNCATE
checkpoint at close). Run as ``python tests/sessions/writer.py STATE_DB``; prints ``ready`` once
its first message (holding a marker word) is committed, writes until stdin closes, then prints
one JSON line: writes, lock errors, and the close checkpoint's result."""

from __future__ import annotations

import json
import sqlite3
import sys
import threading
import time

MARKER = "zucchinimarker"


def main(path: str) -> None:
    conn = sqlite3.connect(path, timeout=1.0, isolation_level=None)
    conn.execute("PRAGMA foreign_keys=ON")
    stop = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    errors: list[str] = []
    writes = 0
    started = time.time()
    conn.execute("INSERT INTO sessions(id, source, started_at) VALUES ('writer', 'cli', ?)", (started,))

    def write(text: str) -> None:
        nonlocal writes
        try:
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("INSERT INTO messages(session_id, role, content, timestamp) VALUES ('writer', 'user', ?, ?)",
                         (text, time.time()))
            conn.execute("UPDATE sessions SET message_count = message_count + 1 WHERE id = 'writer'")
            conn.execute("COMMIT")
        except sqlite3.OperationalError as exc:
            errors.append(str(exc))
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            return
        writes += 1
        if writes % 50 == 0:
            conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()

    write(f"the {MARKER} arrives")
    print("ready", flush=True)
    while not stop.is_set():
        write(f"writer message {writes} about docker and kubernetes")
        time.sleep(0.001)
    checkpoint = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    conn.close()
    print(json.dumps({"writes": writes, "errors": errors, "checkpoint_busy": checkpoint[0]}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])

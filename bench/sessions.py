"""Server time of session search, the session list and a transcript page.

Builds a ``state.db`` in 0.19.0's format with 5,000 sessions and 100,000 messages (English and
Chinese text, tool calls, compressed chains), then runs the real Django stack in-process (every
middleware, session auth, templates, secret masking) and prints median and p95 per request:

    .venv/bin/python bench/sessions.py [--requests 200] [--hermes-python /tmp/hermes-0190/bin/python]

Goals (issue 13): search p95 20 ms or less; list and transcript p95 30 ms or less.

``--hermes-python`` (an interpreter with hermes-agent 0.19.0 installed; never a dependency) also
runs the same searches against 0.19.0's own ``/api/sessions/search`` in that interpreter, on a
byte-identical copy of the file (0.19.0 opens it read-write), and prints both side by side with
the ratio ours / theirs.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

TOPICS = ["docker", "kubernetes", "terraform", "postgres", "backup", "network", "ingress", "deploy", "compose",
          "image", "cluster", "volume", "migration", "schedule", "memory", "python", "release", "invoice", "budget",
          "travel", "meeting", "garden", "recipe", "laptop", "monitor", "certificate", "registry", "pipeline"]
CJK = ("大别山项目", "广西桂林", "漓江风景", "数据迁移", "部署验收", "进度报告", "会议安排", "简洁的回答")
QUERIES = {
    "word": "kubernetes",
    "prefix": "migr",
    "phrase": '"postgres backup"',
    "boolean": "docker OR terraform",
    "cjk": "大别山",
    "cjk2": "桂林",
    "cjk1": "漓",
}
SCHEMAS = ("0.19.0", "v30", "v30-upgraded")


def build(path: Path, *, sessions: int, messages: int, seed: int = 13, schema: str = "0.19.0",
          before_upgrade: Path | None = None) -> list[str]:
    """The same history in each ``schema`` shape (docs/history.md); ``before_upgrade`` keeps a copy
    of the 0.19.0 file a ``v30-upgraded`` one was made from."""
    from memory_core.history.schema import create_state_db, create_state_db_v30, upgrade_to_v30

    rng = random.Random(seed)
    # A long tail of everyday words (pseudo-words) and a few topic words, as real chats have.
    vocabulary = ["".join(rng.choice("abcdefghijklmnoprstuvwy") for _ in range(rng.randint(3, 9)))
                  for _ in range(6000)]
    conn = create_state_db_v30(path) if schema == "v30" else create_state_db(path)
    start = time.time() - 400 * 86400
    per = messages // sessions
    ids: list[str] = []
    conn.execute("BEGIN")
    for s in range(sessions):
        at = start + s * 6000 + rng.random() * 100
        sid = time.strftime("%Y%m%d_%H%M%S", time.gmtime(at)) + f"_{s:06x}"
        compressed = s % 50 == 1 and ids
        parent = ids[-1] if compressed else None
        if compressed:
            conn.execute("UPDATE sessions SET end_reason = 'compression', ended_at = ? WHERE id = ?", (at - 1, parent))
        source = ("cli", "telegram", "cron", "discord")[s % 4]
        conn.execute("INSERT INTO sessions(id, source, started_at, model, title, parent_session_id, message_count,"
                     " input_tokens, output_tokens, estimated_cost_usd) VALUES (?,?,?,?,?,?,?,?,?,?)",
                     (sid, source, at, "openai/gpt-5", f"Session {s} about {rng.choice(TOPICS)}", parent, per,
                      rng.randint(100, 90000), rng.randint(10, 9000), rng.random() / 10))
        rows = []
        for m in range(per):
            words = [rng.choice(vocabulary) for _ in range(rng.randint(8, 40))]
            words[rng.randrange(len(words))] = rng.choice(TOPICS)
            text = " ".join(words)
            if rng.random() < 0.1:
                text += " " + rng.choice(CJK) + "的进展"
            calls = None
            if m % 7 == 3:
                calls = json.dumps([{"id": f"c{s}_{m}", "type": "function", "function": {
                    "name": "memory", "arguments": json.dumps({"action": "add", "content": text[:60]})}}])
            rows.append((sid, ("user", "assistant")[m % 2], text, calls, at + m * 10))
        conn.executemany("INSERT INTO messages(session_id, role, content, tool_calls, timestamp) VALUES (?,?,?,?,?)",
                         rows)
        ids.append(sid)
    conn.execute("COMMIT")
    if schema == "v30-upgraded":
        if before_upgrade is not None:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            shutil.copyfile(path, before_upgrade)
        upgrade_to_v30(conn)
    conn.close()
    return ids


def _percentiles(values: list[float]) -> tuple[float, float]:
    values = sorted(values)
    return statistics.median(values), values[max(0, int(len(values) * 0.95) - 1)]


def _measure(label: str, call, count: int) -> tuple[float, float]:
    for i in range(5):
        call(-1 - i)
    wall = []
    for i in range(count):
        started = time.perf_counter()
        response = call(i)
        wall.append((time.perf_counter() - started) * 1000)
        if response.status_code != 200:
            raise SystemExit(f"{label}: HTTP {response.status_code}: {response.content[:300]!r}")
    median, p95 = _percentiles(wall)
    print(f"{label:<46} median {median:7.2f} ms  p95 {p95:7.2f} ms  (n={count})")
    return median, p95


HERMES_SIDE = r"""
import json, os, statistics, sys, time
from hermes_cli import web_server
from starlette.testclient import TestClient

requests, queries = int(sys.argv[1]), json.loads(sys.argv[2])
client = TestClient(web_server.app, base_url="http://127.0.0.1")
headers = {"X-Hermes-Session-Token": os.environ["HERMES_DASHBOARD_SESSION_TOKEN"]}
out = {}
for kind, q in queries.items():
    for i in range(5):
        client.get("/api/sessions/search", params={"q": q}, headers=headers)
    wall = []
    for i in range(requests):
        started = time.perf_counter()
        response = client.get("/api/sessions/search", params={"q": q}, headers=headers)
        wall.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, response.text[:300]
    wall.sort()
    out[kind] = [statistics.median(wall), wall[max(0, int(len(wall) * 0.95) - 1)],
                 len(response.json()["results"])]
print(json.dumps(out))
"""


def _measure_hermes(python: str, db: Path, requests: int) -> dict[str, list[float]] | None:
    root = Path(tempfile.mkdtemp(prefix="memory-panel-bench-hermes-"))
    home = root / "hermes"
    home.mkdir()
    shutil.copyfile(db, home / "state.db")
    (root / "user").mkdir()
    env = {**os.environ, "HERMES_HOME": str(home), "HOME": str(root / "user"),
           "HERMES_DASHBOARD_SESSION_TOKEN": "bench-session-token", "PYTHONPATH": ""}
    result = subprocess.run([python, "-c", HERMES_SIDE, str(requests), json.dumps(QUERIES)], env=env, cwd=root,
                            capture_output=True, text=True, timeout=3600)
    shutil.rmtree(root, ignore_errors=True)
    if result.returncode != 0:
        print(f"hermes-agent 0.19.0 could not be measured with {python}:\n{result.stderr[-2000:]}")
        return None
    return json.loads(result.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--sessions", type=int, default=5000)
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--hermes-python", help="an interpreter with hermes-agent 0.19.0 installed")
    parser.add_argument("--schema", choices=SCHEMAS, default="0.19.0",
                        help="the file shape: 0.19.0's, a fresh v30 one, or a 0.19.0 file upgraded to v30")
    parser.add_argument("--hermes-results", type=Path,
                        help="0.19.0's figures saved by an earlier run (--save-hermes) to compare with")
    parser.add_argument("--save-hermes", type=Path, help="save 0.19.0's figures here")
    parser.add_argument("--keep", type=Path,
                        help="a folder keeping built files (state-<schema>-<messages>.db): reused when present, "
                             "built there once otherwise (a v30-upgraded build also keeps its 0.19.0 copy)")
    parser.add_argument("--build-only", action="store_true", help="build (or find) the file and stop")
    args = parser.parse_args()

    root = Path(tempfile.mkdtemp(prefix="memory-panel-bench-sessions-"))
    home = root / "hermes"
    home.mkdir()
    (home / ".env").write_text("OPENAI_API_KEY=bench-not-a-real-key\n", encoding="utf-8")
    started = time.perf_counter()
    original = root / "state-0.19.0.db"
    kept = args.keep / f"state-{args.schema}-{args.messages}-{args.sessions}.db" if args.keep else None
    if kept is not None and kept.exists():
        shutil.copyfile(kept, home / "state.db")
        upgraded_from = args.keep / f"state-0.19.0-{args.messages}-{args.sessions}.db"
        if args.schema == "v30-upgraded" and upgraded_from.exists():
            original = upgraded_from
        import sqlite3

        with sqlite3.connect(f"file:{kept}?mode=ro", uri=True) as ro:
            ids = [r[0] for r in ro.execute("SELECT id FROM sessions ORDER BY started_at")]
        print(f"reused {kept.name} ({time.perf_counter() - started:.1f} s)")
    else:
        ids = build(home / "state.db", sessions=args.sessions, messages=args.messages, schema=args.schema,
                    before_upgrade=original)
        print(f"built state.db ({args.schema}): {args.sessions} sessions, {args.messages} messages, "
              f"{(home / 'state.db').stat().st_size / 1e6:.1f} MB in {time.perf_counter() - started:.1f} s")
        if kept is not None:
            args.keep.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(home / "state.db", kept)
            if args.schema == "v30-upgraded" and original.exists():
                shutil.copyfile(original, args.keep / f"state-0.19.0-{args.messages}-{args.sessions}.db")
    if args.build_only:
        shutil.rmtree(root, ignore_errors=True)
        return
    os.environ["HERMES_HOME"] = str(home)
    os.environ["PANEL_DATA_DIR"] = str(root / "panel")
    os.environ["HOME"] = str(root / "user")
    (root / "user").mkdir()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "admin_panel.settings")

    import logging

    import django

    django.setup()
    logging.disable(logging.WARNING)
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client

    call_command("migrate", verbosity=0)
    user = get_user_model().objects.create_user("bench", password=None, is_staff=True, is_superuser=True)
    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(user)
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")

    ours: dict[str, tuple[float, float]] = {}
    for kind, q in QUERIES.items():
        ours[kind] = _measure(f"GET /api/sessions/search ({kind}: {q})",
                              lambda i, q=q: client.get("/api/sessions/search", {"q": q}), args.requests)
    _measure("GET /sessions/?q=kubernetes (search page)", lambda i: client.get("/sessions/", {"q": "kubernetes"}),
             args.requests)
    _measure("GET /sessions/ (list, first page)", lambda i: client.get("/sessions/"), args.requests)
    _measure("GET /api/sessions (first page)", lambda i: client.get("/api/sessions"), args.requests)
    transcript = ids[len(ids) // 2]
    _measure("GET /sessions/<id>/ (transcript page)", lambda i: client.get(f"/sessions/{transcript}/"),
             args.requests)
    if args.hermes_results:
        theirs = json.loads(args.hermes_results.read_text(encoding="utf-8"))
    elif not args.hermes_python:
        print("(add --hermes-python PY to compare with hermes-agent 0.19.0's /api/sessions/search)")
        return
    elif args.schema == "v30":
        print("(0.19.0's route runs on the 0.19.0 shape: run --schema 0.19.0 --save-hermes F, then --hermes-results F)")
        return
    else:
        # 0.19.0's own route always reads the 0.19.0 shape of the same history.
        theirs = _measure_hermes(args.hermes_python, original if original.exists() else home / "state.db",
                                 args.requests)
    if theirs is None:
        return
    if args.save_hermes:
        args.save_hermes.write_text(json.dumps(theirs), encoding="utf-8")
    print(f"\nsearch, same history, same machine: memory-panel on the {args.schema} shape vs 0.19.0's"
          " /api/sessions/search on the 0.19.0 shape (median / p95)")
    for kind, q in QUERIES.items():
        my_median, my_p95 = ours[kind]
        their_median, their_p95, hits = theirs[kind]
        print(f"  {kind:<8} {q:<22} ours {my_median:7.2f} / {my_p95:7.2f} ms  0.19.0 {their_median:7.2f} / "
              f"{their_p95:7.2f} ms  ratio {my_median / their_median:5.2f} / {my_p95 / their_p95:5.2f}"
              f"  (0.19.0 returned {int(hits)} results)")


if __name__ == "__main__":
    main()

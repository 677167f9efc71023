"""The holographic contents pages on a store of 100,000 facts.

Usage:
    python bench/provider_contents.py [--facts 100000] [--vectors 5000] [--dim 1024] [--requests 100]
                                      [--hindsight 5000]

Builds ``memory_store.db`` in the plugin's format (FTS index and triggers, entities and links;
``--vectors`` facts of the ``general`` category carry an HRR vector of ``--dim`` components, the
rest none, as when the plugin ran without numpy), then measures through the panel's own pages
(Django test client, a signed-in admin): the list page (first and a deep page, with filters), search
(one word, several words, no hit), one delete with its bank rebuild, and the mirror and left-behind
detection over full MEMORY.md and USER.md stores, the memory page with its also-in marks and its
poll, the maintenance findings over the provider's newest facts, and a fact's text updated in
place. Goal: list and search p95 ≤ 50 ms.

With ``--hindsight N``: the same for hindsight on a real server (the tests' hindsight-api on pg0's
PostgreSQL, started here; needs the test extra) holding N memories: list, filter, search, and the
delete of a memory's document.
"""

from __future__ import annotations

import argparse
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.provider_contents import store as plugin  # noqa: E402

WORDS = ["deploy", "docker", "kestrel", "staging", "tabs", "review", "python", "rust", "postgres", "redis",
         "nginx", "backup", "cron", "alert", "invoice", "travel", "birthday", "coffee", "guitar", "garden"]
PEOPLE = ("Ada Lovelace", "Grace Hopper", "Alan Turing", "Barbara Liskov", "Edsger Dijkstra", "Donald Knuth")


def build(path: Path, *, facts: int, vectors: int, dim: int, memory: list[str], user: list[str]) -> None:
    plugin.create(path)
    rng = random.Random(7)
    conn = sqlite3.connect(path)
    conn.execute("BEGIN")
    conn.executemany("INSERT INTO entities (name) VALUES (?)", [(p,) for p in PEOPLE])
    rows = []
    for n in range(facts):
        category = ("general", "user_pref", "project", "tool")[n % 4]
        text = f"fact {n}: {PEOPLE[n % 6]} " + " ".join(rng.choice(WORDS) for _ in range(8))
        rows.append((text, category, rng.random()))
    rows[1::4][: len(user)] = [(t, "user_pref", 0.5) for t in user]
    rows[0::4][: len(memory)] = [(t, "general", 0.5) for t in memory]
    rows = [r for i, r in enumerate(rows) if not (i % 4 == 0 and i // 4 < len(memory))] + \
        [(t, "general", 0.5) for t in memory]
    conn.executemany("INSERT INTO facts (content, category, trust_score) VALUES (?, ?, ?)", rows)
    conn.execute("INSERT INTO fact_entities SELECT fact_id, (fact_id % 6) + 1 FROM facts")
    ids = [r[0] for r in conn.execute("SELECT fact_id FROM facts WHERE category = 'general' LIMIT ?", (vectors,))]
    conn.executemany("UPDATE facts SET hrr_vector = ? WHERE fact_id = ?",
                     [(plugin.vector(str(i), dim), i) for i in ids])
    conn.commit()
    from memory_core.external.holographic import rebuild_bank

    conn.isolation_level = None
    conn.execute("BEGIN")
    rebuild_bank(conn, "general")
    conn.execute("COMMIT")
    conn.close()


def full_store(prefix: str, limit: int) -> list[str]:
    entries, used, n = [], 0, 0
    while True:
        text = f"{prefix} entry {n}: remember the {WORDS[n % len(WORDS)]} setup"
        if used + len(text) + 3 > limit:
            return entries
        entries.append(text)
        used += len(text) + 3
        n += 1


def measure(label: str, call, count: int, *, warm: bool = True) -> tuple[float, float]:
    """Wall-clock median and p95, and the same of the CPU time this process spent: on a machine
    shared with other work the wall clock mostly measures the wait for a core, the CPU time what
    the request itself costs."""
    if warm:
        call(0)
    times, cpu = [], []
    for i in range(count):
        started, started_cpu = time.perf_counter(), time.process_time()
        response = call(i)
        times.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - started_cpu) * 1000)
        if getattr(response, "status_code", 200) >= 400:
            raise SystemExit(f"{label}: status {response.status_code}")
    times.sort()
    cpu.sort()
    at95 = max(0, int(len(times) * 0.95) - 1)
    median, p95 = statistics.median(times), times[at95]
    print(f"{label:<62} median {median:7.1f} ms   p95 {p95:7.1f} ms   "
          f"cpu {statistics.median(cpu):6.1f} / {cpu[at95]:6.1f} ms")
    return median, p95


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--vectors", type=int, default=5000)
    parser.add_argument("--dim", type=int, default=1024)
    parser.add_argument("--requests", type=int, default=100)
    parser.add_argument("--hindsight", type=int, default=0, metavar="MEMORIES",
                        help="also measure hindsight's pages on a real server holding this many memories")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="memory-panel-bench-contents-"))
    home = root / "hermes"
    (home / "memories").mkdir(parents=True)
    memory, user = full_store("memory", 2200), full_store("user", 1375)
    (home / "memories" / "MEMORY.md").write_text("\n§\n".join(memory))
    (home / "memories" / "USER.md").write_text("\n§\n".join(user))
    (home / "config.yaml").write_text("memory:\n  provider: holographic\n")
    started = time.perf_counter()
    db = home / "memory_store.db"
    build(db, facts=args.facts, vectors=args.vectors, dim=args.dim, memory=memory, user=user)
    print(f"built memory_store.db: {args.facts} facts ({args.vectors} with {args.dim}-component vectors), "
          f"{db.stat().st_size / 1e6:.1f} MB in {time.perf_counter() - started:.1f} s; "
          f"MEMORY.md {len(memory)} entries, USER.md {len(user)} entries (full)")
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

    from admin_panel.selectors.provider_contents import builtin_entries
    from memory_core.external.holographic import HolographicStore

    call_command("migrate", verbosity=0)
    user_model = get_user_model().objects.create_user("bench", password=None, is_staff=True, is_superuser=True)
    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(user_model)
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    n = args.requests
    url = "/contents/holographic/"
    from memory_core.external.base import Query

    reader = HolographicStore(home=home)
    measure("store: list, first page", lambda i: reader.list(Query()), n)
    measure("store: list, entity=Grace Hopper", lambda i: reader.list(Query(filters={"entity": "Grace Hopper"})), n)
    measure("store: search, one word (kestrel)", lambda i: reader.list(Query(search="kestrel")), n)
    measure("store: search, three words", lambda i: reader.list(Query(search="docker staging backup")), n)
    measure("GET /contents/mem0/ (same page frame, no store: the baseline)", lambda i: client.get(
        "/contents/mem0/"), n)
    measure("GET list, first page", lambda i: client.get(url), n)
    measure("GET list, page 2000", lambda i: client.get(url, {"page": 2000}), n)
    measure("GET list, category=project & trust ≥ 0.5", lambda i: client.get(
        url, {"category": "project", "min_trust": "0.5"}), n)
    measure("GET list, entity=Grace Hopper", lambda i: client.get(url, {"entity": "Grace Hopper"}), n)
    measure("GET search: one word (kestrel)", lambda i: client.get(url, {"q": "kestrel"}), n)
    measure("GET search: three words (docker staging backup)",
            lambda i: client.get(url, {"q": "docker staging backup"}), n)
    measure("GET search: no hit (zyzzyva)", lambda i: client.get(url, {"q": "zyzzyva"}), n)
    store = HolographicStore(home=home)
    general = [int(r[0]) for r in sqlite3.connect(db).execute(
        "SELECT fact_id FROM facts WHERE category = 'general' AND hrr_vector IS NOT NULL LIMIT 20")]
    plain = [int(r[0]) for r in sqlite3.connect(db).execute(
        "SELECT fact_id FROM facts WHERE category = 'project' LIMIT 20")]
    measure(f"delete one fact + rebuild of a {args.vectors}-vector bank", lambda i: store.delete(str(general[i])),
            min(10, len(general)), warm=False)
    measure("delete one fact of a category without vectors", lambda i: store.delete(str(plain[i])), 10, warm=False)
    measure("POST delete through the page (category without vectors)",
            lambda i: client.post(f"{url}{plain[10 + i]}/delete/"), 5, warm=False)
    entries = builtin_entries(home=home)
    measure(f"mirror detection ({len(memory)} + {len(user)} entries)", lambda i: store.mirrors(entries), n)
    measure("GET /memory/ (every shown entry's also-in mark)", lambda i: client.get("/memory/"), max(5, n // 5))
    from admin_panel.selectors.memory import current_fingerprint

    shown = current_fingerprint(home=home)
    measure("GET /memory/poll/ unchanged (fingerprint with the provider's files)",
            lambda i: client.get("/memory/poll/", {"view": "page", "fp": shown}), n)
    from admin_panel.selectors.sessions import secret_masker
    from memory_core.maintenance import provider as provider_findings

    secrets = tuple(sorted(secret_masker(home=home).forms))

    def cold(i: int) -> object:
        provider_findings._analyses.clear()
        return provider_findings.analyse_provider(store, secrets=secrets)

    measure(f"provider findings, newest {provider_findings.SCAN_LIMIT} facts (cold)", cold, 5, warm=False)
    measure("provider findings (store unchanged: reused)",
            lambda i: provider_findings.analyse_provider(store, secrets=secrets), n)
    measure("GET /memory/memory/maintenance/ (with provider findings)",
            lambda i: client.get("/memory/memory/maintenance/"), max(5, n // 10))
    measure("update a fact's text in place (category without vectors)",
            lambda i: store.replace_text(str(plain[15 + i]), f"fact rewritten {i}: Grace Hopper reviews docker"),
            5, warm=False)
    measure("left-behind detection (all general/user_pref facts)", lambda i: store.copies_without_entry(entries),
            max(5, n // 10))
    measure("GET left-behind page", lambda i: client.get(f"{url}left-behind/"), 5)
    if args.hindsight:
        hindsight_figures(client, home, memories=args.hindsight, count=n)


def hindsight_figures(client, home: Path, *, memories: int, count: int) -> None:
    """List, filter, search and delete through a real Hindsight server (the tests' one: hindsight-api
    on pg0's PostgreSQL, no LLM, an embeddings stand-in), with ``memories`` memories in documents of 5."""
    import json
    import urllib.request

    from memory_core.external.base import Query
    from memory_core.external.hindsight import HindsightServer, _token
    from tests.provider_contents.hindsight_server import shared_server

    started = time.perf_counter()
    with shared_server() as server:
        print(f"Hindsight server started in {time.perf_counter() - started:.1f} s")

        def call(method: str, path: str, body=None):
            request = urllib.request.Request(server.url + path, method=method,
                                             data=json.dumps(body).encode() if body is not None else None,
                                             headers={"Authorization": f"Bearer {server.key}",
                                                      "Content-Type": "application/json"})
            with urllib.request.urlopen(request, timeout=600) as response:
                return json.loads(response.read() or b"{}")

        rng = random.Random(11)
        started = time.perf_counter()
        for first in range(0, memories, 500):
            items = [{"content": f"memory {n}: {PEOPLE[n % 6]} " + " ".join(rng.choice(WORDS) for _ in range(8)),
                      "document_id": f"session-{n // 5}"} for n in range(first, min(first + 500, memories))]
            call("POST", "/v1/default/banks/bench/memories", {"items": items, "async": False})
        print(f"retained {memories} memories in {memories // 5} documents in {time.perf_counter() - started:.1f} s")
        (home / "hindsight").mkdir(exist_ok=True)
        (home / "hindsight" / "config.json").write_text(json.dumps(
            {"mode": "local_external", "api_url": server.url, "bank_id": "bench"}))
        with (home / ".env").open("a") as env:
            env.write(f"HINDSIGHT_API_KEY={server.key}\n")
        url = "/contents/hindsight/"
        store = HindsightServer(home=home)
        measure("hindsight store: list, first page", lambda i: store.list(Query()), count)
        measure("hindsight store: search, one word (kestrel)", lambda i: store.list(Query(search="kestrel")), count)
        measure("GET hindsight list, first page", lambda i: client.get(url), count)
        measure("GET hindsight list, page 40", lambda i: client.get(url, {"page": 40}), count)
        measure("GET hindsight list, type=world", lambda i: client.get(url, {"type": "world"}), count)
        measure("GET hindsight search: one word (kestrel)", lambda i: client.get(url, {"q": "kestrel"}), count)
        listed = call("GET", "/v1/default/banks/bench/memories/list?limit=40")["items"]
        by_document: dict[str, str] = {}
        for memory in listed:
            by_document.setdefault(memory["document_id"], memory["id"])
        targets = [_token("bench", m) for m in by_document.values()]
        measure("hindsight store: delete a memory's document (5 memories)", lambda i: store.delete(targets[i]),
                min(5, len(targets)), warm=False)
        measure("POST hindsight delete through the page (5 memories)",
                lambda i: client.post(f"{url}{targets[5 + i]}/delete/"), min(5, len(targets) - 5), warm=False)


if __name__ == "__main__":
    main()

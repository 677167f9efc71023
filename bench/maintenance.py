"""Server time of the maintenance page (duplicate groups, findings, budget chart) with 150 entries.

Runs the real Django stack in-process against a temporary HERMES_HOME whose two stores hold 150
entries between them (rewordings, contained copies, stale and task entries mixed with ordinary
ones) and 200 budget samples, and prints the first (cold) load in a fresh process and median and
p95 over warm requests:

    .venv/bin/python bench/maintenance.py [--requests 200] [--entries 150]

Goals (issue 18): warm p95 50 ms or less, the first load 500 ms or less. The provenance lookup on
the 100,000-message state.db is not part of this benchmark yet (provenance comes with the
history reader, issue 13).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TOPICS = [
    "staging",
    "billing",
    "the CI",
    "backups",
    "the docs site",
    "nginx",
    "PostgreSQL",
    "the mobile app",
    "the search index",
    "Grafana",
    "the VPN",
    "the release train",
    "the data lake",
    "Kafka",
    "Redis",
]
FRAMES = [
    "Deploys of {t} need approval from the on-call lead before {n}:00 UTC.",
    "The owner of {t} is team {n}; ask them before changing its settings.",
    "{t} runs on host db-{n}; restart it with `make restart-{n}`.",
    "Yesterday {t} failed because the disk was full ({n}% used).",
    "TODO: move {t} to the new cluster (step {n} of 5).",
    "用户希望 {t} 的报告用中文写，第 {n} 版。",
    "Prefers short answers about {t}, code first, explanation after (rule {n}).",
]


def _entries(count: int, seed: int = 18) -> list[str]:
    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < count:
        text = rng.choice(FRAMES).format(t=rng.choice(TOPICS), n=rng.randint(1, 99))
        roll = rng.random()
        if out and roll < 0.1:
            text = out[-1].lower().rstrip(".") + "!"  # an exact duplicate after normalising
        elif out and roll < 0.2:
            text = out[-1].replace("before", "ahead of")  # a near duplicate
        if text not in out:
            out.append(text)
    return out


def _prepare(root: Path, count: int) -> Path:
    home = root / "hermes"
    (home / "memories").mkdir(parents=True)
    entries = _entries(count)
    split = count * 2 // 3
    (home / "memories" / "MEMORY.md").write_text("\n§\n".join(entries[:split]), encoding="utf-8")
    (home / "memories" / "USER.md").write_text("\n§\n".join(entries[split:]), encoding="utf-8")
    (home / "config.yaml").write_text(
        "memory:\n  memory_char_limit: 12000\n  user_char_limit: 6000\n", encoding="utf-8"
    )
    return home


def _setup(root: Path) -> object:
    os.environ["HERMES_HOME"] = str(root / "hermes")
    os.environ["PANEL_DATA_DIR"] = str(root / "panel")
    os.environ["HOME"] = str(root / "user")
    (root / "user").mkdir(exist_ok=True)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "admin_panel.settings")
    sys.path.insert(0, str(REPO))
    import logging

    import django

    django.setup()
    logging.disable(logging.WARNING)
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client

    call_command("migrate", verbosity=0)
    user = get_user_model().objects.filter(username="bench").first() or get_user_model().objects.create_user(
        "bench", password=None, is_staff=True, is_superuser=True
    )
    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(user)
    return client


def _seed_samples(root: Path, count: int = 200) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from admin_panel.models import BudgetSample

    now = timezone.now()
    home = str(root / "hermes")
    BudgetSample.objects.bulk_create(
        BudgetSample(home=home, target=target, chars=3000 + 20 * i, limit=12000, recorded_at=now - timedelta(hours=i))
        for target in ("memory", "user")
        for i in range(count)
    )


def _cold(root: str) -> None:
    """In a fresh process: the first request after start-up (imports done by Django's setup)."""
    client = _setup(Path(root))
    started, started_cpu = time.perf_counter(), time.process_time()
    response = client.get("/memory/memory/maintenance/")
    elapsed, cpu = (time.perf_counter() - started) * 1000, (time.process_time() - started_cpu) * 1000
    assert response.status_code == 200, response.status_code
    print(f"{elapsed:.2f} {cpu:.2f}")


def _percentiles(values: list[float]) -> tuple[float, float]:
    values = sorted(values)
    return statistics.median(values), values[max(0, int(len(values) * 0.95) - 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--entries", type=int, default=150)
    parser.add_argument("--cold", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.cold:
        _cold(args.cold)
        return

    root = Path(tempfile.mkdtemp(prefix="memory-panel-bench-maintenance-"))
    _prepare(root, args.entries)
    client = _setup(root)
    _seed_samples(root)
    cold_command = [sys.executable, __file__, "--cold", str(root)]
    colds = [
        [float(x) for x in subprocess.run(cold_command, capture_output=True, text=True, check=True).stdout.split()[-2:]]
        for _ in range(3)
    ]
    from memory_core.state import read_store_state

    state = read_store_state(home=root / "hermes", target="memory")
    print(
        f"maintenance bench: {args.entries} entries ({len(state.entries)} in MEMORY.md), "
        f"{args.requests} warm requests each"
    )
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    print(
        "first load in a fresh process (3 runs): "
        + ", ".join(f"wall {wall:.1f} ms (cpu {cpu:.1f} ms)" for wall, cpu in colds)
    )
    routes = {
        "GET /memory/memory/maintenance/": "/memory/memory/maintenance/",
        "GET /memory/user/maintenance/": "/memory/user/maintenance/",
        "GET /memory/ (with the banner)": "/memory/",
    }
    for label, url in routes.items():
        for _ in range(10):
            client.get(url)
        wall, cpu = [], []
        for _ in range(args.requests):
            started, started_cpu = time.perf_counter(), time.process_time()
            response = client.get(url)
            cpu.append((time.process_time() - started_cpu) * 1000)
            wall.append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200, response.status_code
        median, p95 = _percentiles(wall)
        cpu_median, cpu_p95 = _percentiles(cpu)
        # CPU time is what the server itself spends; on a shared, oversubscribed machine the wall
        # figure also includes waiting for a core.
        print(
            f"{label:<36} wall median {median:7.2f} ms p95 {p95:7.2f} ms | "
            f"cpu median {cpu_median:6.2f} ms p95 {cpu_p95:6.2f} ms  (n={args.requests})"
        )


if __name__ == "__main__":
    main()

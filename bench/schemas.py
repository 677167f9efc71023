"""provider_schemas speed: cold load of the bundled schemas, cached lookups, a full validated save.

    /work/venv/bin/python bench/schemas.py [--rounds 20]

Prints median and p95 in milliseconds:
* cold load: empty schema cache, every bundled config_schema.py executed and checked (discover());
* cached lookup: get_provider() for one bundled provider with a warm cache;
* read state: read_provider() of hindsight (34 fields) with a stored file and .env;
* plan: plan_save() of a realistic hindsight form (validation, visibility, rendering, no write);
* full save: save_provider() of the same form, alternating two value sets so each save writes
  hindsight/config.json and .env (temp files, fsync, rename).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from provider_schemas import (  # noqa: E402 - after the path setup
    BUNDLED_PROVIDERS,
    clear_schema_cache,
    discover,
    get_provider,
    plan_save,
    read_provider,
    save_provider,
)
from provider_schemas.loading.lint import lint  # noqa: E402
from provider_schemas.loading.loader import cache_stats  # noqa: E402


def measure(fn: Callable[[int], object], rounds: int, *, warmup: int = 2) -> tuple[float, float]:
    for i in range(warmup):
        fn(i)
    samples = []
    for i in range(rounds):
        start = time.perf_counter()
        fn(i)
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    p95 = samples[min(len(samples) - 1, round(0.95 * (len(samples) - 1)))]
    return statistics.median(samples), p95


def form(i: int) -> dict[str, object]:
    flip = i % 2
    return {
        "mode": "local_external" if flip else "cloud",
        "api_key": f"hs-secret-{flip}",
        "api_url": f"http://127.0.0.1:{8888 + flip}",
        "timeout": "120" if flip else "60.5",
        "bank_id": f"bank-{flip}",
        "recall_budget": "high" if flip else "low",
        "auto_recall": bool(flip),
        "recall_tags": '["project:hermes"]' if flip else '["a", "b"]',
        "retain_every_n_turns": str(1 + flip),
        "retain_context": "conversation between Hermes Agent and the User",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    rounds = args.rounds
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "hermes"
        home.mkdir()
        os.environ["HOME"] = str(Path(tmp) / "user")  # legacy lookups in ~ see an empty folder
        (home / ".env").write_text("# agent secrets\nOPENAI_API_KEY=sk-open\n", encoding="utf-8")

        def cold(_i: int) -> None:
            clear_schema_cache()
            found = discover(home=home)
            assert all(p.schema is not None for p in found.providers if p.origin == "bundled")

        results = [("cold load of the 8 bundled schemas", measure(cold, rounds))]
        discover(home=home)
        loads = cache_stats().loads
        results.append(
            ("cached lookup (get_provider)", measure(lambda _i: get_provider(home=home, name="hindsight"), rounds * 10))
        )
        assert cache_stats().loads == loads, "a cached lookup re-executed a schema"
        results.append(
            (
                "lint of one schema file",
                measure(lambda _i: lint(REPO / "provider_schemas" / "hindsight" / "config_schema.py"), rounds),
            )
        )
        save_provider(home=home, name="hindsight", values=form(1))
        results.append(
            (
                "read state (hindsight, 34 fields)",
                measure(lambda _i: read_provider(home=home, name="hindsight"), rounds),
            )
        )
        results.append(
            (
                "plan of a 10-field save (no write)",
                measure(lambda i: plan_save(home=home, name="hindsight", values=form(i)), rounds),
            )
        )
        results.append(
            (
                "full validated save (2 files written)",
                measure(lambda i: save_provider(home=home, name="hindsight", values=form(i)), rounds),
            )
        )
    width = max(len(name) for name, _ in results)
    print(f"provider_schemas benchmark ({len(BUNDLED_PROVIDERS)} bundled providers, {rounds} rounds)")
    print(f"{'':{width}}  {'median':>9}  {'p95':>9}")
    for name, (median, p95) in results:
        print(f"{name:{width}}  {median:8.2f}ms  {p95:8.2f}ms")


if __name__ == "__main__":
    main()

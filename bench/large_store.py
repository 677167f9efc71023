"""Adds and the memory page with a large store (issue 29: "Large stores stay fast").

Runs the real Django stack in-process (every middleware, session auth, templates) against a
temporary HERMES_HOME whose MEMORY.md holds N generated entries under a raised budget, and prints
for each N the median time of an add through the panel (POST, the redirect not followed), of an
add through memory_core alone, and the time and size of ``GET /memory/``:

    .venv/bin/python bench/large_store.py [--sizes 1000 5000] [--rounds 5] [--profile]

``--profile`` also prints the top of cProfile for one add and one page at the largest size.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
WORDS = "user prefers concise answers deploy staging runner python uv repo database backup review docker café 東京"
WORDS_LIST = WORDS.split(" ")



def _entries(count: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    words = WORDS_LIST
    return [f"{index}: " + " ".join(rng.choice(words) for _ in range(rng.randint(5, 14))) for index in range(count)]


def _median_ms(call, rounds: int) -> float:
    times = []
    for index in range(rounds):
        started = time.perf_counter()
        call(index)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def _profile(label: str, call) -> None:
    profiler = cProfile.Profile()
    profiler.enable()
    call(10_000)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(25)
    print(f"--- profile: {label}\n{out.getvalue()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 5000])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()

    root = Path(tempfile.mkdtemp(prefix="memory-panel-bench-large-"))
    home = root / "hermes"
    (home / "memories").mkdir(parents=True)
    (root / "user").mkdir()
    (home / "config.yaml").write_text("memory:\n  memory_char_limit: 10000000\n", encoding="utf-8")
    os.environ["HERMES_HOME"] = str(home)
    os.environ["PANEL_DATA_DIR"] = str(root / "panel")
    os.environ["HOME"] = str(root / "user")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "admin_panel.settings")
    sys.path.insert(0, str(REPO))

    import logging

    import django

    django.setup()
    logging.disable(logging.WARNING)
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client

    import memory_core
    from memory_core.entries import serialise

    call_command("migrate", verbosity=0)
    user = get_user_model().objects.create_user("bench", password=None, is_staff=True, is_superuser=True)
    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(user)
    store = home / "memories" / "MEMORY.md"

    for size in args.sizes:
        store.write_text(serialise(_entries(size)), encoding="utf-8")

        def panel_add(index: int, size: int = size) -> None:
            response = client.post("/memory/memory/add/", {"content": f"bench add {size}-{index}", "next": "/memory/"})
            assert response.status_code == 302, response.status_code

        def core_add(index: int, size: int = size) -> None:
            assert memory_core.add_entry(home=home, target="memory", content=f"core add {size}-{index}")["success"]

        sizes: list[int] = []

        def page(_index: int, sizes: list[int] = sizes) -> None:
            response = client.get("/memory/")
            assert response.status_code == 200, response.status_code
            sizes.append(len(response.content))

        page(-1)  # warm the template loader and caches
        add_ms = _median_ms(panel_add, args.rounds)
        core_ms = _median_ms(core_add, args.rounds)
        page_ms = _median_ms(page, args.rounds)
        print(
            f"{size:>6,} entries: panel add {add_ms:8.1f} ms   memory_core add {core_ms:7.1f} ms   "
            f"GET /memory/ {page_ms:8.1f} ms, {sizes[-1] / 1024:8.1f} KiB"
        )
        if args.profile and size == max(args.sizes):
            _profile(f"panel add, {size:,} entries", panel_add)
            _profile(f"GET /memory/, {size:,} entries", page)


if __name__ == "__main__":
    main()

"""What the profiles overview costs as profiles are added, and what the navigation's profile count
adds to every page.

    .venv/bin/python bench/profiles_overview.py [--profiles 3 10 30] [--requests 30]

For each count, a root with that many profiles (each with both stores, a config.yaml, a .env and
an active provider) is served in-process through the full Django stack: ``GET /profiles/`` wall
and CPU time, median and p95. Then the profile count alone (``discover_profiles(probe=False)``,
what the navigation runs on every page to decide whether to show "Profiles"). Prints figures;
asserts nothing.
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PASSWORD = "bench passphrase, not a secret"  # noqa: S105 - a throwaway account in a temporary database
CONFIG = """\
memory:
  memory_char_limit: {limit}
  user_profile_enabled: {user}
  provider: {provider}
"""


def _make_root(root: Path, count: int) -> None:
    for n in range(count):
        home = root if n == 0 else root / "profiles" / f"p{n:03d}"
        (home / "memories").mkdir(parents=True, exist_ok=True)
        provider = ("hindsight", "supermemory", "''")[n % 3]
        (home / "config.yaml").write_text(
            CONFIG.format(limit=2200 + n, user="true" if n % 2 else "false", provider=provider), encoding="utf-8"
        )
        entries = [f"Profile {n} fact {k}: the build keeps artefacts for {k + 3} days." for k in range(30)]
        (home / "memories" / "MEMORY.md").write_text("\n§\n".join(entries), encoding="utf-8")
        (home / "memories" / "USER.md").write_text("Name: Dana\n§\nPrefers concise answers.", encoding="utf-8")
        (home / ".env").write_text("HINDSIGHT_API_KEY=bench-not-a-key\n", encoding="utf-8")


def _stats(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return f"median {statistics.median(ordered):8.2f} ms   p95 {p95:8.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--profiles", type=int, nargs="+", default=[3, 10, 30])
    parser.add_argument("--requests", type=int, default=30)
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="bench-profiles-"))
    os.environ.update({"HERMES_HOME": str(base / "root0"), "PANEL_DATA_DIR": str(base / "panel"),
                       "DJANGO_SETTINGS_MODULE": "admin_panel.settings"})
    sys.path.insert(0, str(REPO))
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client

    from provider_schemas.profiles import discover_profiles

    call_command("migrate", interactive=False, verbosity=0)
    logging.getLogger("django.request").setLevel(logging.ERROR)
    user = get_user_model().objects.create_user("bench", password=PASSWORD, is_staff=True, is_superuser=True)
    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(user)
    for count in args.profiles:
        root = base / f"root{count}"
        _make_root(root, count)
        settings.HERMES_HOME = root
        for _ in range(3):  # warm up
            client.get("/profiles/")
        wall, cpu = [], []
        for _ in range(args.requests):
            start, start_cpu = time.perf_counter(), time.process_time()
            status = client.get("/profiles/").status_code
            wall.append((time.perf_counter() - start) * 1000)
            cpu.append((time.process_time() - start_cpu) * 1000)
            if status != 200:
                raise SystemExit(f"GET /profiles/ answered {status}")
        discover = []
        for _ in range(200):
            start = time.perf_counter()
            discover_profiles(home=root, probe=False)
            discover.append((time.perf_counter() - start) * 1000)
        print(f"{count:3d} profiles  GET /profiles/ wall {_stats(wall)}   cpu {_stats(cpu)}")
        print(f"{'':14}profile count (every page's nav) {_stats(discover)}")


if __name__ == "__main__":
    main()

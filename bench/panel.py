"""Server time of the provider pages and the provider API.

Runs the real Django stack in-process (every middleware, session auth, templates) against a
temporary HERMES_HOME holding the 8 bundled providers plus 40 generated user plugins, and prints
median and p95 per route over warm requests:

    /work/venv/bin/python bench/panel.py [--requests 200] [--plugins 40]

Goals (issue 5): the API at least as fast as hermes-agent 0.19.0's own server on the same machine
(about 2.5 ms GET and 5 ms PUT median there), a provider page under 10 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

PLUGIN_INIT = '"""Generated benchmark provider."""\n\ndef register(ctx):\n    ctx.register_memory_provider("x", None)\n'
PLUGIN_SCHEMA = '''\
from plugins.memory.config_schema import (
    KIND_BOOL, KIND_JSON, KIND_NUMBER, KIND_SECRET, KIND_SELECT, KIND_TEXT,
    ProviderConfigSchema, ProviderField, ProviderFieldOption,
)

CONFIG_SCHEMA = ProviderConfigSchema(
    name="{name}",
    label="Generated {index}",
    fields=(
        ProviderField("mode", "Mode", kind=KIND_SELECT, default="a", inline=True,
                      options=(ProviderFieldOption("a", "A"), ProviderFieldOption("b", "B"))),
        ProviderField("api_key", "API key", kind=KIND_SECRET, env_key="GEN{index}_API_KEY", required=True),
        ProviderField("url", "URL", placeholder="http://localhost"),
        ProviderField("size", "Size", kind=KIND_NUMBER, default="10"),
        ProviderField("on", "Enabled", kind=KIND_BOOL, default="true"),
        ProviderField("tags", "Tags", kind=KIND_JSON, when={{"mode": "b"}}),
    ),
)
'''


def _prepare(root: Path, plugins: int) -> Path:
    home = root / "hermes"
    for index in range(plugins):
        name = f"gen{index:02d}"
        directory = home / "plugins" / name
        directory.mkdir(parents=True)
        (directory / "__init__.py").write_text(PLUGIN_INIT, encoding="utf-8")
        (directory / "config_schema.py").write_text(PLUGIN_SCHEMA.format(name=name, index=index), encoding="utf-8")
    (home / ".env").write_text("HINDSIGHT_API_KEY=bench-not-a-key\n", encoding="utf-8")
    (home / "config.yaml").write_text("_config_version: 33\nmemory:\n  provider: hindsight\n", encoding="utf-8")
    return home


def _percentiles(values: list[float]) -> tuple[float, float]:
    values = sorted(values)
    return statistics.median(values), values[max(0, int(len(values) * 0.95) - 1)]


def _measure(label: str, call, count: int) -> dict[str, float]:
    """Wall time and CPU time of this process per request. The CPU figure is what the server
    itself spends; on a shared, oversubscribed machine the wall figure also includes waiting for
    a core."""
    for _ in range(10):  # warm caches (schema cache, template loader)
        call(-1)
    wall, cpu = [], []
    for i in range(count):
        start, start_cpu = time.perf_counter(), time.process_time()
        response = call(i)
        cpu.append((time.process_time() - start_cpu) * 1000)
        wall.append((time.perf_counter() - start) * 1000)
        if response.status_code not in (200, 302):
            raise SystemExit(f"{label}: HTTP {response.status_code}: {response.content[:300]!r}")
    wall_median, wall_p95 = _percentiles(wall)
    cpu_median, cpu_p95 = _percentiles(cpu)
    print(
        f"{label:<44} wall median {wall_median:7.2f} ms p95 {wall_p95:7.2f} ms | "
        f"cpu median {cpu_median:6.2f} ms p95 {cpu_p95:6.2f} ms  (n={count})"
    )
    return {"median": wall_median, "p95": wall_p95, "cpu_median": cpu_median, "cpu_p95": cpu_p95}


class _Ok:
    """Lets a deliberate 404 through the status check."""

    status_code = 200

    def __init__(self, response) -> None:
        self.content = response.content


def _ok(response):
    return _Ok(response) if response.status_code == 404 else response


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--plugins", type=int, default=40)
    args = parser.parse_args()

    root = Path(tempfile.mkdtemp(prefix="memory-panel-bench-"))
    home = _prepare(root, args.plugins)
    os.environ["HERMES_HOME"] = str(home)
    os.environ["PANEL_DATA_DIR"] = str(root / "panel")
    os.environ["HOME"] = str(root / "user")  # legacy ~ lookups see an empty folder
    (root / "user").mkdir()
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
    user = get_user_model().objects.create_user("bench", password=None, is_staff=True, is_superuser=True)
    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(user)

    print(f"memory-panel bench: 8 bundled providers + {args.plugins} user plugins, {args.requests} warm requests each")
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    config = "/api/memory/providers/hindsight/config?surface=declared"

    def put(i: int):
        body = {"values": {"timeout": 100 + (i % 50), "bank_id": f"bank-{i % 7}"}}
        return client.put(config, data=json.dumps(body), content_type="application/json")

    # Baselines: what the framework costs before any provider work (session, auth, middleware).
    baseline_page = lambda i: client.get("/providers/-/deactivate/")  # noqa: E731
    baseline_api = lambda i: client.get("/api/memory/providers/no.such/config")  # noqa: E731
    _measure("baseline: small page (session+auth+base.html)", baseline_page, args.requests)
    _measure("baseline: API 404 from the name guard", lambda i: _ok(baseline_api(i)), args.requests)
    _measure("GET /providers/ (list page)", lambda i: client.get("/providers/"), args.requests)
    _measure("GET /providers/hindsight/ (provider page)", lambda i: client.get("/providers/hindsight/"), args.requests)
    _measure("GET /providers/gen07/ (user plugin page)", lambda i: client.get("/providers/gen07/"), args.requests)
    _measure("GET /api/memory (provider list)", lambda i: client.get("/api/memory"), args.requests)
    _measure("GET /api/memory/providers/hindsight/config", lambda i: client.get(config), args.requests)
    _measure("PUT /api/memory/providers/hindsight/config", put, args.requests)
    print("reference: hermes-agent 0.19.0 own server, same machine class: ~2.5 ms GET, ~5 ms PUT (median)")


if __name__ == "__main__":
    main()

"""Server time of the provider pages and the provider API.

Runs the real Django stack in-process (every middleware, session auth, templates) against a
temporary HERMES_HOME holding the 8 bundled providers plus 40 generated user plugins, and prints
median and p95 per route over warm requests:

    .venv/bin/python bench/panel.py [--requests 200] [--plugins 40] [--hermes-python PY [--http-only]]

Goals (issue 5): the API at least as fast as hermes-agent 0.19.0's own server on the same machine
(about 2.5 ms GET and 5 ms PUT median there), a provider page under 10 ms.

``--hermes-python /tmp/hermes-0190/bin/python`` (an interpreter where hermes-agent 0.19.0 is
installed; never a dependency of this project) also runs the same API requests against 0.19.0's
own dashboard app, in that interpreter, on an identical home, so both sets of figures come from
the same machine at the same moment; then it starts both real servers (``manage.py serve`` and
0.19.0's app on uvicorn) and sends them the same API requests over HTTP, interleaved, and prints
the GET and PUT ratios (goal: 0.8 or less and 1.0 or less).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
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


# Runs inside the hermes-agent interpreter: its FastAPI dashboard app, in-process, same requests.
HERMES_SIDE = r"""
import os, statistics, sys, time
from hermes_cli import web_server
from starlette.testclient import TestClient

requests = int(sys.argv[1])
client = TestClient(web_server.app, base_url="http://127.0.0.1")
headers = {"X-Hermes-Session-Token": os.environ["HERMES_DASHBOARD_SESSION_TOKEN"]}
config = "/api/memory/providers/hindsight/config?surface=declared"


def measure(label, call, count):
    for i in range(10):
        call(-1 - i)
    wall, cpu = [], []
    for i in range(count):
        started, started_cpu = time.perf_counter(), time.process_time()
        response = call(i)
        cpu.append((time.process_time() - started_cpu) * 1000)
        wall.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, response.text[:300]
    wall.sort(); cpu.sort()
    p95 = lambda v: v[min(len(v) - 1, int(len(v) * 0.95))]
    print(f"{label:44} wall median {statistics.median(wall):7.2f} ms p95 {p95(wall):7.2f} ms | "
          f"cpu median {statistics.median(cpu):6.2f} ms p95 {p95(cpu):6.2f} ms  (n={count})")


measure("0.19.0: GET /api/memory (provider list)", lambda i: client.get("/api/memory", headers=headers), requests)
measure("0.19.0: GET /api/memory/providers/hindsight/config", lambda i: client.get(config, headers=headers), requests)
measure("0.19.0: PUT /api/memory/providers/hindsight/config",
        lambda i: client.put(config, headers=headers,
                             json={"values": {"timeout": 100 + (i % 50), "bank_id": f"bank-{i % 7}"}}), requests)
"""


# Runs inside the hermes-agent interpreter: its dashboard app on uvicorn, as `hermes dashboard` serves it.
HERMES_HTTP = r"""
import sys
import uvicorn
from hermes_cli import web_server

uvicorn.run(web_server.app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning", access_log=False)
"""
HTTP_TOKEN = "bench-session-token"  # noqa: S105 - 0.19.0's dashboard token in a throwaway home
PASSWORD = "bench passphrase 7, not a secret"  # noqa: S105 - a throwaway account


def _wait_listening(port: int, process: subprocess.Popen, log: Path) -> None:
    import socket

    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            if process.poll() is not None:
                raise SystemExit(f"a server exited before listening:\n{log.read_text()[-2000:]}") from None
            time.sleep(0.1)
    raise SystemExit("a server did not start listening")


def _process_cpu_ms(pid: int) -> float:
    """User and system CPU time of a process, all threads (Linux /proc): what the server itself
    spent, which on a shared machine varies less than wall time."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _http_side_by_side(python: str, *, plugins: int, requests: int, warm_up: dict[str, int] | None = None,
                       counts: dict[str, int] | None = None, with_secret: bool = False) -> dict:
    """Both real servers at once, each on an identical home, the same requests over keep-alive
    HTTP, interleaved one by one so that both see the same machine load.

    ``warm_up`` and ``counts`` give per method (GET, PUT) the uncounted and counted requests
    (default 20 and ``requests``); ``with_secret`` puts a new API key in every PUT. Returns
    {(side, method): {"median", "p95", "cpu"}} (bench/versus_agent.py uses it)."""
    warm_up = {"GET": 20, "PUT": 20, **(warm_up or {})}
    counts = {"GET": requests, "PUT": requests, **(counts or {})}
    import http.client

    root = Path(tempfile.mkdtemp(prefix="memory-panel-bench-http-"))
    (root / "user").mkdir()
    ours_home, theirs_home = _prepare(root / "ours", plugins), _prepare(root / "theirs", plugins)
    base_env = {k: v for k, v in os.environ.items() if not k.startswith(("PANEL_", "DJANGO_", "HERMES_"))}
    ours_env = {**base_env, "HERMES_HOME": str(ours_home), "PANEL_DATA_DIR": str(root / "ours" / "panel"),
                "HOME": str(root / "user"), "DJANGO_SETTINGS_MODULE": "admin_panel.settings",
                "DJANGO_SUPERUSER_PASSWORD": PASSWORD}
    theirs_env = {**base_env, "HERMES_HOME": str(theirs_home), "HOME": str(root / "user"),
                  "HERMES_DASHBOARD_SESSION_TOKEN": HTTP_TOKEN, "PYTHONPATH": ""}

    def manage(*args: str) -> str:
        done = subprocess.run([sys.executable, str(REPO / "manage.py"), *args], cwd=REPO, env=ours_env,
                              capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            raise SystemExit(f"manage.py {' '.join(args)} failed:\n{done.stderr[-2000:]}")
        return done.stdout

    manage("migrate", "--noinput", "-v", "0")
    manage("createsuperuser", "--noinput", "--username", "bench", "--email", "bench@example.invalid")
    token = manage("api_token", "create", "--user", "bench", "--name", "bench").strip()
    ours_port, theirs_port = _free_port(), _free_port()
    ours_log, theirs_log = root / "ours.log", root / "theirs.log"
    servers = [
        subprocess.Popen([sys.executable, str(REPO / "manage.py"), "serve", "--port", str(ours_port)], cwd=REPO,
                         env=ours_env, stdout=ours_log.open("wb"), stderr=subprocess.STDOUT),
        subprocess.Popen([python, "-c", HERMES_HTTP, str(theirs_port)], cwd=root, env=theirs_env,
                         stdout=theirs_log.open("wb"), stderr=subprocess.STDOUT),
    ]
    try:
        _wait_listening(ours_port, servers[0], ours_log)
        _wait_listening(theirs_port, servers[1], theirs_log)
        sides = {"ours": (ours_port, token), "0.19.0": (theirs_port, HTTP_TOKEN)}
        connections = {name: http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                       for name, (port, _) in sides.items()}
        config = "/api/memory/providers/hindsight/config?surface=declared"
        timings: dict[tuple[str, str], list[float]] = {}

        def one(name: str, method: str, i: int) -> None:
            port, secret = sides[name]
            headers = {"X-Hermes-Session-Token": secret, "Host": f"127.0.0.1:{port}"}
            body = None
            if method == "PUT":
                values = {"timeout": 100 + (i % 50), "bank_id": f"bank-{i % 7}"}
                if with_secret:
                    values["api_key"] = f"bench-key-{i + 100}"
                body = json.dumps({"values": values})
                headers["Content-Type"] = "application/json"
            started = time.perf_counter()
            connections[name].request(method, config, body=body, headers=headers)
            response = connections[name].getresponse()
            payload = response.read()
            elapsed = (time.perf_counter() - started) * 1000
            if response.status != 200:
                raise SystemExit(f"{name} {method}: HTTP {response.status}: {payload[:300]!r}")
            if i >= 0:
                timings.setdefault((name, method), []).append(elapsed)

        pids = {"ours": servers[0].pid, "0.19.0": servers[1].pid}
        cpu_per_request: dict[tuple[str, str], float] = {}
        for method in ("GET", "PUT"):
            for i in range(-warm_up[method], 0):  # warm caches; not counted
                for name in sides:
                    one(name, method, i)
            cpu_before = {name: _process_cpu_ms(pid) for name, pid in pids.items()}
            for i in range(counts[method]):  # interleaved, alternating who goes first
                for name in (sides if i % 2 else reversed(list(sides))):
                    one(name, method, i)
            for name, pid in pids.items():
                cpu_per_request[(name, method)] = (_process_cpu_ms(pid) - cpu_before[name]) / counts[method]
        print(f"over HTTP, both servers running, interleaved requests (keep-alive, one client), "
              f"GET {warm_up['GET']}+{counts['GET']}, PUT {warm_up['PUT']}+{counts['PUT']}"
              f"{' with a secret' if with_secret else ''}:")
        results: dict = {}
        for method in ("GET", "PUT"):
            medians = {}
            for name in sides:
                median, p95 = _percentiles(timings[(name, method)])
                medians[name] = median
                results[(name, method)] = {"median": median, "p95": p95, "cpu": cpu_per_request[(name, method)]}
                print(f"  {name:<7} {method} /api/memory/providers/hindsight/config  median {median:6.2f} ms  "
                      f"p95 {p95:6.2f} ms  server CPU {cpu_per_request[(name, method)]:5.2f} ms/request")
            cpu_ratio = cpu_per_request[("ours", method)] / cpu_per_request[("0.19.0", method)]
            print(f"  {method} ratio ours / 0.19.0: {medians['ours'] / medians['0.19.0']:.2f} "
                  f"(server CPU per request: {cpu_ratio:.2f})")
        return results
    finally:
        for server in servers:
            server.terminate()
        for server in servers:
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()


def _measure_hermes(python: str, *, plugins: int, requests: int) -> None:
    root = Path(tempfile.mkdtemp(prefix="memory-panel-bench-hermes-"))
    home = _prepare(root, plugins)
    (root / "user").mkdir()
    env = {**os.environ, "HERMES_HOME": str(home), "HOME": str(root / "user"),
           "HERMES_DASHBOARD_SESSION_TOKEN": "bench-session-token", "PYTHONPATH": ""}
    result = subprocess.run([python, "-c", HERMES_SIDE, str(requests)], env=env, cwd=root,
                            capture_output=True, text=True, timeout=1800)
    if result.returncode != 0:
        print(f"hermes-agent 0.19.0 could not be measured with {python}:\n{result.stderr[-2000:]}")
        return
    print(result.stdout, end="")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--plugins", type=int, default=40)
    parser.add_argument("--hermes-python", help="an interpreter with hermes-agent 0.19.0 installed")
    parser.add_argument("--http-only", action="store_true",
                        help="with --hermes-python: only the side-by-side run of both servers over HTTP")
    args = parser.parse_args()
    if args.http_only and args.hermes_python:
        _http_side_by_side(args.hermes_python, plugins=args.plugins, requests=args.requests)
        return

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
    if args.hermes_python:
        _measure_hermes(args.hermes_python, plugins=args.plugins, requests=args.requests)
        _http_side_by_side(args.hermes_python, plugins=args.plugins, requests=args.requests)
    else:
        print("(add --hermes-python PY to measure hermes-agent 0.19.0's own server here too)")


if __name__ == "__main__":
    main()

"""First page of a fresh process, over 10 starts (issue 28: <= 500 ms, ``serve`` listening within 2 s).

    .venv/bin/python bench/cold_start.py [--starts 10] [--path /]

One prepared home (the 8 bundled providers + 40 generated user plugins, an account and a signed-in
session made beforehand), then for each start:
- ``manage.py serve``: the time from starting the process to its socket accepting connections,
  and to the first signed-in page (``--path``, the home page by default) answered, with the
  server process's CPU time at that moment (/proc; less sensitive than wall time to a shared,
  loaded machine);
- in-process: a fresh interpreter that imports Django, sets it up and asks Django's test client
  for the same page with the same session: the time of the imports and setup, of the first
  request, and the process's CPU time when it is answered (interpreter start included).
Prints median and max of each.

The project's bytecode is compiled first (``compileall``, as installing a package does): with
PYTHONDONTWRITEBYTECODE set, an editable checkout would otherwise compile every module from source
in every process, which is not what a user's start costs. ``--from-source`` measures that case.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))

from panel import PASSWORD, _free_port, _prepare, _process_cpu_ms  # noqa: E402 - shared bench helpers

# Run in a fresh interpreter: make a signed-in session for the bench account, print its cookie.
MAKE_SESSION = r"""
import django, json
django.setup()
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
client = Client(HTTP_HOST="127.0.0.1")
client.force_login(get_user_model().objects.get(username="bench"))
print(json.dumps([settings.SESSION_COOKIE_NAME, client.cookies[settings.SESSION_COOKIE_NAME].value]))
"""

# Run in a fresh interpreter: everything from the first line to the first page, timed.
IN_PROCESS = r"""
import time
started = time.perf_counter()
import json, sys
import django
django.setup()
from django.test import Client
client = Client(HTTP_HOST="127.0.0.1")
client.cookies[sys.argv[1]] = sys.argv[2]
ready = time.perf_counter()
response = client.get(sys.argv[3])
answered = time.perf_counter()
assert response.status_code == 200, (response.status_code, response.content[:300])
print(json.dumps({"setup": (ready - started) * 1000, "request": (answered - ready) * 1000,
                  "total": (answered - started) * 1000, "cpu": time.process_time() * 1000}))
"""


def _environment(root: Path, home: Path) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("PANEL_", "DJANGO_", "HERMES_"))}
    return {**base, "HERMES_HOME": str(home), "PANEL_DATA_DIR": str(root / "panel"), "HOME": str(root / "user"),
            "DJANGO_SETTINGS_MODULE": "admin_panel.settings", "DJANGO_SUPERUSER_PASSWORD": PASSWORD,
            "PYTHONPATH": str(REPO)}


def _run(argv: list[str], env: dict[str, str]) -> str:
    done = subprocess.run(argv, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:3])} failed:\n{done.stderr[-2000:]}")
    return done.stdout


def _one_served_start(env: dict[str, str], cookie: str, path: str) -> dict[str, float]:
    port = _free_port()
    log = tempfile.TemporaryFile()  # noqa: SIM115 - closed in finally, after the server
    started = time.perf_counter()
    server = subprocess.Popen([sys.executable, str(REPO / "manage.py"), "serve", "--port", str(port)], cwd=REPO,
                              env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = started + 120
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if server.poll() is not None or time.perf_counter() > deadline:
                    log.seek(0)
                    raise SystemExit(f"serve did not start:\n{log.read()[-2000:].decode(errors='replace')}") from None
                time.sleep(0.005)
        listening = time.perf_counter()
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        connection.request("GET", path, headers={"Cookie": cookie, "Host": f"127.0.0.1:{port}"})
        response = connection.getresponse()
        response.read()
        answered = time.perf_counter()
        cpu = _process_cpu_ms(server.pid)
        connection.close()
        if response.status != 200:
            raise SystemExit(f"the first page answered HTTP {response.status}")
        return {"listening": (listening - started) * 1000, "first page": (answered - started) * 1000,
                "page after listening": (answered - listening) * 1000, "server CPU": cpu}
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


def _report(title: str, rows: list[dict[str, float]]) -> None:
    print(title)
    for key in rows[0]:
        values = [row[key] for row in rows]
        print(f"  {key:<22} median {statistics.median(values):7.0f} ms   max {max(values):7.0f} ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=10)
    parser.add_argument("--plugins", type=int, default=40)
    parser.add_argument("--path", default="/", help="the signed-in page asked first (default: the home page)")
    parser.add_argument("--from-source", action="store_true", help="do not compile the bytecode first")
    args = parser.parse_args()
    if not args.from_source:
        subprocess.run([sys.executable, "-m", "compileall", "-q", "admin_panel", "memory_core", "provider_schemas"],
                       cwd=REPO, check=True, stdout=subprocess.DEVNULL)
    root = Path(tempfile.mkdtemp(prefix="memory-panel-cold-"))
    (root / "user").mkdir()
    home = _prepare(root, args.plugins)
    env = _environment(root, home)
    manage = [sys.executable, str(REPO / "manage.py")]
    _run([*manage, "migrate", "--noinput", "-v", "0"], env)
    _run([*manage, "createsuperuser", "--noinput", "--username", "bench", "--email", "bench@example.invalid"], env)
    name, value = json.loads(_run([sys.executable, "-c", MAKE_SESSION], env))
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}; "
          f"{args.starts} fresh processes each, first page {args.path}")
    served, in_process = [], []
    for _ in range(args.starts):  # alternate the two kinds so that both see the same load
        served.append(_one_served_start(env, f"{name}={value}", args.path))
        in_process.append(json.loads(_run([sys.executable, "-c", IN_PROCESS, name, value, args.path], env)))
    _report("manage.py serve (from process start):", served)
    _report("in-process (fresh interpreter, Django's test client):", in_process)
    return 0


if __name__ == "__main__":
    sys.exit(main())

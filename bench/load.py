"""Load test: concurrent clients against a real ``manage.py serve`` on loopback.

    .venv/bin/python bench/load.py [--clients 8] [--duration 30] [--streams 20] [--compare-with /tmp/main
                                   [--rounds N]] [--keep]

Prepares a temporary HERMES_HOME (memory entries, provider settings, a user plugin) and a panel
database with a staff account and an API token, starts the real server (``manage.py serve``) as its own
process, opens ``--streams`` idle event streams (``/memory/events/``, as open tabs do) and keeps
them open, then runs ``--clients`` client threads for ``--duration`` seconds. Each client keeps one
HTTP/1.1 connection and cycles through:

* the provider page ``GET /providers/hindsight/`` (signed-in session),
* the API ``GET /api/memory/providers/hindsight/config`` (API token),
* the live-view poll ``GET /memory/poll/?view=page&fp=...`` as the page polls it: the first
  answer (200) carries the fingerprint, later polls send it and get 204 while nothing changes.

Prints throughput and p50/p99 latency per route and overall, and the error count (any status
other than 200/204, or a failed connection). The server's output goes to a file (never a pipe
that could fill and block it); a moment when no client gets an answer for 5 s is a stall and fails
the run loudly. ``--compare-with`` runs another checkout first (the same interpreter, so it must
import with this environment) and prints the throughput ratio. Exit status 1 on any error. The server
and the clients share the machine's cores, so the figures are a floor, not the server's ceiling.
"""

from __future__ import annotations

import argparse
import http.client
import http.cookiejar
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PASSWORD = "load test passphrase 9"  # noqa: S105 - a throwaway account in a temporary database
ROUTES = ("provider page", "API GET", "live poll")
# A request that takes this long is a stall, not a slow answer: the run fails loudly.
REQUEST_TIMEOUT_S = 10.0
STALL_S = 5.0
STREAM_PATH = "/memory/events/"


# --- preparing a home and a server ------------------------------------------------------------------


def _env(home: Path, data: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PANEL_", "DJANGO_"))}
    env.update(HERMES_HOME=str(home), PANEL_DATA_DIR=str(data), DJANGO_SETTINGS_MODULE="admin_panel.settings",
               DJANGO_SUPERUSER_PASSWORD=PASSWORD, PYTHONUNBUFFERED="1")
    return env


def _manage(env: dict[str, str], *args: str, repo: Path = REPO) -> str:
    result = subprocess.run([sys.executable, str(repo / "manage.py"), *args], cwd=repo, env=env,
                            capture_output=True, text=True, timeout=300)
    if result.returncode != 0:
        raise SystemExit(f"manage.py {' '.join(args)} failed:\n{result.stdout}{result.stderr}")
    return result.stdout


def seed_home(home: Path) -> None:
    memories = home / "memories"
    memories.mkdir(parents=True)
    facts = [f"Fact number {i}: the build uses uv and runs on GitHub Actions." for i in range(25)]
    (memories / "MEMORY.md").write_text("\n§\n".join(facts), encoding="utf-8")
    (memories / "USER.md").write_text("Name: Dana\n§\nPrefers concise answers.", encoding="utf-8")
    (home / "config.yaml").write_text("_config_version: 33\nmemory:\n  provider: hindsight\n", encoding="utf-8")
    (home / ".env").write_text("HINDSIGHT_API_KEY=load-test-key\n", encoding="utf-8")
    (home / "hindsight").mkdir()
    (home / "hindsight" / "config.json").write_text(
        json.dumps({"mode": "local_external", "api_url": "http://127.0.0.1:8888", "bank_id": "load"}),
        encoding="utf-8")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_listening(port: int, process: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            if process.poll() is not None:
                raise SystemExit("the server exited before listening") from None
            time.sleep(0.1)
    raise SystemExit("the server did not start listening")


def session_cookie(base: str) -> str:
    """Sign in through the login form; return the Cookie header value of the session."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    with opener.open(f"{base}/accounts/login/", timeout=30) as response:
        response.read()
    csrf = next(c.value for c in jar if c.name == "csrftoken")
    body = urllib.parse.urlencode({"username": "owner", "password": PASSWORD, "csrfmiddlewaretoken": csrf}).encode()
    request = urllib.request.Request(f"{base}/accounts/login/", data=body, headers={"Referer": f"{base}/"})
    with opener.open(request, timeout=30) as response:
        response.read()
    cookies = {c.name: c.value for c in jar}
    if "sessionid" not in cookies:
        raise SystemExit("could not sign in")
    return "; ".join(f"{k}={v}" for k, v in cookies.items())


# --- clients ------------------------------------------------------------------------------------------


@dataclass
class Tally:
    latencies: dict[str, list[float]] = field(default_factory=lambda: {r: [] for r in ROUTES})
    errors: list[str] = field(default_factory=list)
    last_answer: float = field(default_factory=time.monotonic)


def client(port: int, cookie: str, token: str, until: float, start_at: int, tally: Tally) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=REQUEST_TIMEOUT_S)
    fingerprint = ""
    step = start_at
    while time.monotonic() < until:
        route = ROUTES[step % len(ROUTES)]
        step += 1
        if route == "provider page":
            path, headers, ok = "/providers/hindsight/", {"Cookie": cookie}, (200,)
        elif route == "API GET":
            path, headers, ok = "/api/memory/providers/hindsight/config", {"X-Hermes-Session-Token": token}, (200,)
        else:
            path = f"/memory/poll/?view=page&fp={urllib.parse.quote(fingerprint)}"
            headers, ok = {"Cookie": cookie, "HX-Request": "true"}, (200, 204)
        started = time.perf_counter()
        try:
            connection.request("GET", path, headers=headers)
            response = connection.getresponse()
            response.read()
        except (OSError, http.client.HTTPException) as exc:
            tally.errors.append(f"{route}: {type(exc).__name__}: {exc}")
            connection.close()
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=REQUEST_TIMEOUT_S)
            continue
        elapsed = time.perf_counter() - started
        if response.status not in ok:
            tally.errors.append(f"{route}: HTTP {response.status}")
            continue
        if route == "live poll" and response.status == 200:
            fingerprint = response.getheader("X-Memory-Fingerprint", "")
        tally.latencies[route].append(elapsed)
        tally.last_answer = time.monotonic()
    connection.close()


def watch_for_stalls(tallies: list[Tally], until: float, stalls: list[str]) -> None:
    """Report any moment when no client got an answer for STALL_S seconds (a blocked server)."""
    while time.monotonic() < until:
        time.sleep(0.5)
        latest = max(t.last_answer for t in tallies)
        silent = time.monotonic() - latest
        if silent >= STALL_S:
            stalls.append(f"no answer to any client for {silent:.1f} s")
            print(f"STALL: no answer to any client for {silent:.1f} s", file=sys.stderr, flush=True)
            return


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def report(tallies: list[Tally], duration: float, clients: int, label: str) -> int:
    print(f"memory-panel load test ({label}): {clients} clients, {duration:.0f} s, "
          f"{os.cpu_count()} CPU cores shared by server and clients, load average {os.getloadavg()[0]:.1f}")
    print(f"{'route':<15} {'requests':>9} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8}")
    everything: list[float] = []
    for route in ROUTES:
        values = [v for t in tallies for v in t.latencies[route]]
        everything += values
        print(f"{route:<15} {len(values):>9} {len(values) / duration:>8.1f} "
              f"{percentile(values, 0.50) * 1000:>8.1f} {percentile(values, 0.99) * 1000:>8.1f}")
    print(f"{'all':<15} {len(everything):>9} {len(everything) / duration:>8.1f} "
          f"{percentile(everything, 0.50) * 1000:>8.1f} {percentile(everything, 0.99) * 1000:>8.1f}")
    errors = [e for t in tallies for e in t.errors]
    print(f"errors: {len(errors)}")
    for line in sorted(set(errors))[:10]:
        print(f"  {line}")
    if everything:
        print(f"mean latency {statistics.fmean(everything) * 1000:.1f} ms")
    return 1 if errors else 0


class Streams:
    """Idle event streams held open for the whole run, as open browser tabs hold them."""

    def __init__(self, port: int, cookie: str, count: int) -> None:
        self.port, self.cookie, self.count = port, cookie, count
        self.opened = 0
        self.errors: list[str] = []
        self.connections: list[http.client.HTTPConnection] = []

    def open(self) -> bool:
        """Open them all (each has sent its first event); False when the server has no streams."""
        for _ in range(self.count):
            connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=REQUEST_TIMEOUT_S)
            connection.request("GET", STREAM_PATH, headers={"Cookie": self.cookie, "Accept": "text/event-stream"})
            response = connection.getresponse()
            if response.status == 404:
                connection.close()
                return False
            if response.status != 200 or not response.readline().startswith(b"retry:"):
                self.errors.append(f"stream: HTTP {response.status}")
                connection.close()
                continue
            connection.sock.settimeout(None)  # idle by design: nothing arrives while nothing changes
            threading.Thread(target=self._drain, args=(response,), daemon=True).start()
            self.connections.append(connection)
            self.opened += 1
        return True

    def _drain(self, response: http.client.HTTPResponse) -> None:
        try:
            while response.readline():
                pass
        except (OSError, ValueError, AttributeError):  # closed under the reader at the end
            pass

    def still_open(self) -> int:
        return sum(1 for c in self.connections if c.sock is not None and c.sock.fileno() != -1)

    def close(self) -> None:
        for connection in self.connections:
            connection.close()


@dataclass
class Outcome:
    label: str
    status: int
    throughput: float = 0.0
    p99_ms: float = float("nan")
    streams: int = 0
    cpu_per_request_ms: float = float("nan")


def process_cpu_ms(pid: int) -> float:
    """User and system CPU time of a process, all its threads (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def run_one(repo: Path, label: str, args: argparse.Namespace) -> Outcome:
    root = Path(tempfile.mkdtemp(prefix="memory-panel-load-"))
    home, data = root / "home", root / "data"
    home.mkdir()
    seed_home(home)
    env = _env(home, data)
    _manage(env, "migrate", "--noinput", "-v", "0", repo=repo)
    _manage(env, "createsuperuser", "--noinput", "--username", "owner", "--email", "owner@example.invalid", repo=repo)
    token = _manage(env, "api_token", "create", "--user", "owner", "--name", "load", repo=repo).strip()
    port = free_port()
    # The server's output goes to a file, never an unread pipe: a full pipe blocks the server on
    # its next log line, which under load looks like a hang of every client at once.
    server_log = (root / "server.log").open("w+b")
    server = subprocess.Popen(
        [sys.executable, str(repo / "manage.py"), "serve", "--port", str(port), "--threads", str(args.threads)],
        cwd=repo, env=env, stdout=server_log, stderr=subprocess.STDOUT,
    )
    outcome = Outcome(label=label, status=1)
    streams: Streams | None = None
    print(f"--- {label}: {repo}")
    try:
        wait_listening(port, server)
        base = f"http://127.0.0.1:{port}"
        cookies = [session_cookie(base) for _ in range(args.clients)]
        # Warm up: the first requests load schemas and templates.
        warm = Tally()
        client(port, cookies[0], token, time.monotonic() + 2, 0, warm)
        if args.streams:
            streams = Streams(port, session_cookie(base), args.streams)
            if not streams.open():
                print(f"({label} has no event streams: measured without them)")
                streams = None
        tallies = [Tally() for _ in range(args.clients)]
        until = time.monotonic() + args.duration
        workers = [threading.Thread(target=client, args=(port, cookies[i], token, until, i, tallies[i]))
                   for i in range(args.clients)]
        stalls: list[str] = []
        watchdog = threading.Thread(target=watch_for_stalls, args=(tallies, until, stalls), daemon=True)
        started = time.monotonic()
        cpu_before = process_cpu_ms(server.pid)
        for tally in tallies:
            tally.last_answer = started
        watchdog.start()
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        elapsed = time.monotonic() - started
        server_cpu_ms = process_cpu_ms(server.pid) - cpu_before
        status = report(tallies, elapsed, args.clients, label)
        everything = [v for t in tallies for r in ROUTES for v in t.latencies[r]]
        # What the server itself spent per answer: on a shared machine it moves less than req/s.
        outcome.cpu_per_request_ms = server_cpu_ms / max(1, len(everything))
        print(f"server CPU per request {outcome.cpu_per_request_ms:.2f} ms "
              f"(the server used {server_cpu_ms / 10 / elapsed:.0f}% of one core)")
        outcome.throughput = len(everything) / elapsed
        outcome.p99_ms = percentile(everything, 0.99) * 1000
        if streams is not None:
            outcome.streams = streams.still_open()
            print(f"idle event streams: {streams.opened} opened, {outcome.streams} still open at the end, "
                  f"{len(streams.errors)} refused")
            if streams.errors or outcome.streams != args.streams:
                status = 1
        if elapsed > args.duration + 2 * REQUEST_TIMEOUT_S or stalls:
            print(f"FAILED: the run stalled ({'; '.join(stalls) or f'took {elapsed:.0f} s'})")
            status = 1
        outcome.status = status
    finally:
        if streams is not None:
            streams.close()
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            print("FAILED: the server did not stop within 20 s of SIGTERM")
            outcome.status = 1
            server.kill()
            server.wait()
        server_log.seek(0)
        log = server_log.read().decode("utf-8", "replace")
        server_log.close()
        print(f"server log: {len(log.splitlines())} lines")
        if re.search(r"Traceback|ERROR", log):
            print("server log had errors:\n" + log[-3000:])
            outcome.status = 1
        if args.keep:
            print(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    return outcome


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--duration", type=float, default=30.0)
    parser.add_argument("--threads", type=int, default=8, help="serve --threads")
    parser.add_argument("--streams", type=int, default=20, help="idle event streams held open meanwhile")
    parser.add_argument("--compare-with", type=Path, metavar="CHECKOUT",
                        help="another checkout (e.g. a copy of main) to run first, same machine, same load")
    parser.add_argument("--keep", action="store_true", help="keep the temporary home and database")
    parser.add_argument("--rounds", type=int, default=1, help="with --compare-with: alternate both this many times")
    args = parser.parse_args()

    sides: dict[str, list[Outcome]] = {}
    for _ in range(args.rounds):  # alternate, so that both sides see the same changes of machine load
        if args.compare_with:
            sides.setdefault("baseline", []).append(run_one(args.compare_with.resolve(), "baseline", args))
        sides.setdefault("this checkout", []).append(run_one(REPO, "this checkout", args))
    print(f"--- summary (median of {args.rounds} round{'s' if args.rounds > 1 else ''})")
    medians: dict[str, tuple[float, float]] = {}
    for label, outcomes in sides.items():
        throughput = statistics.median(o.throughput for o in outcomes)
        cpu = statistics.median(o.cpu_per_request_ms for o in outcomes)
        medians[label] = (throughput, cpu)
        print(f"{label:<14} {throughput:8.1f} req/s   p99 {statistics.median(o.p99_ms for o in outcomes):6.1f} ms   "
              f"server CPU {cpu:5.2f} ms/request   idle streams open {min(o.streams for o in outcomes)}   "
              f"{'ok' if all(o.status == 0 for o in outcomes) else 'FAILED'}")
    if "baseline" in medians and medians["baseline"][0]:
        (ours, our_cpu), (theirs, their_cpu) = medians["this checkout"], medians["baseline"]
        print(f"throughput ratio (this / baseline): {ours / theirs:.2f}x; "
              f"server CPU per request ratio: {our_cpu / their_cpu:.2f}")
    return max(o.status for outcomes in sides.values() for o in outcomes)


if __name__ == "__main__":
    sys.exit(main())

"""Load test: concurrent clients against a real ``manage.py serve`` on loopback.

    .venv/bin/python bench/load.py [--clients 20] [--duration 60] [--streams 30] [--compare-with /tmp/main
                                   [--rounds N]] [--keep] [--thousand-streams N (0: skip)]

Prepares a temporary HERMES_HOME (memory entries, provider settings, a user plugin) and a panel
database with a staff account and an API token, starts the real server (``manage.py serve``) as its own
process, opens ``--streams`` idle event streams (``/memory/events/``, as open tabs do) and keeps
them open, then runs ``--clients`` client threads for ``--duration`` seconds. Each client keeps one
HTTP/1.1 connection and cycles through:

* the provider page ``GET /providers/hindsight/`` (signed-in session),
* the API ``GET /api/memory/providers/hindsight/config`` (API token),
* the live-view poll ``GET /memory/poll/?view=page&fp=...`` as the page polls it: the first
  answer (200) carries the fingerprint, later polls send it and get 204 while nothing changes.

Meanwhile one writer in the agent's format (its own process) commits a message to ``state.db``
every half second. Half of the streams are Memory streams, which that writer never concerns: each
must stay idle (no event after its first); the other half are Sessions streams, which get an event
for the commits. The server's RSS and open file descriptors are printed before the streams, while
they are open, and after they closed. A second run (``--thousand-streams``, default 1,000) opens
that many streams from one account on a server whose limits are raised to let them all in, holds
them while a page is fetched, closes them and compares the server's fds and RSS with its baseline;
the same account on a server with the default limits is then refused past its limit.

Prints throughput and p50/p99 latency per route and overall, and the error count (any status
other than 200/204, or a failed connection). The server's output goes to a file (never a pipe
that could fill and block it); a moment when no client gets an answer for 5 s is a stall and fails
the run loudly. ``--compare-with`` runs another checkout first (the same interpreter, so it must
import with this environment) and prints the throughput ratio. Exit status 1 on any error. The server
and the clients share the machine's cores, so the figures are a floor, not the server's ceiling.
"""

from __future__ import annotations

import argparse
import contextlib
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
from typing import Any

REPO = Path(__file__).resolve().parent.parent
PASSWORD = "load test passphrase 9"  # noqa: S105 - a throwaway account in a temporary database
ROUTES = ("provider page", "API GET", "live poll")
# A request that takes this long is a stall, not a slow answer: the run fails loudly.
REQUEST_TIMEOUT_S = 10.0
STALL_S = 5.0
STREAM_PATH = "/memory/events/"
SESSIONS_STREAM_PATH = "/sessions/-/events/"
WRITER_INTERVAL_S = 0.5
# Waiting for the server to wind closed streams down: a safety net against a hang, not a goal.
SETTLE_DEADLINE_S = 120.0
SESSION_ID = "20260101_100000_bench1"


# --- preparing a home and a server ------------------------------------------------------------------


def _env(home: Path, data: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PANEL_", "DJANGO_"))}
    env.update(HERMES_HOME=str(home), PANEL_DATA_DIR=str(data), DJANGO_SETTINGS_MODULE="admin_panel.settings",
               DJANGO_SUPERUSER_PASSWORD=PASSWORD, PYTHONUNBUFFERED="1", **extra)
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
    subprocess.run([sys.executable, "-c", WRITER_SEED, str(home / "state.db"), SESSION_ID], cwd=REPO, check=True)


# The agent's side, in processes of their own: a state.db in its format, then one message per commit.
WRITER_SEED = """
import sys, time
from pathlib import Path
from memory_core.history.schema import create_state_db, insert_message, insert_session
conn = create_state_db(Path(sys.argv[1]))
insert_session(conn, id=sys.argv[2], source="cli", started_at=time.time(), title="Load test conversation")
insert_message(conn, session_id=sys.argv[2], role="user", content="hello", timestamp=time.time())
conn.close()
"""
WRITER_LOOP = """
import os, sqlite3, sys, time
from memory_core.history.schema import insert_message
state_db, session_id, interval, stop = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
commits = 0
while not os.path.exists(stop):
    conn = sqlite3.connect(state_db, timeout=30, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    insert_message(conn, session_id=session_id, role="assistant", content=f"reply {commits}", timestamp=time.time())
    conn.execute("COMMIT")
    conn.close()
    commits += 1
    time.sleep(interval)
print(commits)
"""


def start_writer(home: Path, stop: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", WRITER_LOOP, str(home / "state.db"), SESSION_ID,
                             str(WRITER_INTERVAL_S), str(stop)], cwd=REPO, stdout=subprocess.PIPE, text=True)


# --- the server's resources ----------------------------------------------------------------------------


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def threads_of(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/task"))


def resources(pid: int) -> str:
    return f"RSS {rss_mb(pid):.0f} MB, {open_fds(pid)} fds, {threads_of(pid)} threads"


def settle(pid: int, baseline_fds: int, slack: int = 12) -> float:
    """Wait until the server's fds are back near ``baseline_fds`` (it has wound the closed streams
    down); returns the seconds it took, or the deadline when it never got there."""
    started = time.monotonic()
    while time.monotonic() - started < SETTLE_DEADLINE_S and open_fds(pid) > baseline_fds + slack:
        time.sleep(0.1)
    return time.monotonic() - started


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


def session_cookie(base: str, username: str = "owner") -> str:
    """Sign in through the login form; return the Cookie header value of the session."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    with opener.open(f"{base}/accounts/login/", timeout=30) as response:
        response.read()
    csrf = next(c.value for c in jar if c.name == "csrftoken")
    body = urllib.parse.urlencode({"username": username, "password": PASSWORD, "csrfmiddlewaretoken": csrf}).encode()
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
    """Event streams held open for the whole run, as open browser tabs hold them; each counts the
    events (``data:`` lines) it receives after its first."""

    def __init__(self, port: int, paths: list[str]) -> None:
        self.port, self.paths = port, paths
        self.opened = 0
        self.errors: list[str] = []
        self.connections: list[http.client.HTTPConnection] = []
        self.events: dict[str, list[int]] = {path: [] for path in set(paths)}
        self._lock = threading.Lock()

    def open(self, cookies: list[str]) -> bool:
        """Open them all (each has sent its first event), taking turns between the accounts'
        ``cookies``; False when the server has no streams."""
        for number, path in enumerate(self.paths):
            connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=REQUEST_TIMEOUT_S)
            cookie = cookies[number % len(cookies)]
            connection.request("GET", path, headers={"Cookie": cookie, "Accept": "text/event-stream"})
            response = connection.getresponse()
            if response.status == 404:
                connection.close()
                return False
            if response.status != 200 or not response.readline().startswith(b"retry:"):
                self.errors.append(f"stream {path}: HTTP {response.status}")
                connection.close()
                continue
            response.readline()  # the first fingerprint
            response.readline()
            connection.sock.settimeout(None)  # idle by design: nothing arrives while nothing changes
            with self._lock:
                self.events[path].append(0)
                index = len(self.events[path]) - 1
            threading.Thread(target=self._drain, args=(response, path, index), daemon=True).start()
            self.connections.append(connection)
            self.opened += 1
        return True

    def _drain(self, response: http.client.HTTPResponse, path: str, index: int) -> None:
        try:
            while line := response.readline():
                if line.startswith(b"data:"):
                    with self._lock:
                        self.events[path][index] += 1
        except (OSError, ValueError, AttributeError):  # closed under the reader at the end
            pass

    def still_open(self) -> int:
        return sum(1 for c in self.connections if c.sock is not None and c.sock.fileno() != -1)

    def close(self) -> None:
        for connection in self.connections:
            # The reader thread's response still holds the socket's file: close() alone would leave
            # the socket open (no FIN reaches the server) until that thread lets go of it.
            if connection.sock is not None:
                with contextlib.suppress(OSError):
                    connection.sock.shutdown(socket.SHUT_RDWR)
            connection.close()


@dataclass
class Outcome:
    label: str
    status: int
    throughput: float = 0.0
    p99_ms: float = float("nan")
    streams: int = 0
    cpu_per_request_ms: float = float("nan")
    idle_events: float = float("nan")


def process_cpu_ms(pid: int) -> float:
    """User and system CPU time of a process, all its threads (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def prepare(repo: Path, **extra_env: str) -> tuple[Path, Path, dict[str, str], str]:
    """A temporary home (stores, provider settings, an agent-format state.db) and a panel database
    with a staff account and an API token."""
    root = Path(tempfile.mkdtemp(prefix="memory-panel-load-"))
    home, data = root / "home", root / "data"
    home.mkdir()
    seed_home(home)
    env = _env(home, data, **extra_env)
    _manage(env, "migrate", "--noinput", "-v", "0", repo=repo)
    for username in ("owner", "second"):
        _manage(env, "createsuperuser", "--noinput", "--username", username, "--email", f"{username}@example.invalid",
                repo=repo)
    token = _manage(env, "api_token", "create", "--user", "owner", "--name", "load", repo=repo).strip()
    return root, home, env, token


def start_server(repo: Path, root: Path, env: dict[str, str], threads: int) -> tuple[subprocess.Popen[bytes], int, Any]:
    port = free_port()
    # The server's output goes to a file, never an unread pipe: a full pipe blocks the server on
    # its next log line, which under load looks like a hang of every client at once.
    server_log = (root / "server.log").open("w+b")
    server = subprocess.Popen(
        [sys.executable, str(repo / "manage.py"), "serve", "--port", str(port), "--threads", str(threads)],
        cwd=repo, env=env, stdout=server_log, stderr=subprocess.STDOUT,
    )
    return server, port, server_log


def stop_server(server: subprocess.Popen[bytes], server_log: Any, root: Path, keep: bool) -> bool:
    """Stop the server; False when it did not stop in time or its log shows an error."""
    ok = True
    server.terminate()
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        print("FAILED: the server did not stop within 20 s of SIGTERM")
        ok = False
        server.kill()
        server.wait()
    server_log.seek(0)
    log = server_log.read().decode("utf-8", "replace")
    server_log.close()
    print(f"server log: {len(log.splitlines())} lines")
    if re.search(r"Traceback|ERROR", log):
        print("server log had errors:\n" + log[-3000:])
        ok = False
    if keep:
        print(f"kept {root}")
    else:
        shutil.rmtree(root, ignore_errors=True)
    return ok


def run_one(repo: Path, label: str, args: argparse.Namespace) -> Outcome:
    root, home, env, token = prepare(repo)
    server, port, server_log = start_server(repo, root, env, args.threads)
    outcome = Outcome(label=label, status=1)
    streams: Streams | None = None
    writer: subprocess.Popen[str] | None = None
    stop_file = root / "writer.stop"
    print(f"--- {label}: {repo}")
    try:
        wait_listening(port, server)
        base = f"http://127.0.0.1:{port}"
        cookies = [session_cookie(base) for _ in range(args.clients)]
        # Warm up with every client at once: the first requests load schemas and templates, and
        # every request thread opens the database connection it keeps (part of the baseline).
        warm_until = time.monotonic() + 3
        warmers = [threading.Thread(target=client, args=(port, cookies[i], token, warm_until, i, Tally()))
                   for i in range(args.clients)]
        for warmer in warmers:
            warmer.start()
        for warmer in warmers:
            warmer.join()
        baseline_fds, baseline_rss = open_fds(server.pid), rss_mb(server.pid)
        print(f"server before the streams: {resources(server.pid)}")
        if args.streams:
            # Tabs of two accounts (one account's 30 would pass its limit of 20): half Memory
            # streams, which the writer never concerns, half Sessions streams.
            paths = [STREAM_PATH if i % 2 == 0 else SESSIONS_STREAM_PATH for i in range(args.streams)]
            streams = Streams(port, paths)
            if not streams.open([session_cookie(base), session_cookie(base, "second")]):
                print(f"({label} has no event streams: measured without them)")
                streams = None
        if streams is not None:
            print(f"server with {streams.opened} streams open: {resources(server.pid)}")
        writer = start_writer(home, stop_file)
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
        stop_file.touch()
        commits = int((writer.communicate(timeout=60)[0] or "0").strip() or 0)
        status = report(tallies, elapsed, args.clients, label)
        everything = [v for t in tallies for r in ROUTES for v in t.latencies[r]]
        # What the server itself spent per answer: on a shared machine it moves less than req/s.
        outcome.cpu_per_request_ms = server_cpu_ms / max(1, len(everything))
        print(f"server CPU per request {outcome.cpu_per_request_ms:.2f} ms "
              f"(the server used {server_cpu_ms / 10 / elapsed:.0f}% of one core)")
        outcome.throughput = len(everything) / elapsed
        outcome.p99_ms = percentile(everything, 0.99) * 1000
        print(f"agent-format writer: {commits} commits to state.db, one every {WRITER_INTERVAL_S} s")
        if streams is not None:
            outcome.streams = streams.still_open()
            print(f"event streams: {streams.opened} opened, {outcome.streams} still open at the end, "
                  f"{len(streams.errors)} refused")
            idle = streams.events.get(STREAM_PATH, [])
            busy = streams.events.get(SESSIONS_STREAM_PATH, [])
            if idle:
                outcome.idle_events = statistics.fmean(idle)
                print(f"events per idle Memory stream after its first: mean {outcome.idle_events:.2f}, "
                      f"max {max(idle)} ({len(idle)} streams; the writer never touches the stores)")
                if max(idle):
                    print("FAILED: an idle stream received events")
                    status = 1
            if busy:
                print(f"events per Sessions stream after its first: mean {statistics.fmean(busy):.1f}, "
                      f"max {max(busy)} for {commits} commits ({len(busy)} streams)")
            if streams.errors or outcome.streams != args.streams:
                status = 1
            streams.close()
            waited = settle(server.pid, baseline_fds)
            print(f"server after the streams closed (settled in {waited:.1f} s): {resources(server.pid)}; "
                  f"before: RSS {baseline_rss:.0f} MB, {baseline_fds} fds")
            streams = None
        if elapsed > args.duration + 2 * REQUEST_TIMEOUT_S or stalls:
            print(f"FAILED: the run stalled ({'; '.join(stalls) or f'took {elapsed:.0f} s'})")
            status = 1
        outcome.status = status
    finally:
        stop_file.touch()
        if writer is not None and writer.poll() is None:
            writer.kill()
        if streams is not None:
            streams.close()
        if not stop_server(server, server_log, root, args.keep):
            outcome.status = 1
    return outcome


class RawStream:
    """One stream over a plain socket, no reader thread: the status, then (if 200) its first event."""

    def __init__(self, port: int, cookie: str) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        self.sock.sendall(f"GET {STREAM_PATH} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nCookie: {cookie}\r\n"
                          "Accept: text/event-stream\r\n\r\n".encode("latin-1"))
        received = b""
        while b"\r\n\r\n" not in received or (received.startswith(b"HTTP/1.1 200") and b"\n\n" not in
                                                received.split(b"\r\n\r\n", 1)[1]):
            chunk = self.sock.recv(65536)
            if not chunk:
                break
            received += chunk
        self.status = int(received.split(b" ", 2)[1]) if received.startswith(b"HTTP/") else 0

    def close(self) -> None:
        self.sock.close()


def timed_get(base: str, cookie: str, path: str) -> tuple[int, float]:
    started = time.perf_counter()
    connection = http.client.HTTPConnection(base.removeprefix("http://"), timeout=300)
    try:
        connection.request("GET", path, headers={"Cookie": cookie})
        response = connection.getresponse()
        response.read()
        return response.status, time.perf_counter() - started
    finally:
        connection.close()


def thousand_streams(count: int, args: argparse.Namespace) -> int:
    """Open ``count`` streams from one account, hold them, fetch a page, close them: the server's fds
    and RSS against its baseline. First with limits raised to let them all in (what they cost and
    whether they leak), then with the default limits (how many are refused)."""
    status = 0
    for label, limits in (("limits raised to admit all", {"PANEL_STREAMS_PER_ACCOUNT": str(count),
                                                          "PANEL_STREAMS_TOTAL": str(count)}),
                          ("default limits", {})):
        root, _home, env, _token = prepare(REPO, **limits)
        server, port, server_log = start_server(REPO, root, env, args.threads)
        print(f"--- {count} streams from one account, {label}")
        held: list[RawStream] = []
        try:
            wait_listening(port, server)
            base = f"http://127.0.0.1:{port}"
            cookie = session_cookie(base)
            RawStream(port, cookie).close()  # the change feed and the streams' thread are up
            settle(server.pid, open_fds(server.pid))
            page_status, page_s = timed_get(base, cookie, "/memory/")
            baseline_fds, baseline_rss = open_fds(server.pid), rss_mb(server.pid)
            print(f"before: {resources(server.pid)}; GET /memory/ {page_s * 1000:.0f} ms")
            started = time.monotonic()
            for _ in range(count):
                held.append(RawStream(port, cookie))
            opening_s = time.monotonic() - started
            statuses = [stream.status for stream in held]
            accepted, refused = statuses.count(200), statuses.count(429)
            page_status, page_s = timed_get(base, cookie, "/memory/")
            print(f"held: {accepted} accepted, {refused} refused (429), {count - accepted - refused} other, "
                  f"opened in {opening_s:.1f} s; {resources(server.pid)}; GET /memory/ {page_s * 1000:.0f} ms "
                  f"(HTTP {page_status})")
            for stream in held:
                stream.close()
            held = []
            waited = settle(server.pid, baseline_fds)
            after_fds, after_rss = open_fds(server.pid), rss_mb(server.pid)
            print(f"after closing (settled in {waited:.1f} s): {resources(server.pid)}; "
                  f"fds {after_fds - baseline_fds:+d}, RSS {after_rss - baseline_rss:+.0f} MB against the baseline")
            expected_accepted = count if limits else 20
            if page_status != 200 or accepted != min(count, expected_accepted) or after_fds > baseline_fds + 12:
                print("FAILED")
                status = 1
        finally:
            for stream in held:
                stream.close()
            if not stop_server(server, server_log, root, args.keep):
                status = 1
    return status


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--duration", type=float, default=60.0)
    parser.add_argument("--threads", type=int, default=8, help="serve --threads")
    parser.add_argument("--streams", type=int, default=30, help="event streams held open meanwhile")
    parser.add_argument("--thousand-streams", type=int, default=1000, metavar="N",
                        help="then open, hold and close N streams from one account (0: skip)")
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
              f"server CPU {cpu:5.2f} ms/request   streams open {min(o.streams for o in outcomes)}   "
              f"{'ok' if all(o.status == 0 for o in outcomes) else 'FAILED'}")
    if "baseline" in medians and medians["baseline"][0]:
        (ours, our_cpu), (theirs, their_cpu) = medians["this checkout"], medians["baseline"]
        print(f"throughput ratio (this / baseline): {ours / theirs:.2f}x; "
              f"server CPU per request ratio: {our_cpu / their_cpu:.2f}")
    status = max(o.status for outcomes in sides.values() for o in outcomes)
    if args.thousand_streams:
        status = max(status, thousand_streams(args.thousand_streams, args))
    return status


if __name__ == "__main__":
    sys.exit(main())

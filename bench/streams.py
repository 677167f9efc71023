"""Event streams: what a real ``manage.py serve`` holds before, while and after many streams are open.

    .venv/bin/python bench/streams.py [--streams 1000] [--rounds 3] [--threads 8] [--trace [FRAMES]]
                                      [--load-duration 30] [--keep]

Part one opens ``--streams`` ``/memory/events/`` streams (spread over two accounts, on a server whose
stream limits are raised to let them all in), holds them, closes them and waits until the server has
wound them down (its fds back near the baseline); that is one round, repeated ``--rounds`` times. It
prints the server's RSS, fds and threads at the baseline, at each round's peak and after each round's
close. A leak grows every round; a high-water mark (memory the process keeps for reuse) is reached in
the first round and stays flat after it.

``--trace`` runs the same server under ``tracemalloc`` (``FRAMES`` frames per allocation, default 8)
and takes a snapshot at the baseline and after each round through a route that exists only in this
script's server (``/__bench__/snapshot``, added by wrapping the ASGI application before ``serve``
starts it): it prints the Python memory that tracemalloc counts and the largest differences from the
baseline, grouped by line and then by traceback. RSS under ``--trace`` includes tracemalloc's own
bookkeeping; take RSS figures from a run without it.

Part two is the load run of ``bench/load.py`` (20 clients doing page, API and poll GETs, 30 streams
held open, an agent-format writer committing to ``state.db``) for ``--load-duration`` seconds: its
error count (0 expected) and the server's RSS and fds before the streams and after they closed.
``--load-duration 0`` skips it. Exit status 1 when the load run has an error, when fds do not come
back to the baseline, or when RSS after the last round is more than ``--rss-margin`` MB above the
first round's (a leak).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import load  # the shared helpers of bench/load.py, next to this file

REPO = load.REPO
ACCOUNTS = ("owner", "second")  # made by load.prepare; --accounts adds more
SNAPSHOT_PATH = "/__bench__/snapshot"
CENSUS_PATH = "/__bench__/census"

# Run in the server process under --trace: tracemalloc from the start, and a route that dumps a
# snapshot to the file it is given (after a garbage collection, so cycles do not count as held).
TRACED_SERVE = """
import os, runpy, sys, tracemalloc
if int(os.environ["BENCH_TRACE_FRAMES"]):
    tracemalloc.start(int(os.environ["BENCH_TRACE_FRAMES"]))
import django
django.setup()
import admin_panel.asgi as panel_asgi
built = panel_asgi.build_application

def build_application(**kwargs):
    app = built(**kwargs)

    async def traced(scope, receive, send):
        if scope["type"] == "http" and scope["path"] == CENSUS_PATH:
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": census().encode()})
            return
        if scope["type"] == "http" and scope["path"] == SNAPSHOT_PATH:
            import gc
            gc.collect()
            target = scope["query_string"].decode()
            tracemalloc.take_snapshot().dump(target)
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"ok"})
            return
        await app(scope, receive, send)

    return traced

def census():
    # Live objects of the kinds a stream makes, and what holds the first of each (gc referrers).
    import gc, types
    gc.collect()
    kinds = ("RequestResponseCycle", "HttpToolsProtocol", "ASGIRequest", "_LimitedStream", "Task", "Subscription",
             "_Slot", "Future")
    found = {kind: [] for kind in kinds}
    for obj in gc.get_objects():
        name = type(obj).__name__
        if name in found:
            found[name].append(obj)
    lines = [f"{kind}: {len(objs)}" for kind, objs in found.items()]
    sys._debugmallocstats()  # pymalloc's arenas, to the server's log (read by the bench)
    for kind in ("ASGIRequest", "RequestResponseCycle"):
        if not found[kind]:
            continue
        obj, seen = found[kind][0], set()
        for depth in range(8):
            holders = [r for r in gc.get_referrers(obj) if not isinstance(r, (types.FrameType,)) and r is not found
                       and not (isinstance(r, list) and r in found.values()) and id(r) not in seen]
            holders = [r for r in holders if r is not lines]
            if not holders:
                break
            obj = holders[0]
            seen.add(id(obj))
            lines.append(f"  {kind} held {depth}: {type(obj).__name__} {repr(obj)[:200]}")
    return "\\n".join(lines) + "\\n"

panel_asgi.build_application = build_application
sys.argv = [sys.argv[1], "serve", *sys.argv[2:]]
runpy.run_path(sys.argv[0], run_name="__main__")
""".replace("CENSUS_PATH", repr(CENSUS_PATH)).replace("SNAPSHOT_PATH", repr(SNAPSHOT_PATH))


def start_server(root: Path, env: dict[str, str], threads: int, trace: int) -> tuple[subprocess.Popen[bytes], int, Any]:
    if trace is None:
        return load.start_server(REPO, root, env, threads)
    port = load.free_port()
    server_log = (root / "server.log").open("w+b")
    server = subprocess.Popen(
        [sys.executable, "-c", TRACED_SERVE, str(REPO / "manage.py"), "--port", str(port), "--threads", str(threads)],
        cwd=REPO, env={**env, "BENCH_TRACE_FRAMES": str(trace)}, stdout=server_log, stderr=subprocess.STDOUT,
    )
    return server, port, server_log


def snapshot(port: int, target: Path) -> Any:
    import tracemalloc

    with urllib.request.urlopen(f"http://127.0.0.1:{port}{SNAPSHOT_PATH}?{target}", timeout=300) as answer:
        answer.read()
    return tracemalloc.Snapshot.load(str(target)).filter_traces([
        # tracemalloc's own frames and the snapshot route's are not the server's memory.
        __import__("tracemalloc").Filter(False, "<frozen importlib._bootstrap>"),
        __import__("tracemalloc").Filter(False, __import__("tracemalloc").__file__),
    ])


def traced_mb(snap: Any) -> float:
    return sum(stat.size for stat in snap.statistics("filename")) / 2**20


def print_growth(before: Any, after: Any, label: str, top: int = 12) -> None:
    print(f"  tracemalloc {label}: {traced_mb(after):.2f} MB counted ({traced_mb(after) - traced_mb(before):+.2f} MB)")
    for stat in after.compare_to(before, "lineno")[:top]:
        if abs(stat.size_diff) < 16 * 1024:
            break
        frame = stat.traceback[0]
        print(f"    {stat.size_diff / 1024:+9.0f} KiB {stat.count_diff:+7d} blocks  {frame.filename}:{frame.lineno}")
    for stat in after.compare_to(before, "traceback")[:3]:
        if stat.size_diff < 64 * 1024:
            break
        print(f"    {stat.size_diff / 1024:+9.0f} KiB {stat.count_diff:+7d} blocks, allocated at:")
        for line in stat.traceback.format(most_recent_first=True)[:16]:
            print(f"      {line}")


def memory_rounds(args: argparse.Namespace) -> int:
    count = args.streams
    limits = {} if args.default_limits else {"PANEL_STREAMS_PER_ACCOUNT": str(count), "PANEL_STREAMS_TOTAL": str(count)}
    root, _home, env, _token = load.prepare(REPO, **limits)
    accounts = [*ACCOUNTS, *(f"account{number}" for number in range(len(ACCOUNTS), args.accounts))]
    for name in accounts[len(ACCOUNTS):]:
        load._manage(env, "createsuperuser", "--noinput", "--username", name, "--email", f"{name}@example.invalid")
    env.update(args.env)
    hooked = bool(args.trace or args.census)
    server, port, server_log = start_server(root, env, args.threads, args.trace if hooked else None)
    status = 0
    held: list[load.RawStream] = []
    print(f"--- {count} streams over {len(accounts)} accounts, {args.rounds} rounds, "
          f"{'default stream limits' if args.default_limits else 'limits raised to admit all'} "
          f"(serve --threads {args.threads}{', tracemalloc ' + str(args.trace) + ' frames' if args.trace else ''})")
    try:
        load.wait_listening(port, server, timeout=600)
        base = f"http://127.0.0.1:{port}"
        cookies = [load.session_cookie(base, name) for name in accounts]
        pid = server.pid
        # What every stream shares is up before the baseline: the change feed and its watch, the
        # streams' thread and its database connection, a page's templates.
        for cookie in cookies:
            stream(port, cookie).close()
        load.settle(pid, load.open_fds(pid), slack=0)
        load.timed_get(base, cookies[0], "/memory/")
        time.sleep(1)
        baseline_fds, baseline_rss = load.open_fds(pid), load.rss_mb(pid)
        print(f"baseline: {load.resources(pid)}")
        if args.census:
            census(base)
            print(pymalloc_arenas(root / "server.log"))
        snapshots = [snapshot(port, root / "baseline.snap")] if args.trace else []
        if snapshots:
            print(f"  tracemalloc baseline: {traced_mb(snapshots[0]):.2f} MB counted")
        after_rss: list[float] = []
        for number in range(1, args.rounds + 1):
            started = time.monotonic()
            held = [stream(port, cookies[i % len(cookies)]) for i in range(count)]
            opened_s = time.monotonic() - started
            accepted = sum(1 for s in held if s.status == 200)
            refused = sum(1 for s in held if s.status == 429)
            page_status, page_s = load.timed_get(base, cookies[0], "/memory/")
            print(f"round {number} peak: {accepted}/{count} open, {refused} refused (in {opened_s:.1f} s), "
                  f"{load.resources(pid)}; "
                  f"GET /memory/ {page_s * 1000:.0f} ms (HTTP {page_status})")
            expected = min(count, 200, 20 * len(accounts)) if args.default_limits else count
            if accepted != expected or accepted + refused != count or page_status != 200:
                status = 1
            for s in held:
                s.close()
            held = []
            waited = load.settle(pid, baseline_fds, slack=2)
            time.sleep(1)  # the last closes' tasks finish after their sockets
            if hooked:
                # The sockets are closed before Django's handler has wound each stream down (its
                # request_finished receivers run on the streams' one thread): wait for the last.
                waited += wound_down(base)
            fds, rss = load.open_fds(pid), load.rss_mb(pid)
            after_rss.append(rss)
            print(f"round {number} after close (settled in {waited:.1f} s): {load.resources(pid)}; "
                  f"RSS {rss - baseline_rss:+.1f} MB, fds {fds - baseline_fds:+d} against the baseline")
            if args.census:
                print(census(base))
                print(pymalloc_arenas(root / "server.log"))
            if fds > baseline_fds + 2:
                status = 1
            if snapshots:
                snapshots.append(snapshot(port, root / f"round{number}.snap"))
                print_growth(snapshots[0], snapshots[-1], f"after round {number} against the baseline")
                if number > 1:
                    print_growth(snapshots[-2], snapshots[-1], f"round {number} against round {number - 1}", top=6)
        if len(after_rss) > 1:
            growth = after_rss[-1] - after_rss[0]
            print(f"RSS after the last round against the first: {growth:+.1f} MB "
                  f"(baseline {baseline_rss:.1f} MB, after round 1 {after_rss[0]:.1f} MB, "
                  f"after round {len(after_rss)} {after_rss[-1]:.1f} MB)")
            if growth > args.rss_margin:
                print(f"FAILED: RSS grew {growth:.1f} MB between rounds (margin {args.rss_margin} MB): a leak")
                status = 1
    finally:
        for s in held:
            s.close()
        if not load.stop_server(server, server_log, root, args.keep):
            status = 1
    return status


def census(base: str) -> str:
    with urllib.request.urlopen(f"{base}{CENSUS_PATH}", timeout=300) as answer:
        return answer.read().decode()


def pymalloc_arenas(log: Path) -> str:
    """The last figures ``sys._debugmallocstats`` wrote: arenas held and the bytes live in them."""
    wanted = ("# arenas allocated current", "# arenas highwater mark", "bytes in allocated blocks",
              "bytes in available blocks", "bytes in unused pools", "Total")
    figures: dict[str, str] = {}
    for line in log.read_text(errors="replace").splitlines():
        for name in wanted:
            if line.startswith(name):
                figures[name] = " ".join(line.split("=")[-1].split())
    return "  pymalloc: " + "; ".join(f"{name.lstrip('# ')} {value}" for name, value in figures.items())


def wound_down(base: str) -> float:
    """Wait until no stream's request object is alive in the server; the seconds it took."""
    started = time.monotonic()
    while time.monotonic() - started < load.SETTLE_DEADLINE_S and "ASGIRequest: 0\n" not in census(base):
        time.sleep(0.5)
    return time.monotonic() - started


def stream(port: int, cookie: str) -> load.RawStream:
    return load.RawStream(port, cookie)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=8, help="serve --threads")
    parser.add_argument("--trace", type=int, nargs="?", const=8, default=0, metavar="FRAMES")
    parser.add_argument("--accounts", type=int, default=2, help="spread the streams over this many accounts")
    parser.add_argument("--default-limits", action="store_true",
                        help="keep the default stream limits (20 per account, 200 in all): the rest are refused")
    parser.add_argument("--census", action="store_true",
                        help="after each round, count live stream objects in the server and show what holds them")
    parser.add_argument("--rss-margin", type=float, default=4.0, metavar="MB",
                        help="how much RSS after the last round may exceed RSS after the first")
    parser.add_argument("--env", type=lambda text: dict([text.split("=", 1)]), action="append", default=[],
                        metavar="NAME=VALUE", help="extra environment for the server (repeatable)")
    parser.add_argument("--load-duration", type=float, default=30.0, help="the load run's length (0: skip)")
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--load-streams", type=int, default=30)
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    args.env = {k: v for pair in args.env for k, v in pair.items()}
    status = memory_rounds(args) if args.streams else 0
    if args.load_duration:
        load_args = argparse.Namespace(clients=args.clients, duration=args.load_duration, threads=args.threads,
                                       streams=args.load_streams, keep=args.keep)
        outcome = load.run_one(REPO, "load run", load_args)
        print(json.dumps({"load run": "ok" if outcome.status == 0 else "FAILED"}))
        status = max(status, outcome.status)
    return status


if __name__ == "__main__":
    sys.exit(main())

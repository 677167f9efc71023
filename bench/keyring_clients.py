"""Keyring clients: does the panel's way of calling the Secret Service keep gnome-keyring alive?

    .venv/bin/python bench/keyring_clients.py [--processes 3] [--threads 4] [--rounds 1000]
                                              [--mode pooled|per-call|both]

Starts one test Secret Service (gnome-keyring on a private bus: tests/secret_service.py), then
``--processes`` processes of ``--threads`` threads, each doing ``--rounds`` rounds of set, get and
delete through the ``keyring`` package as the panel does (``session_bus.install()``). ``pooled``
is the panel's way (connections lent from a pool); ``per-call`` sets ``POOL_SIZE = 0``, so every
call opens and closes its own connection, as the ``keyring`` package does on its own. Prints, per
mode, the rounds done, the new D-Bus connections opened, the time, and whether the daemon aborted
(the race in docs/security.md, "Few connections to the keyring"). Exit status 1 when the pooled
mode's daemon aborted.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def worker(mode: str, threads: int, rounds: int) -> None:
    """One client process: prints one JSON line with its rounds done and connections opened."""
    sys.path.insert(0, str(REPO))
    from jeepney.io import blocking

    from provider_schemas.secret_stores import session_bus

    session_bus.install()
    if mode == "per-call":
        session_bus.POOL_SIZE = 0
    opened = [0]
    real_open = blocking.open_dbus_connection

    def counting_open(*args, **kwargs):
        opened[0] += 1
        return real_open(*args, **kwargs)

    blocking.open_dbus_connection = counting_open
    from keyring.backends import SecretService

    backend = SecretService.Keyring()
    done = [0]
    failures: list[str] = []
    lock = threading.Lock()

    def run(index: int) -> None:
        for number in range(rounds):
            name = f"bench-{os.getpid()}-{index}-{number}"
            try:
                backend.set_password("memory-panel:bench", name, "value")
                backend.get_password("memory-panel:bench", name)
                backend.delete_password("memory-panel:bench", name)
            except Exception as exc:  # the daemon went away: stop this thread
                with lock:
                    failures.append(type(exc).__name__)
                return
            with lock:
                done[0] += 1

    pool = [threading.Thread(target=run, args=(index,)) for index in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    print(json.dumps({"rounds": done[0], "opened": opened[0], "failures": failures[:3]}), flush=True)


def measure(mode: str, *, processes: int, threads: int, rounds: int) -> bool:
    sys.path.insert(0, str(REPO))
    from tests.secret_service import SecretServiceSession

    service = SecretServiceSession()
    service.start()
    try:
        env = {**os.environ, **service.environment()}
        started = time.perf_counter()
        children = [
            subprocess.Popen(
                [sys.executable, __file__, "--worker", mode, "--threads", str(threads), "--rounds", str(rounds)],
                env=env, stdout=subprocess.PIPE, text=True,
            )
            for _ in range(processes)
        ]
        results = [json.loads(child.communicate()[0].strip().splitlines()[-1]) for child in children]
        seconds = time.perf_counter() - started
        aborted = service.exited()
    finally:
        service.stop()
    total = sum(r["rounds"] for r in results)
    opened = sum(r["opened"] for r in results)
    planned = processes * threads * rounds
    failures = sorted({name for r in results for name in r["failures"]})
    status = "ABORTED" if aborted else "alive"
    print(f"{mode:9} rounds {total:6}/{planned}  connections opened {opened:6}  {seconds:6.1f} s  daemon {status}"
          + (f"  threads stopped by: {', '.join(failures)}" if failures else ""))
    return not aborted


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--mode", choices=("pooled", "per-call", "both"), default="both")
    parser.add_argument("--worker", choices=("pooled", "per-call"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.threads, args.rounds)
        return 0
    modes = ("per-call", "pooled") if args.mode == "both" else (args.mode,)
    alive = {mode: measure(mode, processes=args.processes, threads=args.threads, rounds=args.rounds) for mode in modes}
    return 0 if alive.get("pooled", True) else 1


if __name__ == "__main__":
    sys.exit(main())

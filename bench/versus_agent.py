"""memory-panel against hermes-agent 0.19.0's own server, in one run (issue 28's figures).

    .venv/bin/python bench/versus_agent.py [--hermes-python /tmp/hermes-0190/bin/python]

Starts both real servers on loopback (``manage.py serve`` and 0.19.0's dashboard app on uvicorn,
in an interpreter where hermes-agent 0.19.0 is installed; never a dependency of this project),
each with its own home holding the same values, and sends them the same requests alternately:
20 warm-up + 200 GETs of hindsight's declared config, then 5 + 100 valid PUTs carrying a new API
key. Prints medians, p95, each server process's CPU time per request (from /proc, less sensitive
to a loaded machine than wall time) and the ratios ours / 0.19.0. Then the memory store engines:
2,000 mixed operations, alternating (bench/memory_store.py --mixed, run in 0.19.0's interpreter
so that both engines are importable).

Goals: GET <= 0.9, PUT <= 1.2 (medians), store <= 0.7.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from panel import _http_side_by_side  # noqa: E402 - the shared two-server harness


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hermes-python", default="/tmp/hermes-0190/bin/python",
                        help="an interpreter with hermes-agent 0.19.0 installed")
    parser.add_argument("--plugins", type=int, default=40, help="generated user plugins in each home")
    parser.add_argument("--store-operations", type=int, default=2000)
    args = parser.parse_args()
    if not Path(args.hermes_python).exists():
        print(f"no hermes-agent interpreter at {args.hermes_python}; nothing to compare with.")
        return 2
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    results = _http_side_by_side(args.hermes_python, plugins=args.plugins, requests=200,
                                 warm_up={"GET": 20, "PUT": 5}, counts={"GET": 200, "PUT": 100}, with_secret=True)
    print(f"memory store engines, {args.store_operations} mixed operations:")
    sys.stdout.flush()
    store = subprocess.run([args.hermes_python, str(BENCH / "memory_store.py"), "--mixed", str(args.store_operations)],
                           env={**os.environ, "PYTHONPATH": ""}, capture_output=True, text=True, timeout=3600)
    print(store.stdout, end="")
    if store.returncode != 0:
        print(store.stderr[-2000:])
    print("summary (ours / 0.19.0, medians; server CPU per request in brackets):")
    for method, goal in (("GET", 0.9), ("PUT", 1.2)):
        ours, theirs = results[("ours", method)], results[("0.19.0", method)]
        print(f"  {method}: {ours['median']:.2f} ms vs {theirs['median']:.2f} ms = "
              f"{ours['median'] / theirs['median']:.2f}x (p95 {ours['p95']:.2f} vs {theirs['p95']:.2f} ms; "
              f"CPU {ours['cpu'] / theirs['cpu']:.2f}x)  goal <= {goal}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

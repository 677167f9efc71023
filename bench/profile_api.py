"""cProfile of the provider config API in-process (issue 28's profiles, docs/performance.md).

    .venv/bin/python bench/profile_api.py [--requests 300] [--method GET|PUT|both] [--top 40] [--trivial]

Builds the same home as bench/versus_agent.py (8 bundled providers + 40 generated plugins), signs
in with an API token as the HTTP benchmark does, and runs warm requests through Django's WSGI
handler (the same handler `serve` hands each request to), under cProfile. Prints the top entries
by cumulative time with their share of the whole; ``--trivial`` also times the token-checked 404
route, the floor every API request pays before its own work.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(REPO))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--method", default="both", choices=("GET", "PUT", "both"))
    parser.add_argument("--top", type=int, default=45)
    parser.add_argument("--sort", default="cumulative")
    parser.add_argument("--trivial", action="store_true")
    args = parser.parse_args()

    from panel import _prepare

    root = Path(tempfile.mkdtemp(prefix="memory-panel-profile-"))
    (root / "user").mkdir()
    home = _prepare(root, 40)
    os.environ.update({"HERMES_HOME": str(home), "PANEL_DATA_DIR": str(root / "panel"), "HOME": str(root / "user"),
                       "DJANGO_SETTINGS_MODULE": "admin_panel.settings"})
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.handlers.wsgi import WSGIHandler
    from django.core.management import call_command

    call_command("migrate", "--noinput", verbosity=0)
    get_user_model().objects.create_superuser("bench", "bench@example.invalid", "bench-password-1")
    out = io.StringIO()
    call_command("api_token", "create", "--user", "bench", "--name", "bench", stdout=out)
    token = out.getvalue().strip()
    handler = WSGIHandler()
    path = "/api/memory/providers/hindsight/config"

    def request(method: str, i: int, target: str = path, query: str = "surface=declared") -> bytes:
        body = b""
        if method == "PUT":
            body = json.dumps({"values": {"timeout": 100 + (i % 50), "bank_id": f"bank-{i % 7}",
                                          "api_key": f"bench-key-{i + 100}"}}).encode()
        environ = {"REQUEST_METHOD": method, "PATH_INFO": target, "QUERY_STRING": query, "SCRIPT_NAME": "",
                   "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "8000", "SERVER_PROTOCOL": "HTTP/1.1",
                   "CONTENT_LENGTH": str(len(body)), "CONTENT_TYPE": "application/json",
                   "HTTP_HOST": "127.0.0.1:8000", "HTTP_X_HERMES_SESSION_TOKEN": token,
                   "wsgi.input": io.BytesIO(body), "wsgi.errors": sys.stderr, "wsgi.url_scheme": "http",
                   "wsgi.multithread": True, "wsgi.multiprocess": False, "wsgi.run_once": False,
                   "wsgi.version": (1, 0)}
        status: list[str] = []
        result = handler(environ, lambda s, h, e=None: status.append(s))
        content = b"".join(result)
        result.close()
        if not status[0].startswith(("200", "404")):
            raise SystemExit(f"{method} {target}: {status[0]} {content[:300]!r}")
        return content

    methods = ("GET", "PUT") if args.method == "both" else (args.method,)
    for method in methods:
        for i in range(20):
            request(method, -i - 1)
        plain = []
        for i in range(args.requests):
            started = time.perf_counter()
            request(method, i)
            plain.append((time.perf_counter() - started) * 1000)
        plain.sort()
        print(f"== {method} x{args.requests} unprofiled: median {plain[len(plain) // 2]:.3f} ms")
        timings = []
        profile = cProfile.Profile()
        for i in range(args.requests):
            started = time.perf_counter()
            profile.enable()
            request(method, i)
            profile.disable()
            timings.append((time.perf_counter() - started) * 1000)
        timings.sort()
        total = sum(timings)
        print(f"== {method} x{args.requests}: median {timings[len(timings) // 2]:.2f} ms (profiled), "
              f"total {total:.0f} ms")
        if os.environ.get("PROFILE_DUMP"):
            profile.dump_stats(os.environ["PROFILE_DUMP"])
        stream = io.StringIO()
        stats = pstats.Stats(profile, stream=stream)
        stats.sort_stats(args.sort).print_stats(args.top)
        # shares of the whole profiled time
        whole = max(value[3] for value in stats.stats.values())
        text = stream.getvalue()
        print(f"(whole profiled time {whole * 1000:.0f} ms; cumtime/whole = share)")
        print(text[text.find("   ncalls"):])
    if args.trivial:
        for i in range(20):
            request("GET", i, "/api/memory/providers/hindsight/config/extra", "")
        timings = []
        for i in range(args.requests):
            started = time.perf_counter()
            request("GET", i, "/api/memory/providers/hindsight/config/extra", "")
            timings.append((time.perf_counter() - started) * 1000)
        timings.sort()
        print(f"== trivial token-checked 404: median {timings[len(timings) // 2]:.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())

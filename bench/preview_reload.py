"""Hot-reload latency of the schema preview: from saving a config_schema.py to the new form in
the browser.

Starts the real ``manage.py schema preview DIR`` server (waitress) on a temporary HERMES_HOME,
signs in through its first-run link in headless Chromium, opens the printed preview URL, then
saves the schema N times with a new field label and times how long each label takes to appear
on the page. Also times the poll endpoint itself (unchanged file: 204; changed file: the fresh
fragment) over HTTP with the same session:

    /work/venv/bin/python bench/preview_reload.py [--edits 20] [--polls 200]

Goal (issue 7): the preview updates within one second of the file being saved.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"

SCHEMA = '''\
from plugins.memory.config_schema import KIND_NUMBER, KIND_SELECT, ProviderConfigSchema, ProviderField
from plugins.memory.config_schema import ProviderFieldOption

CONFIG_SCHEMA = ProviderConfigSchema(
    name="bench",
    label="Bench",
    fields=(
        ProviderField("mode", "Mode", kind=KIND_SELECT, default="a", inline=True,
                      options=(ProviderFieldOption("a", "A"), ProviderFieldOption("b", "B"))),
        ProviderField("limit", "{label}", kind=KIND_NUMBER, default="10", inline=True),
    ),
)
'''


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _write(path: Path, text: str) -> None:
    old = path.stat().st_mtime_ns if path.exists() else 0
    path.write_text(text, encoding="utf-8")
    now = max(time.time_ns(), old + 1_000_000)
    os.utime(path, ns=(now, now))


def _figures(name: str, samples: list[float]) -> None:
    ordered = sorted(samples)
    p95 = ordered[max(0, int(len(ordered) * 0.95) - 1)]
    print(
        f"{name:<34} n={len(samples):<4} median {statistics.median(samples) * 1000:7.1f} ms   "
        f"p95 {p95 * 1000:7.1f} ms   max {ordered[-1] * 1000:7.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=20)
    parser.add_argument("--polls", type=int, default=200)
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="bench-preview-") as tmp:
        root = Path(tmp)
        schema = root / "src" / "bench" / "config_schema.py"
        schema.parent.mkdir(parents=True)
        _write(schema, SCHEMA.format(label="Label 0"))
        port = _free_port()
        env = {**os.environ, "HERMES_HOME": str(root / "hermes"), "PANEL_DATA_DIR": str(root / "panel"),
               "DJANGO_SETTINGS_MODULE": "admin_panel.settings", "PYTHONUNBUFFERED": "1",
               "PANEL_SCHEMA_PREVIEW_DIRS": ""}
        server = subprocess.Popen(
            [sys.executable, str(REPO / "manage.py"), "schema", "preview", str(schema.parent), "--port", str(port)],
            cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        lines: list[str] = []
        threading.Thread(target=lambda: lines.extend(iter(server.stdout.readline, "")), daemon=True).start()
        try:
            deadline = time.monotonic() + 60
            while not any("serving on" in line for line in lines):
                if server.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("server did not start:\n" + "".join(lines))
                time.sleep(0.05)
            output = "".join(lines)
            preview_url = re.search(r"http://127\.0\.0\.1:\d+/schema-preview/\S+", output).group(0)
            first_run = re.search(r"http://127\.0\.0\.1:\d+/accounts/first-run/\S+/", output).group(0)
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
                page = browser.new_page()
                page.goto(first_run)
                page.get_by_label("Username").fill("bench")
                page.get_by_label("Password", exact=True).fill("a long bench passphrase")
                page.get_by_label("Password confirmation").fill("a long bench passphrase")
                page.get_by_role("button", name="Create account and sign in").click()
                page.wait_for_url(f"http://127.0.0.1:{port}/")
                page.goto(preview_url)
                page.get_by_label("Label 0").wait_for()

                reload_times: list[float] = []
                for i in range(1, args.edits + 1):
                    time.sleep(0.3)  # edits arrive at any point of the poll cycle
                    _write(schema, SCHEMA.format(label=f"Label {i}"))
                    started = time.monotonic()
                    page.get_by_label(f"Label {i}", exact=True).wait_for(timeout=10_000)
                    reload_times.append(time.monotonic() - started)

                poll = preview_url.replace("/schema-preview/?", "/schema-preview/poll/?")
                fingerprint = page.locator("[data-fingerprint]").get_attribute("data-fingerprint")
                unchanged: list[float] = []
                for _ in range(args.polls):
                    started = time.monotonic()
                    response = page.request.get(f"{poll}&fp={fingerprint}")
                    unchanged.append(time.monotonic() - started)
                    assert response.status == 204, response.status
                changed: list[float] = []
                for _ in range(max(args.polls // 10, 5)):
                    started = time.monotonic()
                    response = page.request.get(f"{poll}&fp=stale")
                    changed.append(time.monotonic() - started)
                    assert response.status == 200, response.status
                browser.close()
        finally:
            server.terminate()
            server.wait(timeout=10)

    print(f"schema preview hot reload ({os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f})")
    _figures("save -> new label on the page", reload_times)
    _figures("poll, file unchanged (204)", unchanged)
    _figures("poll, file changed (fragment)", changed)
    print(f"within one second: {sum(t < 1.0 for t in reload_times)}/{len(reload_times)} saves")


if __name__ == "__main__":
    main()

"""The panel reads while a real writer process appends in WAL mode: the writer never sees a lock
error, its new message becomes searchable, the panel never answers 500 (docs/agent_formats.md §Reading history
safely)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.sessions import fixture as fx
from tests.sessions.writer import MARKER

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

WRITER = Path(__file__).with_name("writer.py")


def test_it_reads_beside_a_writer_without_ever_blocking_it(viewer_client, home):
    fixture = fx.build(home)
    writer = subprocess.Popen([sys.executable, str(WRITER), str(fixture.path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout.readline().strip() == "ready"
        urls = ["/sessions/", f"/sessions/?q={MARKER}", "/sessions/writer/", "/api/sessions?order=recent",
                "/api/sessions/search?q=docker", "/api/sessions/writer/messages?limit=500",
                "/sessions/?page=1&q=kubern",
                "/api/sessions/stats", "/sessions/secrets/", "/sessions/writer/?page=2"]
        statuses = []
        found_marker = False
        for n in range(50):
            response = viewer_client.get(urls[n % len(urls)])
            statuses.append(response.status_code)
            if n % len(urls) == 1:
                found_marker = found_marker or f"the <mark>{MARKER}</mark> arrives" in response.content.decode()
        writer.stdin.close()
        report = json.loads(writer.stdout.readline())
    finally:
        if not writer.stdin.closed:
            writer.stdin.close()  # the writer stops on its own, also when the test failed above
        writer.wait(timeout=180)
    assert set(statuses) == {200}
    assert found_marker
    assert report["errors"] == [] and report["writes"] > 0
    assert report["checkpoint_busy"] == 0  # no snapshot of the panel's outlived its request

"""A real server killed with SIGKILL while saves are running: every file the saves touch is
afterwards either its old or its new version (parseable, the value of the last acknowledged or
the in-flight request), never partial; and the panel starts and saves again on the same home."""

from __future__ import annotations

import json
import random
import re
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

from memory_core.entries import parse_entries
from provider_schemas.storage.env_file import read_env
from tests.faults.panel import Browser, prepare_panel, serve

pytestmark = pytest.mark.slow

ROUNDS = 4
# How much a round does depends on the machine's speed, so it is bounded: at most this many adds a
# round, into a MEMORY.md whose budget they cannot reach (ROUNDS * MAX_ADDS_PER_ROUND entries of
# 11 characters plus the 3-character delimiter stay far below MEMORY_CHAR_LIMIT).
MAX_ADDS_PER_ROUND = 200
MEMORY_CHAR_LIMIT = 50_000
assert ROUNDS * MAX_ADDS_PER_ROUND * len("entry-00000\n§\n") < MEMORY_CHAR_LIMIT
# The clients are killed only once both have had two requests acknowledged; waiting for that is
# bounded only so that a broken server fails the test instead of hanging it.
GETTING_GOING_TIMEOUT = 180
ENV_KEEP = ["# keep this comment", "export OTHER_TOOL_KEY='keep me'", "SPACED = kept value"]
YAML_KEEP = (
    "# keep this comment\n_config_version: 33\nmodel: gpt-test\n"
    f"memory:\n  provider: ''\n  memory_char_limit: {MEMORY_CHAR_LIMIT}\n"
)


@dataclass
class Track:
    """What one sequential client has had acknowledged, and what it has in flight."""

    start: int
    acked: int = -1
    inflight: int | None = None
    errors: list[str] = field(default_factory=list)
    going: threading.Event = field(default_factory=threading.Event)

    def allowed(self) -> set[int]:
        return {n for n in (self.acked, self.inflight) if n is not None}

    def ack(self, n: int) -> None:
        self.acked, self.inflight = n, None
        if n >= self.start + 1:  # two requests acknowledged
            self.going.set()


def _put(base: str, token: str, path: str, body: dict) -> int:
    request = urllib.request.Request(base + path, data=json.dumps(body).encode(), method="PUT",
                                     headers={"Authorization": f"Bearer {token}",
                                              "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=180) as response:
        return response.status


def _provider_saves(base: str, token: str, track: Track, stop: threading.Event) -> None:
    n = track.start
    while not stop.is_set():
        track.inflight = n
        try:
            for path, body in (
                ("/api/memory/providers/hindsight/config", {"values": {"bank_id": f"bank-{n}", "api_key": f"key-{n}"}}),
                ("/api/memory/providers/mem0/config", {"values": {"agent_id": f"agent-{n}"}}),
                ("/api/memory/providers/byterover/config", {"values": {"auto_extract": n % 2 == 0}}),
                ("/api/memory/providers/openviking/config", {"values": {"endpoint": f"http://h{n}:1933"}}),
            ):
                status = _put(base, token, path, body)
                if status != 200:
                    track.errors.append(f"{path}: {status}")
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
            return  # the server is gone
        track.ack(n)
        n += 1


def _memory_adds(browser: Browser, track: Track, stop: threading.Event) -> None:
    n = track.start
    while not stop.is_set() and n < track.start + MAX_ADDS_PER_ROUND:
        track.inflight = n
        try:
            status, body, _h = browser.request("POST", "/memory/memory/add/", {"content": f"entry-{n:05d}"},
                                               timeout=180)
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
            return
        if status != 302:
            track.errors.append(f"memory add {n}: {status} {body[:200]}")
            return
        track.ack(n)
        n += 1


def _number(pattern: str, text: str) -> int:
    match = re.fullmatch(pattern, text)
    assert match, (pattern, text)
    return int(match.group(1))


def _check_files(home: Path, saves: Track, adds: Track, added_before: int) -> int:
    """Assert every file is whole and holds an old-or-new value; returns the memory entry count."""
    allowed = saves.allowed()
    hindsight = json.loads((home / "hindsight" / "config.json").read_text())
    assert _number(r"bank-(\d+)", hindsight["bank_id"]) in allowed
    mem0 = json.loads((home / "mem0.json").read_text())
    assert _number(r"agent-(\d+)", mem0["agent_id"]) in allowed
    config = yaml.safe_load((home / "config.yaml").read_text())
    assert (home / "config.yaml").read_text().startswith("# keep this comment\n")
    assert config["model"] == "gpt-test"
    assert isinstance(config["memory"]["byterover"]["auto_extract"], bool)
    env_text = (home / ".env").read_text()
    for line in ENV_KEEP:
        assert env_text.count(line + "\n") == 1, env_text
    env = read_env(home / ".env")
    assert _number(r"key-(\d+)", env.get("HINDSIGHT_API_KEY") or "") in allowed
    assert _number(r"http://h(\d+):1933", env.get("OPENVIKING_ENDPOINT") or "") in allowed
    assert (home / ".env").stat().st_mode & 0o777 == 0o600
    entries = parse_entries((home / "memories" / "MEMORY.md").read_text(encoding="utf-8"))
    numbers = [_number(r"entry-(\d{5})", e) for e in entries]
    # Adds are sequential, so the file holds entries 0..k in order: every acknowledged add, plus
    # perhaps the one in flight; nothing partial, nothing lost.
    assert numbers == list(range(len(numbers))), numbers
    assert len(numbers) - 1 in adds.allowed() | ({added_before - 1} if adds.acked < 0 else set())
    return len(numbers)


def test_it_leaves_every_file_old_or_new_when_killed_mid_save(tmp_path):
    home, data = tmp_path / "home", tmp_path / "data"
    token = prepare_panel(home=home, data_dir=data)
    (home / ".env").write_text("\n".join(ENV_KEEP) + "\n")
    (home / "config.yaml").write_text(YAML_KEEP)
    (home / "memories").mkdir()
    (home / "memories" / "MEMORY.md").write_text("")
    rng = random.Random(20261129)
    next_save, next_add, entries = 0, 0, 0
    kills = 0
    for _round in range(ROUNDS):
        saves, adds, stop = Track(start=next_save), Track(start=next_add), threading.Event()
        with serve(home=home, data_dir=data) as server:
            base = f"http://127.0.0.1:{server.port}"
            browser = Browser(base)
            browser.sign_in()
            threads = [
                threading.Thread(target=_provider_saves, args=(base, token, saves, stop), daemon=True),
                threading.Thread(target=_memory_adds, args=(browser, adds, stop), daemon=True),
            ]
            for thread in threads:
                thread.start()
            going = saves.going.wait(GETTING_GOING_TIMEOUT) and adds.going.wait(GETTING_GOING_TIMEOUT)
            if going:
                time.sleep(rng.uniform(0.05, 0.6))  # where the kill lands; any moment is valid
            server.process.kill()  # SIGKILL: no cleanup of any kind
            server.process.wait(timeout=180)
            kills += 1
            stop.set()
            for thread in threads:
                thread.join(timeout=180)
        assert not saves.errors and not adds.errors, (saves.errors, adds.errors)
        assert going, "the saves or the adds never got going"
        entries = _check_files(home, saves, adds, entries)
        next_save = max(saves.allowed()) + 1
        next_add = entries
    assert kills == ROUNDS
    # Temporaries of writes cut short may stay behind; they are never the files the agent reads.
    assert all(p.name.startswith(".") and p.name.endswith(".tmp") for p in home.rglob("*.tmp"))

    # The panel comes back on the same home and saves again.
    with serve(home=home, data_dir=data) as server:
        status = _put(f"http://127.0.0.1:{server.port}", token, "/api/memory/providers/mem0/config",
                      {"values": {"agent_id": "after-the-kills"}})
    assert status == 200
    assert json.loads((home / "mem0.json").read_text())["agent_id"] == "after-the-kills"

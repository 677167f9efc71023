"""A panel process killed between the two renames of a two-file save leaves a mixed pair; the next
``serve`` on that home completes the save before it answers anything."""

from __future__ import annotations

import json
import multiprocessing
import signal
from pathlib import Path

import pytest

from provider_schemas import save_provider
from provider_schemas.saving.journal import journal_path
from tests.faults.panel import serve
from tests.provider_schemas import journal_workers

pytestmark = pytest.mark.slow

OLD = {"api_key": "hs-old-1111", "bank_id": "bank-old"}
NEW = {"api_key": "hs-new-2222", "bank_id": "bank-new"}


def _pair(home: Path) -> tuple[str, str]:
    bank = json.loads((home / "hindsight" / "config.json").read_text(encoding="utf-8"))["bank_id"]
    env = (home / ".env").read_text(encoding="utf-8")
    key = next(line.split("=", 1)[1] for line in env.splitlines() if line.startswith("HINDSIGHT_API_KEY="))
    return bank, key


def test_it_completes_a_half_done_two_file_save_when_the_panel_starts(tmp_path, user_home):
    home, data = tmp_path / "home", tmp_path / "data"
    home.mkdir()
    save_provider(home=home, name="hindsight", values=OLD)
    assert _pair(home) == ("bank-old", "hs-old-1111")

    process = multiprocessing.get_context("spawn").Process(
        target=journal_workers.save_killed_after_renames,
        args=(str(home), str(user_home), "hindsight", NEW, 1),
    )
    process.start()
    process.join(timeout=120)
    assert process.exitcode == -signal.SIGKILL
    assert _pair(home) in {("bank-new", "hs-old-1111"), ("bank-old", "hs-new-2222")}  # mixed
    assert journal_path(home).exists()

    with serve(home=home, data_dir=data) as server:
        assert server.process.poll() is None

    assert _pair(home) == ("bank-new", "hs-new-2222")
    assert not journal_path(home).exists()
    assert sorted(p.name for p in home.rglob("*.tmp")) == []

"""The config GET's kept answer (provider_schemas/reading/answer_cache.py): reused while every
input file is unchanged, never stale (docs/performance.md §GET: the whole answer, kept while its
inputs are unchanged)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from provider_schemas.reading import answer_cache
from tests.providers_ui.helpers import write

pytestmark = pytest.mark.django_db

CONFIG = "/api/memory/providers/hindsight/config"
AN_HOUR_AGO = time.time() - 3600


def settled(*paths: Path) -> None:
    """Files and folders last modified an hour ago, their ctime (which ``utime`` sets to now)
    moved past the one they had: an edit then shows in the ctime even on a coarse clock."""
    for path in paths:
        before = path.stat().st_ctime_ns
        os.utime(path, (AN_HOUR_AGO, AN_HOUR_AGO))
        while path.stat().st_ctime_ns == before:
            os.utime(path, (AN_HOUR_AGO, AN_HOUR_AGO))


@pytest.fixture
def hindsight_home(home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    # The files here were all written a moment ago: the cache's clock is an hour ahead, so that
    # they count as settled (the window for edits within one clock tick is tested on its own).
    monkeypatch.setattr(answer_cache, "_now_ns", lambda: time.time_ns() + 3600 * 10**9)
    write(home / "hindsight" / "config.json", json.dumps({"bank_id": "alpha"}))
    write(home / ".env", "HINDSIGHT_API_KEY=hs-key-1\n")
    write(home / "config.yaml", "memory:\n  provider: hindsight\n")
    settled(home / "hindsight" / "config.json", home / "hindsight", home / ".env", home / "config.yaml", home)
    answer_cache.clear_answers()
    return home


def field(body: dict, key: str) -> dict:
    return next(f for f in body["fields"] if f["key"] == key)


def test_it_answers_a_repeated_get_of_unchanged_files_from_the_kept_answer(owner_client, hindsight_home):
    hits = answer_cache._stats["hits"]

    first = owner_client.get(CONFIG)
    second = owner_client.get(CONFIG)

    assert first.status_code == second.status_code == 200
    assert second.content == first.content
    assert second["Content-Type"] == "application/json"
    assert field(second.json(), "bank_id")["value"] == "alpha"
    assert answer_cache._stats["hits"] == hits + 1


def test_it_reads_again_after_an_edit_in_place_that_keeps_the_size_and_the_mtime(owner_client, hindsight_home):
    path = hindsight_home / "hindsight" / "config.json"
    assert field(owner_client.get(CONFIG).json(), "bank_id")["value"] == "alpha"

    with path.open("r+b") as handle:  # same inode, same size, mtime put back: only the ctime moves
        handle.write(json.dumps({"bank_id": "omega"}).encode())
    settled(path)

    assert field(owner_client.get(CONFIG).json(), "bank_id")["value"] == "omega"


def test_it_reads_again_when_a_file_is_replaced_or_the_active_provider_changes(owner_client, hindsight_home):
    assert owner_client.get(CONFIG).json()["active"] is True

    write(hindsight_home / "config.yaml", "memory:\n  provider: holographic\n")
    settled(hindsight_home / "config.yaml", hindsight_home)
    (hindsight_home / ".env").unlink()
    settled(hindsight_home)

    body = owner_client.get(CONFIG).json()
    assert body["active"] is False
    assert field(body, "api_key")["is_set"] is False


def test_it_never_keeps_an_answer_read_through_a_link(owner_client, hindsight_home, tmp_path):
    elsewhere = write(tmp_path / "inside-copy.json", json.dumps({"bank_id": "linked"}))
    target = hindsight_home / "hindsight" / "linked.json"
    os.replace(elsewhere, target)
    (hindsight_home / "hindsight" / "config.json").unlink()
    (hindsight_home / "hindsight" / "config.json").symlink_to("linked.json")
    settled(hindsight_home / "hindsight", target)
    hits = answer_cache._stats["hits"]

    for _ in range(2):
        assert field(owner_client.get(CONFIG).json(), "bank_id")["value"] == "linked"

    assert answer_cache._stats["hits"] == hits


def test_it_reads_the_keyring_on_every_request(owner_client, hindsight_home, dict_keyring):
    from admin_panel.services.providers import set_secret_store
    from provider_schemas import keyring_service

    set_secret_store(home=hindsight_home, store="keyring")
    (hindsight_home / ".env").write_text("")
    settled(hindsight_home / ".env", hindsight_home)
    hits = answer_cache._stats["hits"]
    assert field(owner_client.get(CONFIG).json(), "api_key")["is_set"] is False

    dict_keyring.set_password(keyring_service(hindsight_home), "HINDSIGHT_API_KEY", "hs-in-keyring")

    assert field(owner_client.get(CONFIG).json(), "api_key")["is_set"] is True
    assert answer_cache._stats["hits"] == hits


def test_it_keeps_no_answer_read_while_an_input_had_just_changed(owner_client, hindsight_home, monkeypatch):
    monkeypatch.setattr(answer_cache, "_now_ns", time.time_ns)
    write(hindsight_home / "hindsight" / "config.json", json.dumps({"bank_id": "fresh"}))
    hits = answer_cache._stats["hits"]

    for _ in range(2):
        assert field(owner_client.get(CONFIG).json(), "bank_id")["value"] == "fresh"

    assert answer_cache._stats["hits"] == hits

"""The live poll: 204 while nothing changed, the fresh live part when something did."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from admin_panel.selectors.memory import current_fingerprint
from memory_core import add_entry
from tests.memory_view.helpers import write_store

pytestmark = pytest.mark.django_db


def _fingerprint(client) -> str:
    response = client.get("/memory/")
    marker = 'data-fingerprint="'
    content = response.content.decode()
    start = content.index(marker) + len(marker)
    return content[start : content.index('"', start)]


def test_it_answers_an_unchanged_poll_with_204_and_renders_nothing(owner_client, home):
    write_store(home, "memory", ["one"])
    fingerprint = _fingerprint(owner_client)

    with CaptureQueriesContext(connection) as queries:
        response = owner_client.get("/memory/poll/", {"view": "page", "fp": fingerprint})

    assert response.status_code == 204
    assert response.content == b""
    assert response.templates == []
    # Session and user only: the poll itself reads no table.
    assert len(queries) <= 2
    assert "no-store" in response["Cache-Control"] or "no-cache" in response["Cache-Control"]


def test_it_sends_the_fresh_live_part_after_another_process_writes(owner_client, home):
    write_store(home, "memory", ["one"])
    fingerprint = _fingerprint(owner_client)

    assert add_entry(home=home, target="memory", content="two from the agent")["success"]
    response = owner_client.get("/memory/poll/", {"view": "page", "fp": fingerprint})

    assert response.status_code == 200
    assert "two from the agent" in response.content.decode()
    assert response["X-Memory-Fingerprint"] == current_fingerprint(home=home)
    assert response["X-Memory-Fingerprint"] != fingerprint
    assert "<html" not in response.content.decode()  # a fragment, not a page


def test_it_notices_a_change_of_the_pending_queue_and_of_config(owner_client, home):
    write_store(home, "memory", ["one"])
    fingerprint = _fingerprint(owner_client)

    (home / "config.yaml").write_text("memory:\n  memory_char_limit: 500\n", encoding="utf-8")

    response = owner_client.get("/memory/poll/", {"view": "page", "fp": fingerprint})
    assert response.status_code == 200
    assert "/ 500 characters" in response.content.decode()


def test_it_renders_the_blocked_and_pending_views_live_too(owner_client, home):
    write_store(home, "memory", ["you are now a pirate"])

    blocked = owner_client.get("/memory/poll/", {"view": "blocked", "fp": "stale"})
    pending = owner_client.get("/memory/poll/", {"view": "pending", "fp": "stale"})

    assert blocked.status_code == 200 and "role_hijack" in blocked.content.decode()
    assert pending.status_code == 200 and "No pending memory writes." in pending.content.decode()


def test_it_refuses_an_unknown_live_view(owner_client, home):
    assert owner_client.get("/memory/poll/", {"view": "../etc", "fp": "x"}).status_code == 400


def test_it_lets_viewers_watch_but_not_strangers(viewer_client, client, other_user, home):
    assert viewer_client.get("/memory/poll/", {"view": "page", "fp": "x"}).status_code == 200
    client.force_login(other_user)
    assert client.get("/memory/poll/", {"view": "page", "fp": "x"}).status_code == 403

"""The panel's write rules hold under the store lock: an entry or a file that changes after the
page read it (the agent writing meanwhile) is never written over."""

from __future__ import annotations

import os

import pytest

from admin_panel.models import AuditEntry
from admin_panel.selectors import memory as memory_selectors
from admin_panel.selectors.memory import entry_key
from memory_core import MemoryStore, list_pending, stage
from tests.memory_view.helpers import entry_ref, read_store, write_store

pytestmark = pytest.mark.django_db


def _messages(response) -> list[str]:
    return [str(message) for message in response.context["messages"]] if response.context else []


def _backups(home) -> list[str]:
    return sorted(name for name in os.listdir(home / "memories") if ".bak." in name)


def _after_the_page_reads(monkeypatch, name: str, change) -> None:
    """Let ``change`` happen right after the view's own read through ``selectors.<name>``, i.e.
    between the page's look at the store and the store's lock."""
    original = getattr(memory_selectors, name)

    def read_then_change(**kwargs):
        value = original(**kwargs)
        change()
        return value

    monkeypatch.setattr(memory_selectors, name, read_then_change)


def test_it_edits_nothing_when_the_entry_vanishes_and_another_contains_its_text(owner_client, home, monkeypatch):
    write_store(home, "memory", ["nginx", "server A runs nginx", "Repo uses uv."])
    key = entry_key("nginx")
    form = owner_client.get(f"/memory/memory/entries/{key}/edit/")
    assert form.status_code == 200 and "nginx" in form.content.decode()
    agent = MemoryStore(home)
    _after_the_page_reads(monkeypatch, "find_entry", lambda: agent.remove("memory", "nginx"))
    after_agent = "server A runs nginx\n§\nRepo uses uv.".encode()

    response = owner_client.post(f"/memory/memory/entries/{key}/edit/", {"content": "nginx 1.27"})

    content = response.content.decode()
    assert response.status_code == 409
    assert "it was changed or deleted meanwhile. Nothing was changed." in content
    assert "nginx 1.27</textarea>" in content, "what the admin typed is still in the form"
    assert (home / "memories" / "MEMORY.md").read_bytes() == after_agent
    assert not AuditEntry.objects.exists()


def test_it_refuses_an_add_to_a_store_that_drifted_after_the_page_read_it(owner_client, home, monkeypatch):
    path = write_store(home, "memory", ["clean entry"])

    def editor_appends() -> None:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write("\n\n§\nappended in an editor")

    _after_the_page_reads(monkeypatch, "store_file", editor_appends)
    drifted = "clean entry\n\n§\nappended in an editor".encode()

    response = owner_client.post("/memory/memory/add/", {"content": "from the panel"})

    content = response.content.decode()
    assert response.status_code == 409  # refused by the store: nothing was written
    assert "MEMORY.md has drifted" in content
    assert "A snapshot was saved to" in content, "the store's message names the backup it wrote"
    assert path.read_bytes() == drifted
    assert [(home / "memories" / name).read_bytes() for name in _backups(home)] == [drifted]
    assert not AuditEntry.objects.exists()


def test_it_approves_nothing_into_a_drifted_store_and_backs_it_up_once(owner_client, home):
    path = write_store(home, "memory", "a \n§\nb")
    before = path.read_bytes()
    ids = [
        stage(home, payload={"action": "add", "target": "memory", "content": text}, summary=f"add: {text}")["id"]
        for text in ("first staged", "second staged", "third staged")
    ]
    user_id = stage(home, payload={"action": "add", "target": "user", "content": "Likes tea."}, summary="add")["id"]

    response = owner_client.post(
        "/memory/pending/action/", {"action": "approve", "pending_id": [*ids, user_id]}, follow=True
    )

    messages = _messages(response)
    assert sum("MEMORY.md has drifted" in message and "it stays pending" in message for message in messages) == 3
    assert any(message.startswith(f"Approved and saved {user_id}") for message in messages)
    assert path.read_bytes() == before
    assert len(_backups(home)) == 1
    assert sorted(record["id"] for record in list_pending(home)) == sorted(ids)
    assert read_store(home, "user") == ["Likes tea."]


def test_it_deletes_nothing_from_a_store_that_drifted_after_the_confirmation(owner_client, home):
    path = write_store(home, "memory", ["keep", "doomed"])
    ref = entry_ref("memory", "doomed")
    confirm = owner_client.get("/memory/delete/", {"entry": ref})
    assert "doomed" in confirm.content.decode()
    write_store(home, "memory", "keep \n§\ndoomed")

    response = owner_client.post("/memory/delete/", {"entry": [ref]}, follow=True)

    assert any("Nothing was deleted from MEMORY.md: MEMORY.md has drifted" in m for m in _messages(response))
    assert path.read_bytes() == "keep \n§\ndoomed".encode()
    assert not AuditEntry.objects.exists()

"""The two layers kept consistent: an entry shows its copy in the active provider, removing it in the
panel removes the copy in the same step (and says what happened in each layer), and copies whose
entry is gone are listed as left behind. Real sequences: the agent adds and replaces in MEMORY.md
and forwards the write to holographic the way 0.19.0 does (add: the new text; no remove)."""

from __future__ import annotations

from pathlib import Path

import pytest

from admin_panel.models import AuditEntry
from memory_core import add_entry, replace_entry
from memory_core.external.base import ContentsError
from memory_core.external.holographic import HolographicStore
from tests.memory_view.helpers import entry_ref, read_store
from tests.provider_contents import store as plugin

pytestmark = pytest.mark.django_db


def _agent(home: Path, action: str, target: str, content: str, old: str = "") -> None:
    """The agent's built-in write, then its forward to the provider (category by target)."""
    if action == "add":
        assert add_entry(home=home, target=target, content=content)["success"]
    else:
        assert replace_entry(home=home, target=target, old_text=old, new_content=content)["success"]
    conn = plugin.connect(home / "memory_store.db")
    plugin.add_fact(conn, content, "user_pref" if target == "user" else "general")
    conn.close()


@pytest.fixture
def layers(home: Path) -> Path:
    (home / "config.yaml").write_text("memory:\n  provider: holographic\n")
    plugin.create(home / "memory_store.db")
    _agent(home, "add", "memory", "The staging host is kestrel.")
    _agent(home, "add", "memory", "Deploys go out on Fridays.")
    _agent(home, "add", "user", "Prefers tabs.")
    _agent(home, "replace", "memory", "The staging host is osprey.", old="kestrel")
    return home


def _facts(home: Path) -> list[str]:
    return [r[1] for r in plugin.dump(home / "memory_store.db")["facts"]]


def test_it_shows_each_entrys_copy_on_the_memory_page(owner_client, layers):
    page = owner_client.get("/memory/").content.decode()
    assert "also in holographic, fact 2" in page  # Deploys go out on Fridays.
    assert "also in holographic, fact 3" in page  # Prefers tabs (user_pref)
    assert "also in holographic, fact 4" in page  # the replaced text
    assert "also in holographic, fact 1" not in page  # kestrel's entry is gone


def test_it_lists_the_copy_a_replace_left_behind(owner_client, layers):
    page = owner_client.get("/contents/holographic/left-behind/").content.decode()
    assert "The staging host is kestrel." in page
    assert "osprey" not in page and "Fridays" not in page and "Prefers tabs" not in page


def test_it_removes_the_entry_and_its_copy_in_one_step(owner_client, layers):
    ref = entry_ref("memory", "Deploys go out on Fridays.")
    confirm = owner_client.get("/memory/delete/", {"entry": ref}).content.decode()
    assert "Also delete its copy in holographic (fact 2)" in confirm
    response = owner_client.post("/memory/delete/", {"entry": ref, "also_copy": ref, "next": "/memory/"},
                                 follow=True)
    text = response.content.decode()
    assert "holographic: its copy (fact 2) was deleted too." in text
    assert "Deploys go out on Fridays." not in read_store(layers, "memory")
    assert "Deploys go out on Fridays." not in _facts(layers)
    assert AuditEntry.objects.filter(provider="holographic", details__action="delete").count() == 1


def test_it_keeps_the_copy_when_the_box_is_unticked(owner_client, layers):
    ref = entry_ref("memory", "Deploys go out on Fridays.")
    owner_client.post("/memory/delete/", {"entry": ref, "next": "/memory/"})
    assert "Deploys go out on Fridays." in _facts(layers)
    page = owner_client.get("/contents/holographic/left-behind/").content.decode()
    assert "Deploys go out on Fridays." in page


def test_it_says_what_happened_in_each_layer_when_the_copy_cannot_go(owner_client, layers, monkeypatch):
    def refuse(self, item_id, *, expected=None):
        raise ContentsError("busy", code="busy")

    monkeypatch.setattr(HolographicStore, "delete", refuse)
    ref = entry_ref("memory", "Deploys go out on Fridays.")
    response = owner_client.post("/memory/delete/", {"entry": ref, "also_copy": ref, "next": "/memory/"},
                                 follow=True)
    text = response.content.decode()
    assert "Deleted 1 entry from MEMORY.md" in text or "deleted" in text.lower()
    assert "holographic: its copy (fact 2) was NOT deleted" in text
    assert "Deploys go out on Fridays." not in read_store(layers, "memory")
    assert "Deploys go out on Fridays." in _facts(layers)


def test_it_bulk_cleans_what_was_left_behind_and_nothing_else(owner_client, layers):
    ref = entry_ref("memory", "Deploys go out on Fridays.")
    owner_client.post("/memory/delete/", {"entry": ref, "next": "/memory/"})
    page = owner_client.get("/contents/holographic/left-behind/").content.decode()
    ids = [part.split('"')[0] for part in page.split('name="item" value="')[1:]]
    assert sorted(ids) == ["1", "2"]
    owner_client.post("/contents/holographic/left-behind/", {"item": ids})
    assert sorted(_facts(layers)) == ["Prefers tabs.", "The staging host is osprey."]
    assert "No copy is left behind" in owner_client.get("/contents/holographic/left-behind/").content.decode()


def test_it_replaces_an_entry_and_removes_its_old_copy_in_the_same_step(owner_client, layers):
    from admin_panel.selectors.memory import entry_key

    url = f"/memory/memory/entries/{entry_key('Deploys go out on Fridays.')}/edit/"
    form = owner_client.get(url).content.decode()
    assert "Also delete its old copy in holographic (fact 2)" in form
    response = owner_client.post(url, {"content": "Deploys go out on Thursdays.", "also_copy": "1",
                                       "next": "/memory/"}, follow=True)
    assert "holographic: its copy (fact 2) was deleted too." in response.content.decode()
    assert "Deploys go out on Thursdays." in read_store(layers, "memory")
    assert "Deploys go out on Fridays." not in _facts(layers)

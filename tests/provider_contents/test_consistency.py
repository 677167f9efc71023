"""The two layers kept consistent: an entry shows its copy in the active provider, removing it in the
panel removes the copy in the same step (and says what happened in each layer), and copies whose
entry is gone are listed as left behind. Real sequences: the agent adds and replaces in MEMORY.md
and forwards the write to holographic the way 0.19.0 does (add: the new text; no remove)."""

from __future__ import annotations

import subprocess
import sys
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


# --- the marks follow the provider's store ------------------------------------------------------


def _plugin_adds_in_another_process(db: Path, content: str, category: str = "general") -> None:
    """The agent's plugin, in a process of its own, adds a fact (its statements, its order)."""
    script = ("import sys; from pathlib import Path; from tests.provider_contents import store as s;"
              " c = s.connect(Path(sys.argv[1])); s.add_fact(c, sys.argv[2], sys.argv[3]); c.close()")
    subprocess.run([sys.executable, "-c", script, str(db), content, category], check=True,
                   cwd=Path(__file__).resolve().parents[2], timeout=60)


def _page_fingerprint(client) -> str:
    content = client.get("/memory/").content.decode()
    marker = 'data-fingerprint="'
    start = content.index(marker) + len(marker)
    return content[start:content.index('"', start)]


def test_it_shows_a_new_copy_on_the_next_poll_when_another_process_adds_it(owner_client, layers):
    assert add_entry(home=layers, target="memory", content="Backups run at 02:00.")["success"]
    fingerprint = _page_fingerprint(owner_client)
    assert owner_client.get("/memory/poll/", {"view": "page", "fp": fingerprint}).status_code == 204

    _plugin_adds_in_another_process(layers / "memory_store.db", "Backups run at 02:00.")

    response = owner_client.get("/memory/poll/", {"view": "page", "fp": fingerprint})
    assert response.status_code == 200
    assert "also in holographic, fact 5" in response.content.decode()
    # The change feed watches the provider's store too, not only MEMORY.md and USER.md.
    from admin_panel.selectors.memory import fingerprint_paths

    assert layers / "memory_store.db" in fingerprint_paths(home=layers)


def test_it_leaves_an_idle_page_alone_while_the_panel_reads_the_provider(owner_client, layers):
    fingerprint = _page_fingerprint(owner_client)
    owner_client.get("/contents/holographic/", {"q": "staging"})
    owner_client.get("/contents/holographic/left-behind/")
    assert owner_client.get("/memory/poll/", {"view": "page", "fp": fingerprint}).status_code == 204


def test_it_follows_a_byterover_file_edited_in_place(owner_client, home):
    (home / "config.yaml").write_text("memory:\n  provider: byterover\n")
    assert add_entry(home=home, target="memory", content="The release train leaves on Tuesdays.")["success"]
    topic = home / "byterover" / ".brv" / "context-tree" / "ops" / "releases"
    topic.mkdir(parents=True)
    note = topic / "release_days.md"
    note.write_text("---\ntitle: Release days\n---\nReleases are planned weekly.\n")
    fingerprint = _page_fingerprint(owner_client)
    assert "also in byterover" not in owner_client.get("/memory/").content.decode()

    with note.open("a") as handle:  # in place: the folder's own stat does not move
        handle.write("The release train leaves on Tuesdays.\n")

    response = owner_client.get("/memory/poll/", {"view": "page", "fp": fingerprint})
    assert response.status_code == 200
    assert "also in byterover, ops/releases/release_days.md" in response.content.decode()

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
    assert "When the text changes, its copy in holographic (fact 2)" in form
    response = owner_client.post(url, {"content": "Deploys go out on Thursdays.", "copy_action": "delete",
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
                   cwd=Path(__file__).resolve().parents[2], timeout=180)


def _page_fingerprint(client) -> str:
    content = client.get("/memory/").content.decode()
    marker = 'data-fingerprint="'
    start = content.index(marker) + len(marker)
    return content[start:content.index('"', start)]


def test_it_shows_a_new_copy_on_the_next_poll_when_another_process_adds_it(owner_client, layers):
    assert add_entry(home=layers, target="memory", content="Backups run at 02:00.")["success"]
    fingerprint = _page_fingerprint(owner_client)
    # The panel's own reads of the provider's store leave an open page idle.
    owner_client.get("/contents/holographic/", {"q": "staging"})
    owner_client.get("/contents/holographic/left-behind/")
    assert owner_client.get("/memory/poll/", {"view": "page", "fp": fingerprint}).status_code == 204

    _plugin_adds_in_another_process(layers / "memory_store.db", "Backups run at 02:00.")

    response = owner_client.get("/memory/poll/", {"view": "page", "fp": fingerprint})
    assert response.status_code == 200
    assert "also in holographic, fact 5" in response.content.decode()
    # The change feed watches the provider's store too, not only MEMORY.md and USER.md.
    from admin_panel.selectors.memory import fingerprint_paths

    assert layers / "memory_store.db" in fingerprint_paths(home=layers)


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


# --- replacing an entry updates its copy ----------------------------------------------------------


def _edit_url(text: str, target: str = "memory") -> str:
    from admin_panel.selectors.memory import entry_key

    return f"/memory/{target}/entries/{entry_key(text)}/edit/"


def _fact(home: Path, fact_id: int) -> dict:
    conn = plugin.connect(home / "memory_store.db")
    try:
        row = dict(conn.execute("SELECT * FROM facts WHERE fact_id = ?", (fact_id,)).fetchone())
        row["entities"] = sorted(r[0] for r in conn.execute(
            "SELECT e.name FROM entities e JOIN fact_entities fe ON fe.entity_id = e.entity_id WHERE fe.fact_id = ?",
            (fact_id,)))
        row["fts"] = [r[0] for r in conn.execute("SELECT rowid FROM facts_fts WHERE facts_fts MATCH ?",
                                                 ('"Thursdays"',))]
        row["bank"] = conn.execute("SELECT vector, fact_count FROM memory_banks WHERE bank_name = 'cat:general'"
                                   ).fetchone()
        row["all_entities"] = sorted(r[0] for r in conn.execute("SELECT name FROM entities"))
        return row
    finally:
        conn.close()


def test_it_updates_the_copy_in_place_the_way_the_plugin_updates_a_fact(owner_client, layers):
    from memory_core.external.holographic import bundle, fact_vector

    conn = plugin.connect(layers / "memory_store.db")
    conn.execute("UPDATE facts SET trust_score = 0.8, retrieval_count = 7, helpful_count = 2,"
                 " updated_at = '2026-01-01 00:00:00' WHERE fact_id = 2")
    conn.close()
    before = _fact(layers, 2)
    form = owner_client.get(_edit_url("Deploys go out on Fridays.")).content.decode()
    assert 'name="copy_action" value="update" checked' in form

    response = owner_client.post(_edit_url("Deploys go out on Fridays."),
                                 {"content": "Deploys go out on Thursdays with Release Captain Mira.",
                                  "copy_action": "update", "next": "/memory/"}, follow=True)

    assert "holographic: its copy (fact 2) now holds the new text too." in response.content.decode()
    after = _fact(layers, 2)
    assert after["content"] == "Deploys go out on Thursdays with Release Captain Mira."
    for kept in ("category", "trust_score", "retrieval_count", "helpful_count", "created_at"):
        assert after[kept] == before[kept], kept
    assert after["updated_at"] != "2026-01-01 00:00:00"
    assert after["fts"] == [2]  # the plugin's trigger swapped the FTS row
    assert after["entities"] == ["Release Captain Mira"]
    assert after["hrr_vector"] == fact_vector(after["content"], after["entities"], len(before["hrr_vector"]) // 8)
    conn = plugin.connect(layers / "memory_store.db")
    vectors = [r[0] for r in conn.execute("SELECT hrr_vector FROM facts WHERE category = 'general'"
                                          " AND hrr_vector IS NOT NULL")]
    conn.close()
    assert after["bank"][0] == bundle(vectors) and after["bank"][1] == 3
    # Nothing left behind: the entry's only copy carries its new text.
    assert "Deploys go out on" not in owner_client.get("/contents/holographic/left-behind/").content.decode()
    assert "also in holographic, fact 2" in owner_client.get("/memory/").content.decode()
    assert AuditEntry.objects.filter(provider="holographic", details__action="update").count() == 1


def test_it_says_what_happened_in_each_layer_when_the_copy_cannot_be_updated(owner_client, layers):
    # The agent already stored the new text as a fact of its own: the old copy cannot take it.
    conn = plugin.connect(layers / "memory_store.db")
    plugin.add_fact(conn, "Deploys go out on Thursdays.")
    conn.close()
    response = owner_client.post(_edit_url("Deploys go out on Fridays."),
                                 {"content": "Deploys go out on Thursdays.", "copy_action": "update",
                                  "next": "/memory/"}, follow=True)
    text = response.content.decode()
    assert "holographic: its copy (fact 2) was NOT updated (another item already holds the new text)" in text
    assert "Deploys go out on Thursdays." in read_store(layers, "memory")
    assert "Deploys go out on Fridays." in _facts(layers)  # untouched, and listed as left behind
    assert "Deploys go out on Fridays." in owner_client.get("/contents/holographic/left-behind/").content.decode()


def test_it_leaves_the_copy_alone_when_asked_to(owner_client, layers):
    response = owner_client.post(_edit_url("Deploys go out on Fridays."),
                                 {"content": "Deploys go out on Thursdays.", "copy_action": "keep",
                                  "next": "/memory/"}, follow=True)
    assert "its copy (fact 2) was left as it is" in response.content.decode()
    assert "Deploys go out on Fridays." in _facts(layers)


def test_it_updates_a_byterover_copy_inside_its_file(owner_client, home):
    (home / "config.yaml").write_text("memory:\n  provider: byterover\n")
    assert add_entry(home=home, target="user", content="Prefers short answers.")["success"]
    topic = home / "byterover" / ".brv" / "context-tree" / "people" / "owner"
    topic.mkdir(parents=True)
    note = topic / "style.md"
    note.write_text("---\ntitle: Style\ntags: [user]\n---\n[User profile] Prefers short answers.\nUses vim.\n")
    response = owner_client.post(_edit_url("Prefers short answers.", "user"),
                                 {"content": "Prefers short answers with examples.", "copy_action": "update",
                                  "next": "/memory/"}, follow=True)
    assert "byterover: its copy (people/owner/style.md) now holds the new text too." in response.content.decode()
    assert note.read_text() == ("---\ntitle: Style\ntags: [user]\n---\n"
                                "[User profile] Prefers short answers with examples.\nUses vim.\n")
    assert [p.name for p in topic.iterdir()] == ["style.md"]  # no temporary file left


def test_it_keeps_every_write_of_an_agent_writing_while_the_panel_replaces_and_removes(owner_client, layers,
                                                                                    tmp_path):
    """The plugin adds and deletes facts from a second process during a real sequence in the panel
    (add, replace with the copy updated, remove with the copy deleted): no lost write, no error."""
    db = layers / "memory_store.db"
    stop, out = tmp_path / "stop", tmp_path / "writer.json"
    writer = subprocess.Popen([sys.executable, "-m", "tests.provider_contents.agent_writer", str(db), "agent",
                               str(stop), str(out)], cwd=Path(__file__).resolve().parents[2])
    try:
        _agent(layers, "add", "memory", "Backups run at 02:00.")
        owner_client.post(_edit_url("Backups run at 02:00."),
                          {"content": "Backups run at 03:00.", "copy_action": "update", "next": "/memory/"})
        ref = entry_ref("memory", "The staging host is osprey.")
        owner_client.post("/memory/delete/", {"entry": ref, "also_copy": ref, "next": "/memory/"})
    finally:
        stop.write_text("stop")
        writer.wait(timeout=120)
    import json

    result = json.loads(out.read_text())
    assert result["errors"] == []
    facts = _facts(layers)
    assert all(text in facts for text in result["present"])
    assert "Backups run at 03:00." in facts and "Backups run at 02:00." not in facts
    assert "The staging host is osprey." not in facts
    assert not any("was NOT" in str(m) for m in owner_client.get("/memory/").context["messages"])


# --- the maintenance page's merge and rewrite remove entries too ----------------------------------


def test_it_deletes_the_copies_of_entries_merged_away_on_the_maintenance_page(owner_client, layers):
    refs = [entry_ref("memory", "The staging host is osprey."), entry_ref("memory", "Deploys go out on Fridays.")]
    merged = "Staging is osprey; deploys go out on Fridays."
    review = owner_client.post("/memory/memory/maintenance/merge/", {"entry": refs, "content": merged,
                                                                     "step": "review"}).content.decode()
    assert review.count('name="also_copy"') == 2 and "Also delete its copy in holographic (fact 4)" in review
    response = owner_client.post("/memory/memory/maintenance/merge/",
                                 {"entry": refs, "content": merged, "step": "confirm", "also_copy": refs},
                                 follow=True)
    text = response.content.decode()
    assert "holographic: its copy (fact 4) was deleted too." in text
    assert "holographic: its copy (fact 2) was deleted too." in text
    assert sorted(_facts(layers)) == ["Prefers tabs.", "The staging host is kestrel."]


def test_it_updates_the_copy_of_an_entry_rewritten_on_the_maintenance_page(owner_client, layers):
    refs = [entry_ref("memory", "Deploys go out on Fridays.")]
    new = "Deploys go out on Fridays after 10:00."
    review = owner_client.post("/memory/memory/maintenance/merge/", {"entry": refs, "content": new,
                                                                     "step": "review"}).content.decode()
    assert 'name="copy_action" value="update" checked' in review
    response = owner_client.post("/memory/memory/maintenance/merge/",
                                 {"entry": refs, "content": new, "step": "confirm", "copy_action": "update"},
                                 follow=True)
    assert "holographic: its copy (fact 2) now holds the new text too." in response.content.decode()
    assert new in _facts(layers) and "Deploys go out on Fridays." not in _facts(layers)


def test_it_follows_a_real_sequence_of_the_agents_add_replace_and_remove(owner_client, layers):
    """The agent's own remove is not forwarded (0.19.0): the copy stays, loses its mark, and is
    listed as left behind; a replace leaves the old copy behind and marks the new one; a replace in
    the panel moves the same copy along and leaves nothing behind."""
    from memory_core import remove_entry

    _agent(layers, "add", "user", "Works in UTC+1.")
    _agent(layers, "replace", "user", "Works in UTC+2.", old="UTC+1")
    assert remove_entry(home=layers, target="memory", old_text="Fridays")["success"]
    page = owner_client.get("/memory/").content.decode()
    assert "also in holographic, fact 6" in page  # Works in UTC+2.
    assert "also in holographic, fact 2" not in page and "also in holographic, fact 5" not in page
    left = owner_client.get("/contents/holographic/left-behind/").content.decode()
    ids = sorted(part.split('"')[0] for part in left.split('name="item" value="')[1:])
    assert ids == ["1", "2", "5"]  # kestrel, Fridays (removed), UTC+1 (replaced)
    # Then a person replaces the entry in the panel with its copy updated: the same fact follows it.
    owner_client.post(_edit_url("Works in UTC+2.", "user"), {"content": "Works in UTC+3.", "copy_action": "update",
                                                             "next": "/memory/"})
    assert "also in holographic, fact 6" in owner_client.get("/memory/").content.decode()
    assert _fact(layers, 6)["content"] == "Works in UTC+3."
    left = owner_client.get("/contents/holographic/left-behind/").content.decode()
    assert sorted(part.split('"')[0] for part in left.split('name="item" value="')[1:]) == ["1", "2", "5"]

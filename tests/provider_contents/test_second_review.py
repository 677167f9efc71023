"""Gaps a second review found: the approval of a staged remove/replace offers the entry's copy like
a direct one does; undo puts a deleted copy back; byterover cuts only the entry's text out of a
context file; "left behind" ticks only texts a built-in store is known to have held; plural forms."""

from __future__ import annotations

import pytest

from memory_core import add_entry
from memory_core.external.byterover import ByteroverTree, tree_root
from tests.memory_view.helpers import entry_ref, read_store
from tests.provider_contents import store as plugin
from tests.provider_contents.test_consistency import _facts, layers  # noqa: F401 - fixture
from tests.provider_contents.test_pages import facts  # noqa: F401 - fixture

pytestmark = pytest.mark.django_db


def test_the_left_behind_clean_up_says_copy_or_copies_in_both_languages(owner_client, facts):  # noqa: F811
    conn = plugin.connect(facts)
    plugin.add_fact(conn, "one more old entry", "user_pref")
    conn.close()
    one = owner_client.post("/contents/holographic/left-behind/", {"item": ["3"]}, follow=True).content.decode()
    assert "Removed 1 copy from holographic." in one
    two = owner_client.post("/contents/holographic/left-behind/", {"item": ["4", "5"]}, follow=True,
                            HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Removed 2 copies from holographic." in two
    assert [r[0] for r in plugin.dump(facts)["facts"]] == [1, 2]
    conn = plugin.connect(facts)
    plugin.add_fact(conn, "a last old entry")
    conn.close()
    zh = owner_client.post("/contents/holographic/left-behind/", {"item": ["6"]}, follow=True,
                           HTTP_ACCEPT_LANGUAGE="zh-Hans").content.decode()
    assert "已从 holographic 移除 1 个副本。" in zh


# --- undo puts the copy back ----------------------------------------------------------------------


def test_undo_of_a_remove_puts_the_deleted_copy_back_with_its_metadata(owner_client, layers):  # noqa: F811
    db = layers / "memory_store.db"
    conn = plugin.connect(db)
    conn.execute("UPDATE facts SET retrieval_count = 5, trust_score = 0.9 WHERE fact_id = 2")
    conn.close()
    before = plugin.dump(db)["facts"]
    ref = entry_ref("memory", "Deploys go out on Fridays.")
    owner_client.post("/memory/delete/", {"entry": ref, "also_copy": ref, "next": "/memory/"})
    assert "Deploys go out on Fridays." not in _facts(layers)
    text = owner_client.post("/memory/undo/", {"next": "/memory/"}, follow=True).content.decode()
    assert "holographic: its copy (fact 2) is back as it was too." in text
    assert "Deploys go out on Fridays." in read_store(layers, "memory")
    assert plugin.dump(db)["facts"] == before  # same id, trust, counts, times, vector
    assert "also in holographic, fact 2" in owner_client.get("/memory/").content.decode()


def test_undo_says_plainly_when_the_provider_cannot_put_a_copy_back(owner_client, layers, monkeypatch):  # noqa: F811
    from memory_core.external.holographic import HolographicStore

    original = HolographicStore.delete

    def without_undo(self, item_id, *, expected=None, rebuild=True):
        removed = original(self, item_id, expected=expected, rebuild=rebuild)
        return type(removed)(item=removed.item, undo=None)  # as a provider that allows no undo

    monkeypatch.setattr(HolographicStore, "delete", without_undo)
    ref = entry_ref("memory", "Deploys go out on Fridays.")
    owner_client.post("/memory/delete/", {"entry": ref, "also_copy": ref, "next": "/memory/"})
    text = owner_client.post("/memory/undo/", {"next": "/memory/"}, follow=True).content.decode()
    assert "its copy (fact 2) cannot be put back" in text and "allows no undo of a delete" in text
    assert "Deploys go out on Fridays." in read_store(layers, "memory")
    assert "Deploys go out on Fridays." not in _facts(layers)


def test_maintenance_undo_gives_an_updated_copy_its_old_text_back(owner_client, layers):  # noqa: F811
    refs = [entry_ref("memory", "Deploys go out on Fridays.")]
    new = "Deploys go out on Fridays after 10:00."
    owner_client.post("/memory/memory/maintenance/merge/",
                      {"entry": refs, "content": new, "step": "confirm", "copy_action": "update"})
    assert new in _facts(layers)
    text = owner_client.post("/memory/memory/maintenance/undo/", follow=True).content.decode()
    assert "holographic: its copy (fact 2) is back as it was too." in text
    rows = plugin.dump(layers / "memory_store.db")["facts"]
    assert [r[1] for r in rows if r[0] == 2] == ["Deploys go out on Fridays."]
    assert new not in _facts(layers)


def test_maintenance_undo_puts_back_the_copies_of_entries_merged_away(owner_client, layers):  # noqa: F811
    refs = [entry_ref("memory", "The staging host is osprey."), entry_ref("memory", "Deploys go out on Fridays.")]
    merged = "Staging is osprey; deploys go out on Fridays."
    owner_client.post("/memory/memory/maintenance/merge/",
                      {"entry": refs, "content": merged, "step": "confirm", "also_copy": refs})
    assert "Deploys go out on Fridays." not in _facts(layers)
    owner_client.post("/memory/memory/maintenance/undo/")
    assert {"Deploys go out on Fridays.", "The staging host is osprey."} <= set(_facts(layers))


# --- byterover: a copy is cut out of its file -----------------------------------------------------


BYTEROVER_NOTE = ("---\ntitle: Style\ntags: [user]\n---\n# Style\r\n\n[User profile]\n"
                  "Prefers short answers.\nUses vim.  \n\n\ttrailing tab kept\n")


def _byterover_home(home):
    (home / "config.yaml").write_text("memory:\n  provider: byterover\n")
    assert add_entry(home=home, target="user", content="Prefers short answers.")["success"]
    topic = tree_root(home) / "people" / "owner"
    topic.mkdir(parents=True)
    return topic


def test_removing_an_entry_cuts_only_its_text_out_of_the_byterover_file(owner_client, home):
    note = _byterover_home(home) / "style.md"
    note.write_bytes(BYTEROVER_NOTE.encode())
    ref = entry_ref("user", "Prefers short answers.")
    text = owner_client.post("/memory/delete/", {"entry": ref, "also_copy": ref, "next": "/memory/"},
                             follow=True).content.decode()
    assert "byterover: its copy (people/owner/style.md) was deleted too." in text
    assert note.read_bytes() == BYTEROVER_NOTE.replace("Prefers short answers.\n", "").encode()
    assert [p.name for p in note.parent.iterdir()] == ["style.md"]
    owner_client.post("/memory/undo/", {"next": "/memory/"})
    assert note.read_bytes() == BYTEROVER_NOTE.encode()


def test_the_byterover_file_goes_only_when_nothing_else_is_left(home):
    note = _byterover_home(home) / "only.md"
    note.write_text("---\ntitle: Only\n---\n\nPrefers short answers.\n")
    tree = ByteroverTree(home=home)
    item = tree.mirrors({"user": ["Prefers short answers."]})[("user", "Prefers short answers.")]
    removed = tree.remove_text(item.id, "Prefers short answers.")
    assert not note.exists()
    tree.restore(removed.undo)
    assert note.read_text() == "---\ntitle: Only\n---\n\nPrefers short answers.\n"


def test_a_cut_is_not_undone_over_a_file_changed_since(home):
    note = _byterover_home(home) / "style.md"
    note.write_bytes(BYTEROVER_NOTE.encode())
    tree = ByteroverTree(home=home)
    item = tree.mirrors({"user": ["Prefers short answers."]})[("user", "Prefers short answers.")]
    removed = tree.remove_text(item.id, "Prefers short answers.", expected=item.details["version"])
    note.write_text(note.read_text() + "Added by brv later.\n")
    changed = note.read_bytes()
    with pytest.raises(Exception) as refused:
        tree.restore(removed.undo)
    assert getattr(refused.value, "code", "") == "clash" and note.read_bytes() == changed



# --- approving a staged remove/replace offers the copy like a direct one --------------------------


def _stage(home, **payload):
    from memory_core.pending import stage

    return stage(home, payload={"target": "memory", **payload}, summary=f"{payload['action']}")["id"]


def test_approving_a_staged_remove_offers_and_deletes_the_copy(owner_client, layers):  # noqa: F811
    pending_id = _stage(layers, action="remove", old_text="Fridays")
    page = owner_client.get("/memory/pending/").content.decode()
    assert f'name="copy_action_{pending_id}" value="delete" checked' in page
    assert "When the entry goes, its copy in holographic (fact 2)" in page
    assert f'name="copy_action_{pending_id}" value="update"' not in page
    text = owner_client.post("/memory/pending/action/", {"row_action": f"approve:{pending_id}",
                                                         f"copy_action_{pending_id}": "delete"},
                             follow=True).content.decode()
    assert "holographic: its copy (fact 2) was deleted too." in text
    assert "Deploys go out on Fridays." not in read_store(layers, "memory")
    assert "Deploys go out on Fridays." not in _facts(layers)


def test_approving_a_staged_replace_updates_the_copy_and_keep_leaves_it(owner_client, layers):  # noqa: F811
    first = _stage(layers, action="replace", old_text="Fridays", content="Deploys go out on Thursdays.")
    second = _stage(layers, action="remove", old_text="osprey")
    page = owner_client.get("/memory/pending/").content.decode()
    assert f'name="copy_action_{first}" value="update" checked' in page
    text = owner_client.post("/memory/pending/action/", {
        "action": "approve", "pending_id": [first, second], f"copy_action_{first}": "update",
        f"copy_action_{second}": "keep"}, follow=True).content.decode().replace("&#x27;", "'")
    assert "holographic: its copy (fact 2) now holds the new text too." in text
    assert "holographic: its copy (fact 4) was left as it is; it still holds the removed entry's text." in text
    now = _facts(layers)
    assert "Deploys go out on Thursdays." in now and "Deploys go out on Fridays." not in now
    assert "The staging host is osprey." in now
    assert "The staging host is osprey." not in read_store(layers, "memory")


def test_a_failed_approval_leaves_the_copy_alone(owner_client, layers):  # noqa: F811
    pending_id = _stage(layers, action="remove", old_text="no entry holds this")
    owner_client.post("/memory/pending/action/", {"row_action": f"approve:{pending_id}",
                                                  f"copy_action_{pending_id}": "delete"})
    assert len(_facts(layers)) == 4


# --- "left behind" ticks only what a built-in store is known to have held -------------------------


def test_left_behind_ticks_former_entries_and_not_the_agents_own_facts(owner_client, home):
    import re

    from tests.maintenance.history_builder import HistoryBuilder, success

    (home / "config.yaml").write_text("memory:\n  provider: holographic\n")
    (home / "memories").mkdir(exist_ok=True)
    (home / "memories" / "MEMORY.md").write_text("The staging host is osprey.\n§\nBackups run at 02:00.")
    history = HistoryBuilder(home)
    session = history.session("20260101_100000_aaaaaa", source="cli")
    history.call("a", session, {"action": "add", "content": "The staging host is kestrel."}, success("memory"))
    history.call("b", session, {"action": "add", "content": "Deploys go out on Fridays."}, success("memory"))
    history.call("c", session, {"action": "replace", "old_text": "kestrel", "content": "The staging host is osprey."},
                 success("memory", message="Entry replaced."))
    history.call("d", session, {"action": "remove", "old_text": "Fridays"}, success("memory", message="Entry removed."))
    history.close()
    db = plugin.create(home / "memory_store.db")
    conn = plugin.connect(db)
    for text, category in (("The staging host is kestrel.", "general"), ("Deploys go out on Fridays.", "general"),
                           ("The staging host is osprey.", "general"), ("Ada prefers dark mode.", "general"),
                           ("Likes green tea.", "user_pref"), ("Backups run at 02:00.", "general")):
        plugin.add_fact(conn, text, category)
    conn.close()
    # An entry the panel removed (its audit log records the text), its copy kept.
    ref = entry_ref("memory", "Backups run at 02:00.")
    owner_client.post("/memory/delete/", {"entry": ref, "next": "/memory/"})
    page = owner_client.get("/contents/holographic/left-behind/").content.decode()
    ticked = set(re.findall(r'name="item" value="(\d+)" checked', page))
    assert ticked == {"1", "2", "6"}  # kestrel, Fridays (the agent's history), backups (the panel's audit)
    unticked = set(re.findall(r'name="item" value="(\d+)">', page))
    assert unticked == {"4", "5"}  # the agent's own facts in general and user_pref
    former, unknown = page.split('id="lb-unknown"')
    assert "Ada prefers dark mode." in unknown and "Likes green tea." in unknown
    assert "Ada prefers dark mode." not in former and "Deploys go out on Fridays." in former


def test_left_behind_ticks_nothing_without_any_record(owner_client, facts):  # noqa: F811
    page = owner_client.get("/contents/holographic/left-behind/").content.decode()
    assert 'value="3"' in page and 'value="4"' in page and " checked" not in page

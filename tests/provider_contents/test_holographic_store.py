"""memory_core.external.holographic on real SQLite files in the plugin's format."""

from __future__ import annotations

import cmath
import math
import os
import struct
from pathlib import Path

import pytest

from memory_core.external.base import ContentsError, NotFound, Query
from memory_core.external.holographic import HolographicStore, bundle, db_path
from tests.provider_contents import store as plugin


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = plugin.create(tmp_path / "memory_store.db")
    conn = plugin.connect(path)
    plugin.add_fact(conn, "Alice Smith deploys with Docker Compose")
    plugin.add_fact(conn, "Bob Jones prefers tabs", "user_pref")
    plugin.add_fact(conn, "Alice Smith reviews on Fridays", "project")
    plugin.add_fact(conn, "the staging host is kestrel")
    conn.close()
    return path


def test_it_reads_the_db_path_from_config_with_hermes_home_expanded(tmp_path):
    (tmp_path / "config.yaml").write_text("plugins:\n  hermes-memory-store:\n    db_path: $HERMES_HOME/x/facts.db\n")
    assert db_path(tmp_path) == tmp_path / "x" / "facts.db"
    (tmp_path / "config.yaml").write_text("memory:\n  provider: holographic\n")
    assert db_path(tmp_path) == tmp_path / "memory_store.db"


def test_it_lists_newest_first_with_entities_and_filters(db):
    store = HolographicStore(home=db.parent)
    page = store.list(Query())
    assert page.items[0].text == "the staging host is kestrel"
    assert page.total == 4
    by_text = {i.text: i for i in page.items}
    assert by_text["Alice Smith deploys with Docker Compose"].details["entities"] == ["Alice Smith", "Docker Compose"]
    assert store.list(Query(filters={"category": "user_pref"})).total == 1
    assert store.list(Query(filters={"entity": "alice smith"})).total == 2
    assert store.list(Query(filters={"min_trust": "0.6"})).total == 0
    assert [i.text for i in store.list(Query(search="kestr")).items] == ["the staging host is kestrel"]
    # FTS syntax typed by a person is words, never operators or an error.
    assert store.list(Query(search='"AND OR ( NEAR')).total == 0
    second = store.list(Query(per_page=3, page=2))
    assert len(second.items) == 1 and second.page_count == 2


def test_it_reads_without_bumping_counters_or_creating_files_beside_the_db(db):
    before = plugin.dump(db)
    names = sorted(os.listdir(db.parent))
    stat = os.stat(db)
    store = HolographicStore(home=db.parent)
    store.list(Query(search="Alice"))
    store.get("1")
    store.mirrors({"memory": ["the staging host is kestrel"]})
    store.copies_without_entry({"memory": [], "user": []})
    assert sorted(os.listdir(db.parent)) == names  # no -wal, no -shm
    assert plugin.dump(db) == before
    assert (os.stat(db).st_mtime_ns, os.stat(db).st_size) == (stat.st_mtime_ns, stat.st_size)


def test_it_reads_while_a_writer_holds_the_db_open(db):
    writer = plugin.connect(db)
    plugin.add_fact(writer, "written while the panel reads")
    try:
        store = HolographicStore(home=db.parent)
        assert store.list(Query(search="panel reads")).total == 1
    finally:
        writer.close()


def test_it_deletes_a_fact_the_plugins_way_and_more(db):
    store = HolographicStore(home=db.parent)
    alice = store.list(Query(search="deploys")).items[0]
    before = plugin.dump(db)
    removed = store.delete(alice.id)
    after = plugin.dump(db)
    assert removed.item.text == alice.text
    assert [r for r in after["facts"] if r[0] == int(alice.id)] == []
    assert store.list(Query(search="deploys")).total == 0  # its FTS row went through the trigger
    # "Docker Compose" was only this fact's; "Alice Smith" is still used by another fact.
    assert {r[1] for r in after["entities"]} == {"Alice Smith", "Bob Jones"}
    assert [r for r in after["fact_entities"] if r[0] == int(alice.id)] == []
    # Every other fact row is byte-identical.
    assert [r for r in before["facts"] if r[0] != int(alice.id)] == after["facts"]
    # The bank of "general" bundles exactly the vectors left in it.
    left = [r[-1] for r in after["facts"] if r[2] == "general"]
    bank = next(r for r in after["memory_banks"] if r[1] == "cat:general")
    assert bank[2] == bundle(left) and bank[4] == 1 and bank[3] == plugin.DIM


def test_it_drops_the_bank_when_the_category_is_left_empty(db):
    store = HolographicStore(home=db.parent)
    bob = store.list(Query(filters={"category": "user_pref"})).items[0]
    store.delete(bob.id)
    assert "cat:user_pref" not in {r[1] for r in plugin.dump(db)["memory_banks"]}


def test_it_restores_a_deleted_fact_with_its_metadata(db):
    store = HolographicStore(home=db.parent)
    conn = plugin.connect(db)
    conn.execute("UPDATE facts SET retrieval_count = 7, helpful_count = 2, trust_score = 0.8 WHERE fact_id = 1")
    conn.close()
    before = plugin.dump(db)
    removed = store.delete("1")
    restored = store.restore(removed.undo)
    assert restored.id == "1" and restored.details["entities"] == ["Alice Smith", "Docker Compose"]
    assert plugin.dump(db)["facts"] == before["facts"]
    assert {r[1] for r in plugin.dump(db)["entities"]} == {r[1] for r in before["entities"]}
    assert store.list(Query(search="deploys")).total == 1
    with pytest.raises(ContentsError) as clash:
        store.restore(removed.undo)
    assert clash.value.code == "clash"


def test_it_says_gone_for_a_fact_that_is_not_there(db):
    store = HolographicStore(home=db.parent)
    for bad in ("999", "abc", "-1", "99999999999999999999999"):
        with pytest.raises(NotFound):
            store.get(bad)
    with pytest.raises(NotFound):
        store.delete("999")


def test_it_finds_mirrors_by_trimmed_text_and_category(db):
    store = HolographicStore(home=db.parent)
    found = store.mirrors({"memory": ["  the staging host is kestrel ", "Bob Jones prefers tabs"],
                           "user": ["Bob Jones prefers tabs"]})
    assert set(found) == {("memory", "  the staging host is kestrel "), ("user", "Bob Jones prefers tabs")}
    left = store.copies_without_entry({"memory": ["the staging host is kestrel"], "user": []})
    assert [i.text for i in left] == ["Alice Smith deploys with Docker Compose", "Bob Jones prefers tabs"]


def test_it_bundles_like_the_circular_mean_of_the_phases():
    vectors = [plugin.vector(str(n), 8) for n in range(5)]
    expected = []
    for k in range(8):
        total = sum(cmath.exp(1j * struct.unpack("=8d", v)[k]) for v in vectors)
        expected.append(cmath.phase(total) % (2 * math.pi))
    assert struct.unpack("=8d", bundle(vectors)) == pytest.approx(expected, abs=1e-12)


def test_it_computes_the_bank_outside_the_write_lock_and_yields_to_an_agent_write_meanwhile(db, monkeypatch):
    from memory_core.external import holographic

    store = HolographicStore(home=db.parent)
    real_bundle = holographic.bundle
    held = []

    def agent_writes_during_the_computation(blobs):
        # The write lock is free while the panel computes: the agent's own add gets through now.
        agent = plugin.connect(db)
        agent.execute("BEGIN IMMEDIATE")
        agent.execute("ROLLBACK")
        plugin.add_fact(agent, "an agent fact added mid-rebuild")
        agent.close()
        held.append(True)
        return real_bundle(blobs)

    monkeypatch.setattr(holographic, "bundle", agent_writes_during_the_computation)
    store.delete("4")  # general
    monkeypatch.setattr(holographic, "bundle", real_bundle)
    after = plugin.dump(db)
    general = [r[-1] for r in after["facts"] if r[2] == "general"]
    bank = next(r for r in after["memory_banks"] if r[1] == "cat:general")
    assert held and bank[4] == len(general) == 2 and bank[2] == real_bundle(general)


def test_it_leaves_the_bank_alone_when_the_deleted_fact_had_no_vector(db):
    conn = plugin.connect(db)
    fact_id = plugin.add_fact(conn, "a fact stored while the agent had no numpy", with_vector=False)
    conn.close()
    before = plugin.dump(db)["memory_banks"]
    HolographicStore(home=db.parent).delete(str(fact_id))
    assert plugin.dump(db)["memory_banks"] == before


def test_a_restore_matches_an_entity_by_its_exact_name_not_as_a_like_pattern(db):
    """An entity named "Build_Bot" must not be taken for "BuildXBot" ("_" is a LIKE wildcard)."""
    conn = plugin.connect(db)
    own = conn.execute("INSERT INTO entities (name) VALUES ('Build_Bot')").lastrowid
    other = conn.execute("INSERT INTO entities (name) VALUES ('BuildXBot')").lastrowid
    percent = conn.execute("INSERT INTO entities (name) VALUES ('100% Uptime')").lastrowid
    conn.execute("INSERT INTO entities (name) VALUES ('100 Percent Uptime')")
    conn.execute("INSERT INTO fact_entities (fact_id, entity_id) VALUES (4, ?), (4, ?), (2, ?)",
                 (own, percent, other))
    conn.close()
    store = HolographicStore(home=db.parent)
    removed = store.delete("4")
    assert {e["name"] for e in removed.undo["entities"]} == {"Build_Bot", "100% Uptime"}
    restored = store.restore(removed.undo)
    assert sorted(restored.details["entities"]) == ["100% Uptime", "Build_Bot"]
    names = [r[1] for r in plugin.dump(db)["entities"]]
    assert names.count("Build_Bot") == 1 and names.count("100% Uptime") == 1

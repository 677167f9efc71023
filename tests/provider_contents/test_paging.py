"""The holographic list pages a search or filter from one walk of its hits (docs/provider_contents.md
§Checks and figures): the same pages, counts and "next page" as paging each one by OFFSET, on both
sides of the count cap, and the search index matched once per page, not three times."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from memory_core.external import holographic
from memory_core.external.base import Query
from memory_core.external.holographic import COUNT_CAP, HolographicStore
from tests.provider_contents import store as plugin

FACTS = 2 * COUNT_CAP + 200  # a word in two facts of three is past the cap: both ways of paging are reached


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    path = plugin.create(tmp_path_factory.mktemp("paging") / "memory_store.db")
    conn = sqlite3.connect(path)
    conn.execute("BEGIN")
    conn.executemany("INSERT INTO facts (content, category, trust_score) VALUES (?, ?, ?)",
                     [(f"fact {n} {'kestrel' if n % 3 else 'osprey'} note", ("general", "project")[n % 2],
                       (n % 10) / 10) for n in range(FACTS)])
    conn.execute("DELETE FROM facts WHERE fact_id % 7 = 0")  # gaps in the ids, as deletes leave
    conn.execute("COMMIT")
    conn.close()
    return path


def _expected(db: Path, where: str, args: tuple, query: Query) -> tuple[list[str], int, bool, bool]:
    conn = sqlite3.connect(db)
    ids = [str(r[0]) for r in conn.execute(f"SELECT fact_id FROM facts WHERE {where} ORDER BY fact_id DESC", args)]  # noqa: S608
    conn.close()
    page = ids[query.offset:query.offset + query.per_page]
    capped = len(ids) > COUNT_CAP
    return page, min(len(ids), COUNT_CAP), capped, capped and len(ids) > query.offset + query.per_page


@pytest.mark.parametrize("page", [1, 2, 24, 25, 26, 27, 40])
@pytest.mark.parametrize(("search", "filters", "where", "args"), [
    ("kestrel", {}, "content LIKE '%kestrel%'", ()),
    ("osprey", {"min_trust": "0.5"}, "content LIKE '%osprey%' AND trust_score >= 0.5", ()),
    ("", {"min_trust": "0.2"}, "trust_score >= 0.2", ()),
])
def test_each_page_is_the_one_offset_paging_gives(db, page, search, filters, where, args):
    query = Query(search=search, filters=filters, page=page, per_page=40)
    got = HolographicStore(home=db.parent, path=db).list(query)
    ids, total, capped, more_after = _expected(db, where, args, query)
    assert [item.id for item in got.items] == ids
    assert (got.total, got.capped) == (total, capped)
    assert got.has_next == (more_after if capped else page < got.page_count)


def test_a_search_matches_the_index_once_per_page(db, monkeypatch):
    statements: list[str] = []
    opened = holographic._open

    def traced(uri: str) -> sqlite3.Connection:
        conn = opened(uri)
        conn.set_trace_callback(statements.append)
        return conn

    monkeypatch.setattr(holographic, "_open", traced)
    page = HolographicStore(home=db.parent, path=db).list(Query(search="kestrel", page=2, per_page=40))
    assert len(page.items) == 40 and page.capped and page.has_next
    assert sum("MATCH" in sql for sql in statements) == 1, statements


@pytest.mark.django_db
def test_the_rows_escape_what_the_agent_wrote_and_link_each_fact(owner_client, home):
    (home / "config.yaml").write_text("memory:\n  provider: holographic\n")
    path = plugin.create(home / "memory_store.db")
    conn = plugin.connect(path)
    fact = plugin.add_fact(conn, "Ada <b>Lovelace</b> & co", "tool&<i>")
    entity = conn.execute("INSERT INTO entities (name) VALUES ('R&D <Team>')").lastrowid
    conn.execute("INSERT INTO fact_entities VALUES (?, ?)", (fact, entity))
    conn.execute("UPDATE facts SET trust_score = 0.755 WHERE fact_id = ?", (fact,))
    conn.close()
    page = owner_client.get("/contents/holographic/").content.decode()
    assert (f'<td><a href="/contents/holographic/{fact}/">{fact}</a></td>' in page)
    assert '<td class="entry-text">Ada &lt;b&gt;Lovelace&lt;/b&gt; &amp; co </td>' in page
    assert "<td>tool&amp;&lt;i&gt;</td>" in page and "<td>0.76</td>" in page and "<td>R&amp;D &lt;Team&gt;</td>" in page
    assert (f'href="/contents/holographic/{fact}/delete/">Delete<span class="visually-hidden"> fact {fact}</span>'
            in page)

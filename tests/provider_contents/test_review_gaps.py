"""Gaps a review found in the contents pages: secrets in an item's details (entities, tags, front
matter), a Hindsight URL's password in a message, byterover's domain/topic and the trust ceiling
filters, and the bulk clean-up of copies left behind re-checked when it is sent."""

from __future__ import annotations

import pytest

from memory_core import add_entry
from memory_core.external.base import ContentsError
from memory_core.external.byterover import ByteroverTree, tree_root
from tests.memory_view.helpers import entry_ref, read_store
from tests.provider_contents import store as plugin
from tests.provider_contents.test_byterover import _id, tree  # noqa: F401 - fixture
from tests.provider_contents.test_hindsight import configure
from tests.provider_contents.test_pages import facts  # noqa: F401 - fixture

pytestmark = pytest.mark.django_db
SECRET = "sk-live-0123456789abcdefXYZ"


def test_it_masks_secrets_in_a_facts_entities_and_tags(owner_client, facts, home):  # noqa: F811
    (home / ".env").write_text(f"OPENAI_API_KEY={SECRET}\n")
    conn = plugin.connect(facts)
    fact_id = plugin.add_fact(conn, f'the key is "{SECRET}" for prod')
    entity = conn.execute("INSERT INTO entities (name) VALUES (?)", (SECRET,)).lastrowid
    conn.execute("INSERT OR IGNORE INTO fact_entities (fact_id, entity_id) VALUES (?, ?)", (fact_id, entity))
    conn.execute("UPDATE facts SET tags = ? WHERE fact_id = ?", (f"prod,{SECRET}", fact_id))
    conn.commit()
    conn.close()
    for url in ("/contents/holographic/", f"/contents/holographic/{fact_id}/"):
        page = owner_client.get(url).content.decode()
        assert SECRET not in page and "[secret: OPENAI_API_KEY]" in page, url


def test_it_masks_secrets_in_byterover_front_matter(owner_client, home, tree):  # noqa: F811
    (home / ".env").write_text(f"OPENAI_API_KEY={SECRET}\n")
    (tree_root(home) / "ops" / "deploy" / "keys.md").write_text(f"---\ntitle: Keys\ntoken: {SECRET}\n---\nSee ops.\n")
    link = _id(ByteroverTree(home=home), "ops/deploy/keys.md") + "/"
    page = owner_client.get(f"/contents/byterover/{link}").content.decode()
    assert "token" in page and SECRET not in page and "[secret: OPENAI_API_KEY]" in page


def test_it_never_shows_the_password_or_query_of_a_hindsight_url(owner_client, home):
    configure(home, url="ftp://admin:hunter2@hindsight.local:8888/?token=abc123", bank="hermes", key="k")
    html = owner_client.get("/contents/hindsight/").content.decode()
    assert "hindsight.local:8888" in html
    assert "hunter2" not in html and "abc123" not in html and "admin:" not in html


def test_it_filters_byterover_by_domain_and_topic_through_the_page(owner_client, home, tree):  # noqa: F811
    ops = owner_client.get("/contents/byterover/?domain=ops").content.decode()
    assert "kestrel" in ops and "Bob prefers tabs" not in ops and "coffee" not in ops
    prefs = owner_client.get("/contents/byterover/?topic=prefs").content.decode()
    assert "Bob prefers tabs" in prefs and "coffee" in prefs and "kestrel" not in prefs


def test_it_filters_facts_by_a_trust_ceiling(owner_client, facts):  # noqa: F811
    conn = plugin.connect(facts)
    conn.execute("UPDATE facts SET trust_score = 0.9 WHERE fact_id = 2")
    conn.commit()
    conn.close()
    page = owner_client.get("/contents/holographic/?max_trust=0.6").content.decode()
    assert "3 facts" in page and "Alice Smith" not in page
    assert "4 facts" in owner_client.get("/contents/holographic/?max_trust=lots").content.decode()


def test_it_keeps_a_copy_whose_entry_came_back_after_the_list_was_shown(owner_client, facts, home):  # noqa: F811
    page = owner_client.get("/contents/holographic/left-behind/").content.decode()
    assert 'value="3"' in page and 'value="4"' in page
    (home / "memories" / "MEMORY.md").write_text("the staging host is kestrel\n§\n"
                                                 "an old entry the person removed from MEMORY.md")
    done = owner_client.post("/contents/holographic/left-behind/", {"item": ["3", "4"]}, follow=True).content.decode()
    assert [r[0] for r in plugin.dump(facts)["facts"]] == [1, 2, 3]
    assert "Not removed, because by now their entry is in MEMORY.md or USER.md again" in done and ": 3." in done
    assert "Removed 1 copy from holographic." in done


def test_it_points_at_the_context_tree_when_a_byterover_copy_cannot_go(owner_client, home, monkeypatch):
    (home / "config.yaml").write_text("memory:\n  provider: byterover\n")
    assert add_entry(home=home, target="user", content="Prefers short answers.")["success"]
    topic = tree_root(home) / "people" / "owner"
    topic.mkdir(parents=True)
    (topic / "style.md").write_text("---\ntitle: Style\n---\nPrefers short answers.\n")

    def refuse(self, item_id, text, *, expected=None):
        raise ContentsError("busy", code="busy")

    monkeypatch.setattr(ByteroverTree, "remove_text", refuse)  # a copy is cut out of its file
    ref = entry_ref("user", "Prefers short answers.")
    text = owner_client.post("/memory/delete/", {"entry": ref, "also_copy": ref, "next": "/memory/"},
                             follow=True).content.decode()
    assert "byterover: its copy (people/owner/style.md) was NOT deleted" in text
    assert "The file is still in the context tree" in text and 'href="/contents/byterover/"' in text
    assert "Copies left behind" not in text.split("was NOT deleted")[1].split("</p>")[0]
    assert "Prefers short answers." not in read_store(home, "user") and (topic / "style.md").exists()

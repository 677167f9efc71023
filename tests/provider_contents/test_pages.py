"""The contents pages: browse, read one fact, delete with confirmation, audit and undo; viewers see
and change nothing; providers the panel cannot reach say so."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from admin_panel.models import AuditEntry
from tests.provider_contents import store as plugin

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def facts(home: Path) -> Path:
    (home / "config.yaml").write_text("memory:\n  provider: holographic\n")
    (home / "memories").mkdir(exist_ok=True)
    (home / "memories" / "MEMORY.md").write_text("the staging host is kestrel")
    path = plugin.create(home / "memory_store.db")
    conn = plugin.connect(path)
    plugin.add_fact(conn, "the staging host is kestrel")
    plugin.add_fact(conn, "Alice Smith deploys with Docker Compose")
    plugin.add_fact(conn, "an old entry the person removed from MEMORY.md")
    plugin.add_fact(conn, "Bob Jones prefers tabs", "user_pref")
    conn.close()
    return path


def test_it_lists_searches_and_marks_the_copy_of_a_current_entry(owner_client, facts):
    page = owner_client.get("/contents/holographic/").content.decode()
    assert "4 facts" in page and "copy of a MEMORY.md entry" in page
    found = owner_client.get("/contents/holographic/?q=docker").content.decode()
    assert "1 fact" in found and "Alice Smith" in found and "kestrel" not in found
    assert "retrieval_count" not in found
    assert plugin.dump(facts)["facts"][0][5] == 0  # retrieval_count untouched


def test_it_shows_one_fact_with_its_counts_and_entities(owner_client, facts):
    page = owner_client.get("/contents/holographic/2/").content.decode()
    assert "Alice Smith, Docker Compose" in page and "Times recalled" in page and "general" in page
    assert owner_client.get("/contents/holographic/999/").status_code == 404


def test_it_deletes_after_confirmation_audits_and_undoes(owner_client, facts):
    confirm = owner_client.get("/contents/holographic/2/delete/")
    assert confirm.status_code == 200 and b"Delete fact 2?" in confirm.content
    before = plugin.dump(facts)
    response = owner_client.post("/contents/holographic/2/delete/")
    assert response.status_code == 302
    assert 2 not in [r[0] for r in plugin.dump(facts)["facts"]]
    entry = AuditEntry.objects.get()
    assert entry.provider == "holographic" and entry.details["action"] == "delete" and entry.details["item_id"] == "2"
    page = owner_client.get("/contents/holographic/").content.decode()
    assert "Deleted: fact 2." in page
    owner_client.post("/contents/holographic/undo/")
    assert plugin.dump(facts)["facts"] == before["facts"]
    assert AuditEntry.objects.filter(details__action="restore").count() == 1


def test_it_refuses_viewers_every_change_and_shows_them_no_button(viewer_client, facts):
    page = viewer_client.get("/contents/holographic/").content.decode()
    assert "4 facts" in page and "/delete/" not in page
    before = plugin.dump(facts)
    assert viewer_client.get("/contents/holographic/2/delete/").status_code == 403
    assert viewer_client.post("/contents/holographic/2/delete/").status_code == 403
    assert viewer_client.post("/contents/holographic/left-behind/", {"item": ["3"]}).status_code == 403
    assert viewer_client.post("/contents/holographic/undo/").status_code == 403
    assert plugin.dump(facts) == before


def test_it_lists_copies_left_behind_and_cleans_them_up(owner_client, facts):
    page = owner_client.get("/contents/holographic/left-behind/").content.decode()
    assert "an old entry the person removed" in page and "Bob Jones prefers tabs" in page
    assert "the staging host is kestrel" not in page
    owner_client.post("/contents/holographic/left-behind/", {"item": ["3", "4", "999"]})
    assert [r[1] for r in plugin.dump(facts)["facts"]] == ["the staging host is kestrel",
                                                           "Alice Smith deploys with Docker Compose"]


def test_it_says_plainly_when_a_provider_cannot_be_reached(owner_client, home):
    for name in ("mem0", "honcho", "openviking", "retaindb", "supermemory"):
        page = owner_client.get(f"/contents/{name}/").content.decode()
        assert "cannot show what" in page and "What would be needed" in page and "<form" not in page.split("<main")[-1]
    assert owner_client.get("/contents/nosuch/").status_code == 404


def test_it_says_so_when_the_store_does_not_exist_yet(owner_client, home):
    page = owner_client.get("/contents/holographic/")
    assert page.status_code == 200 and b"has not stored anything" in page.content
    assert not (home / "memory_store.db").exists()


def _wait_for(condition, what: str) -> None:
    deadline = time.monotonic() + 120  # only stops a hang
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.05)


def test_it_loses_no_write_of_an_agent_writing_during_lists_searches_and_deletes(owner_client, facts, tmp_path):
    conn = plugin.connect(facts)
    own = [plugin.add_fact(conn, f"panel owned fact {n} about Panel Topic{n % 5}", ("general", "project")[n % 2])
           for n in range(60)]
    conn.close()
    before = {r[0]: r for r in plugin.dump(facts)["facts"]}
    stop, out = tmp_path / "stop", tmp_path / "writer.json"
    writer = subprocess.Popen([sys.executable, "-m", "tests.provider_contents.agent_writer", str(facts), "agent",
                               str(stop), str(out)], cwd=ROOT, env={**os.environ})
    try:
        _wait_for(lambda: out.with_suffix(".progress").exists(), "the writer to start")
        deleted = []
        for fact_id in own[::3]:
            for url in ("/contents/holographic/", "/contents/holographic/?q=agent+note",
                        "/contents/holographic/?category=project&page=2"):
                response = owner_client.get(url)
                assert response.status_code == 200, url
                assert b"locked" not in response.content and b"try again" not in response.content
            response = owner_client.post(f"/contents/holographic/{fact_id}/delete/", follow=True)
            assert b"locked" not in response.content and b"try again" not in response.content
            deleted.append(fact_id)
        stop.touch()
        writer.wait(timeout=300)
    finally:
        stop.touch()
        if writer.poll() is None:
            writer.kill()
    report = json.loads(out.read_text())
    assert report["errors"] == []
    after = {r[0]: r for r in plugin.dump(facts)["facts"]}
    for text, fact_id in report["present"].items():
        assert after[fact_id][1] == text  # every write of the agent is there
    assert not set(deleted) & set(after)
    for fact_id, row in before.items():
        if fact_id not in deleted:
            assert after[fact_id] == row  # byte-identical
    # No link points at a fact or an entity that is gone.
    check = plugin.connect(facts)
    assert check.execute("SELECT COUNT(*) FROM fact_entities WHERE fact_id NOT IN (SELECT fact_id FROM facts)"
                         " OR entity_id NOT IN (SELECT entity_id FROM entities)").fetchone()[0] == 0
    check.close()


def test_it_links_the_contents_from_the_navigation_with_the_active_provider_first(viewer_client, facts):
    assert "/contents/" in [item["url"] for item in viewer_client.get("/").context["nav_items"]]
    page = viewer_client.get("/contents/").content.decode()
    assert page.index("/contents/holographic/") < page.index("/contents/byterover/") < page.index("/contents/mem0/")
    assert "store found" in page


def test_it_masks_stored_secrets_in_facts_and_in_the_audit_log(owner_client, facts, home):
    (home / ".env").write_text("OPENAI_API_KEY=sk-live-0123456789abcdefXYZ\n")
    conn = plugin.connect(facts)
    fact_id = plugin.add_fact(conn, "the key is sk-live-0123456789abcdefXYZ for prod")
    conn.close()
    for url in ("/contents/holographic/", f"/contents/holographic/{fact_id}/", "/contents/holographic/left-behind/",
                f"/contents/holographic/{fact_id}/delete/"):
        page = owner_client.get(url).content.decode()
        assert "sk-live-0123456789abcdefXYZ" not in page and "[secret: OPENAI_API_KEY]" in page, url
    owner_client.post(f"/contents/holographic/{fact_id}/delete/")
    entry = AuditEntry.objects.get()
    assert "sk-live" not in str(entry.details) and "sk-live" not in entry.summary


def test_it_tells_an_open_page_when_the_agent_changes_the_store(viewer_client, facts):
    def fingerprint() -> str:
        body = viewer_client.get("/contents/holographic/events/").content.decode()
        return next(line for line in body.splitlines() if line.startswith("data: "))

    before = fingerprint()
    assert fingerprint() == before  # reading changes nothing
    conn = plugin.connect(facts)
    plugin.add_fact(conn, "a fact the agent stored while the page was open")
    conn.close()
    assert fingerprint() != before
    page = viewer_client.get("/contents/holographic/", HTTP_HX_REQUEST="true").content.decode()
    assert 'id="contents-results"' in page and "<html" not in page  # just the live part
    assert "a fact the agent stored while the page was open" in page

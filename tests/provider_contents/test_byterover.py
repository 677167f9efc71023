"""The byterover context tree: browse by domain/topic, read a file's front matter, delete (with
undo), a file edited while its page is open, mirrors found by text."""

from __future__ import annotations

from pathlib import Path

import pytest

from admin_panel.models import AuditEntry
from memory_core.external.base import ContentsError, NotFound, Query
from memory_core.external.byterover import ByteroverTree, tree_root

pytestmark = pytest.mark.django_db

DEPLOY = """---
title: Deploy steps
tags: [ops, docker]
createdAt: 2026-11-30T10:00:00Z
---
# Deploy steps

The staging host is kestrel; deploy with docker compose.
"""


@pytest.fixture
def tree(home: Path) -> Path:
    root = tree_root(home)
    (root / "ops" / "deploy").mkdir(parents=True)
    (root / "ops" / "deploy" / "deploy_steps.md").write_text(DEPLOY)
    (root / "people" / "prefs").mkdir(parents=True)
    (root / "people" / "prefs" / "editor.md").write_text("---\ntitle: Editor\n---\nBob prefers tabs over spaces.\n")
    (root / "people" / "prefs" / "plain.md").write_text("No front matter here, just a note about coffee.\n")
    (home / "memories").mkdir(exist_ok=True)
    (home / "memories" / "USER.md").write_text("Bob prefers tabs over spaces.")
    return root


def _id(tree_: ByteroverTree, path: str) -> str:
    return next(i.id for i in tree_.list(Query(per_page=200)).items if i.details["path"] == path)


def test_it_lists_files_with_front_matter_and_filters_by_domain_and_topic(home, tree):
    store = ByteroverTree(home=home)
    assert store.list(Query()).total == 3
    ops = store.list(Query(filters={"domain": "ops"})).items
    assert [i.details["path"] for i in ops] == ["ops/deploy/deploy_steps.md"]
    assert ops[0].details["front_matter"]["title"] == "Deploy steps"
    assert ops[0].text.startswith("# Deploy steps")
    assert store.list(Query(filters={"topic": "prefs"})).total == 2
    assert store.list(Query(search="KESTREL")).total == 1
    assert store.filter_choices() == {"domain": ["ops", "people"], "topic": ["deploy", "prefs"]}


def test_it_refuses_paths_outside_the_tree(home, tree):
    store = ByteroverTree(home=home)
    (home / "secret.md").write_text("outside")
    import base64

    for raw in ("../../../secret.md", "/etc/passwd", "ops/deploy", "nope"):
        token = base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")
        with pytest.raises(NotFound):
            store.get(token)
    assert (home / "secret.md").exists()


def test_it_finds_a_mirror_by_text_and_never_a_left_behind_list(home, tree):
    store = ByteroverTree(home=home)
    found = store.mirrors({"user": ["Bob prefers   tabs over spaces."], "memory": ["not anywhere"]})
    assert [i.details["path"] for i in found.values()] == ["people/prefs/editor.md"]
    assert store.copies_without_entry({"memory": [], "user": []}) == []


def test_it_deletes_the_file_and_undo_writes_the_same_bytes_back(home, tree):
    store = ByteroverTree(home=home)
    item_id = _id(store, "ops/deploy/deploy_steps.md")
    before = (tree / "ops/deploy/deploy_steps.md").read_bytes()
    removed = store.delete(item_id)
    assert not (tree / "ops/deploy/deploy_steps.md").exists()
    store.restore(removed.undo)
    assert (tree / "ops/deploy/deploy_steps.md").read_bytes() == before
    with pytest.raises(ContentsError):
        store.restore(removed.undo)


def test_it_does_not_delete_a_file_edited_while_its_page_was_open(owner_client, home, tree):
    store = ByteroverTree(home=home)
    item_id = _id(store, "ops/deploy/deploy_steps.md")
    confirm = owner_client.get(f"/contents/byterover/{item_id}/delete/").content.decode()
    assert "Delete ops/deploy/deploy_steps.md?" in confirm
    version = confirm.split('name="version" value="')[1].split('"')[0]
    (tree / "ops/deploy/deploy_steps.md").write_text(DEPLOY + "\nA line the agent curated meanwhile.\n")
    response = owner_client.post(f"/contents/byterover/{item_id}/delete/", {"version": version}, follow=True)
    assert "changed since you opened it" in response.content.decode()
    assert (tree / "ops/deploy/deploy_steps.md").exists()
    assert AuditEntry.objects.count() == 0
    fresh = owner_client.get(f"/contents/byterover/{item_id}/delete/").content.decode()
    version = fresh.split('name="version" value="')[1].split('"')[0]
    owner_client.post(f"/contents/byterover/{item_id}/delete/", {"version": version})
    assert not (tree / "ops/deploy/deploy_steps.md").exists()
    assert AuditEntry.objects.get().details["action"] == "delete"


def test_it_shows_the_tree_to_viewers_and_refuses_their_delete(viewer_client, home, tree):
    store = ByteroverTree(home=home)
    item_id = _id(store, "people/prefs/editor.md")
    page = viewer_client.get("/contents/byterover/").content.decode()
    assert "3 files" in page and "copy of a USER.md entry" in page and "/delete/" not in page
    detail = viewer_client.get(f"/contents/byterover/{item_id}/").content.decode()
    assert "people/prefs/editor.md" in detail and "Editor" in detail
    assert viewer_client.post(f"/contents/byterover/{item_id}/delete/").status_code == 403
    assert (tree / "people/prefs/editor.md").exists()


def test_it_says_so_when_there_is_no_tree(owner_client, home):
    page = owner_client.get("/contents/byterover/")
    assert page.status_code == 200 and b"has not stored anything" in page.content

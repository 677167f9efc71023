"""Pending approvals: staged writes shown in full, approved through the store or rejected."""

from __future__ import annotations

import pytest

from admin_panel.models import AuditEntry
from memory_core import list_pending, stage
from tests.memory_view.helpers import read_store, write_config, write_store

pytestmark = pytest.mark.django_db


def _stage_add(home, content: str, *, target: str = "memory", created_at: float = 1_767_000_000.0) -> str:
    record = stage(
        home,
        payload={"action": "add", "target": target, "content": content, "old_text": None},
        summary=f"add to memory: {content}",
        origin="background_review",
        clock=lambda: created_at,
    )
    return record["id"]


def _stage_replace_in_user(home) -> None:
    """A staged replace in the user profile, a hundred seconds after ``_stage_add``'s default."""
    stage(
        home,
        payload={"action": "replace", "target": "user", "content": "Name: Dana R.", "old_text": "Name: Dana"},
        summary="replace in user profile: old: Name: Dana",
        clock=lambda: 1_767_000_100.0,
    )


def _messages(response) -> list[str]:
    return [str(message) for message in response.context["messages"]]


def test_it_lists_each_staged_write_with_action_target_content_and_time(owner_client, home):
    write_config(home, write_approval=True)
    pending_id = _stage_add(home, "Deploys go to <b>Ubuntu</b> 24.04")
    _stage_replace_in_user(home)

    content = owner_client.get("/memory/pending/").content.decode()

    assert "Write approval is on" in content
    assert pending_id in content
    assert "Deploys go to &lt;b&gt;Ubuntu&lt;/b&gt; 24.04" in content
    assert "automatic review" in content
    assert 'title="Dec. 29, 2025 09:20:00 UTC"' in content
    assert "Name: Dana R." in content and "Old text" in content
    assert content.index(pending_id) < content.index("Name: Dana R.")  # oldest first


def test_it_approves_a_write_by_replaying_it_through_the_store(owner_client, home):
    write_store(home, "memory", ["existing"])
    pending_id = _stage_add(home, "approved fact")

    response = owner_client.post(
        "/memory/pending/action/", {"row_action": f"approve:{pending_id}", "next": "/memory/pending/"}, follow=True
    )

    assert read_store(home, "memory") == ["existing", "approved fact"]
    assert list_pending(home) == []
    assert any(message.startswith(f"Approved and saved {pending_id}") for message in _messages(response))
    audit = AuditEntry.objects.get()
    assert audit.kind == AuditEntry.Kind.APPROVAL
    assert audit.details["pending_id"] == pending_id and audit.details["result"] == "applied"


def test_it_shows_a_failed_approval_and_keeps_the_write_pending(owner_client, home):
    write_config(home, memory_char_limit=10)
    write_store(home, "memory", ["0123456789"])
    pending_id = _stage_add(home, "does not fit")

    response = owner_client.post(
        "/memory/pending/action/", {"action": "approve", "pending_id": [pending_id]}, follow=True
    )

    messages = _messages(response)
    assert any("it stays pending" in message and "Memory at 10/10 chars." in message for message in messages)
    assert [record["id"] for record in list_pending(home)] == [pending_id]
    assert read_store(home, "memory") == ["0123456789"]


def test_it_approves_and_rejects_in_bulk(owner_client, home):
    first, second, third = (_stage_add(home, f"fact {n}", created_at=1_767_000_000.0 + n) for n in range(3))

    owner_client.post("/memory/pending/action/", {"action": "reject", "pending_id": [first, third]})
    assert [record["id"] for record in list_pending(home)] == [second]
    owner_client.post("/memory/pending/action/", {"action": "approve", "pending_id": [second]})

    assert list_pending(home) == []
    assert read_store(home, "memory") == ["fact 1"]
    assert AuditEntry.objects.filter(details__action="reject").count() == 2


def test_it_refuses_ids_that_could_reach_outside_the_queue(owner_client, home):
    (home / "x.json").write_text("{}", encoding="utf-8")

    response = owner_client.post(
        "/memory/pending/action/", {"action": "reject", "pending_id": ["../../x"]}, follow=True
    )

    assert (home / "x.json").exists()
    assert any("8 lower-case hex" in message for message in _messages(response))


def test_it_lets_viewers_see_pending_writes_but_not_decide(viewer_client, home):
    pending_id = _stage_add(home, "staged")

    page = viewer_client.get("/memory/pending/").content.decode()

    assert "staged" in page and "row_action" not in page
    assert viewer_client.post("/memory/pending/action/", {"row_action": f"reject:{pending_id}"}).status_code == 403
    assert len(list_pending(home)) == 1


def test_it_does_not_replay_a_write_into_a_drifted_store(owner_client, home):
    path = write_store(home, "memory", "a \n§\nb")
    before = path.read_bytes()
    pending_id = _stage_add(home, "would rewrite the drifted file")

    response = owner_client.post("/memory/pending/action/", {"row_action": f"approve:{pending_id}"}, follow=True)

    assert path.read_bytes() == before
    assert any("has drifted" in message and "it stays pending" in message for message in _messages(response))
    assert [record["id"] for record in list_pending(home)] == [pending_id]


def test_it_refuses_an_empty_selection_and_says_what_to_do(owner_client, home):
    write_config(home, write_approval=True)
    pending_id = _stage_add(home, "Prefers short answers.")

    for action in ("approve", "reject"):
        response = owner_client.post("/memory/pending/action/", {"action": action, "next": "/memory/pending/"})
        assert response.status_code == 400
        assert "Select at least one pending write." in response.content.decode()
    assert [record["id"] for record in list_pending(home)] == [pending_id]


def test_it_names_each_action_in_plain_words_in_both_languages(owner_client, home):
    write_config(home, write_approval=True)
    _stage_add(home, "Deploys go to Ubuntu 24.04")
    _stage_replace_in_user(home)

    english = owner_client.get("/memory/pending/").content.decode()
    assert '<strong class="pending-action">Add an entry</strong>' in english
    assert '<strong class="pending-action">Replace an entry</strong>' in english
    # The new text is labelled only beside the old one; the column heading says "Content".
    assert english.count('<span class="pending-label">New text</span>') == 1
    assert '<span class="pending-label">Content</span>' not in english

    chinese = owner_client.get("/memory/pending/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert '<strong class="pending-action">添加条目</strong>' in chinese
    assert '<strong class="pending-action">替换条目</strong>' in chinese
    assert ">add<" not in chinese and ">replace<" not in chinese

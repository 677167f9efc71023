"""The pending page with newer agents' records: the entry a write was reviewed against is shown,
a record the panel does not understand is shown as such, a file it cannot read is listed, and
none of them is ever deleted by the page."""

from __future__ import annotations

import json
import re

import pytest

from admin_panel.models import AuditEntry
from memory_core.history.schema import create_state_db
from memory_core.pending import pending_dir
from tests.memory_view.helpers import read_store, write_store

pytestmark = pytest.mark.django_db


def _record(home, pending_id: str, payload: object, **extra: object):
    directory = pending_dir(home)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{pending_id}.json"
    path.write_text(json.dumps({"id": pending_id, "subsystem": "memory", "action": "x", "summary": "staged",
                                "origin": "foreground", "created_at": 1767000000.0, "payload": payload, **extra}),
                    encoding="utf-8")
    return path


def test_it_shows_the_entry_a_write_was_reviewed_against_and_refuses_a_stale_one(owner_client, home):
    conn = create_state_db(home / "state.db")
    conn.execute("UPDATE schema_version SET version = 30")
    conn.close()
    write_store(home, "memory", ["Editor: vim (since 2019)."])
    path = _record(home, "0000000a", {"action": "remove", "target": "memory", "old_text": "vim",
                                      "matched_entry": "Editor: vim."})

    content = owner_client.get("/memory/pending/").content.decode()
    assert "Entry it was reviewed against" in content and "Editor: vim." in content

    response = owner_client.post("/memory/pending/action/",
                                 {"row_action": "approve:0000000a", "next": "/memory/pending/"}, follow=True)
    text = " ".join(str(message) for message in response.context["messages"])
    assert "Entry changed since it was staged" in text
    assert path.exists() and read_store(home, "memory") == ["Editor: vim (since 2019)."]
    assert AuditEntry.objects.get(details__action="approve").details["result"].startswith("Entry changed since")


def test_it_shows_records_it_does_not_understand_and_files_it_cannot_read_and_keeps_them(owner_client, home):
    _record(home, "0000000b", {"action": "merge", "target": "memory", "content": "A newer action."})
    _record(home, "0000000c", {"action": "batch", "target": "memory", "operations": [{"action": "rename"}]})
    directory = pending_dir(home)
    (directory / "0000000d.json").write_text("{half a rec", encoding="utf-8")
    (directory / "v2-0000000e.json").write_text("{}", encoding="utf-8")

    content = owner_client.get("/memory/pending/").content.decode()
    assert "its action is unknown" in content
    assert "some of its operations are unknown" in content
    assert "Records the panel cannot read" in content
    assert "0000000d.json" in content and "not readable as JSON text" in content
    assert "v2-0000000e.json" in content and "its id does not match its file name" in content

    for pending_id in ("0000000b", "0000000d"):
        owner_client.post("/memory/pending/action/", {"row_action": f"approve:{pending_id}", "next": "/memory/"})
    owner_client.post("/memory/pending/action/", {"action": "reject", "pending_id": ["0000000d"]})
    assert sorted(path.name for path in directory.iterdir()) == [
        "0000000b.json", "0000000c.json", "0000000d.json", "v2-0000000e.json"]

    # The memory page counts every file waiting in the queue, readable or not.
    page = owner_client.get("/memory/").content.decode()
    card = page[page.index('id="summary-pending"'):]
    assert re.search(r'summary-card__count">\s*4\s*<', card[:400])

    chinese = owner_client.get("/memory/pending/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "面板无法读取的记录" in chinese and "其操作类型未知" in chinese

"""Every write path leaves an audit entry: panel pages, the API and the management commands."""

from __future__ import annotations

import getpass
import io
import json

import pytest
from django.core.management import call_command

from admin_panel.models import AuditEntry
from admin_panel.selectors.memory import entry_key
from memory_core import pending
from tests.audit.entries import latest_entry

pytestmark = pytest.mark.django_db

Kind = AuditEntry.Kind


def _memory(home, text: str = "") -> None:
    (home / "memories").mkdir(exist_ok=True)
    (home / "memories" / "MEMORY.md").write_text(text, encoding="utf-8")


def test_it_audits_a_provider_save_from_the_panel_form(owner_client, home):
    response = owner_client.post("/providers/hindsight/save/", {"v:bank_id": "from-form", "o:bank_id": "hermes"})

    entry = latest_entry()
    assert response.status_code == 302
    assert (entry.kind, entry.channel, entry.username, entry.provider) == (Kind.PROVIDER_SETTINGS, "panel", "owner",
                                                                           "hindsight")
    assert {(row["key"], row["new"]) for row in entry.details["changes"]} >= {("bank_id", "from-form")}


def test_it_audits_a_provider_save_and_an_activation_through_the_api(owner_client, home):
    owner_client.put("/api/memory/providers/retaindb/config", json.dumps({"values": {"api_key": "rdb-key-1"}}),
                     content_type="application/json")
    saved = latest_entry()
    owner_client.put("/api/memory/provider", json.dumps({"provider": "retaindb"}), content_type="application/json")
    activated = latest_entry()

    assert (saved.kind, saved.channel, saved.provider) == (Kind.PROVIDER_SETTINGS, "api", "retaindb")
    assert saved.details["changes"] == [{"key": "api_key", "secret": "set", "store": ".env"}]
    assert (activated.kind, activated.channel, activated.details) == (Kind.ACTIVATION, "api",
                                                                     {"old": "", "new": "retaindb"})


def test_it_audits_activation_and_deactivation_from_the_panel(owner_client, home):
    owner_client.post("/providers/holographic/activate/")
    activated = latest_entry()
    owner_client.post("/providers/-/deactivate/")
    deactivated = latest_entry()

    assert (activated.kind, activated.details) == (Kind.ACTIVATION, {"old": "", "new": "holographic"})
    assert (deactivated.kind, deactivated.details) == (Kind.ACTIVATION, {"old": "holographic", "new": ""})


def test_it_audits_memory_settings(owner_client, home):
    owner_client.post("/settings/", {"v:memory_char_limit": "3000", "o:memory_char_limit": "2200"})

    entry = latest_entry()
    assert entry.kind == Kind.MEMORY_SETTINGS
    assert entry.details["changes"][0]["key"] == "memory_char_limit"
    assert entry.details["changes"][0]["new"] == 3000


def test_it_audits_memory_entries_added_edited_and_deleted_with_their_content(owner_client, home):
    _memory(home)
    owner_client.post("/memory/memory/add/", {"content": "First fact."})
    added = latest_entry()
    owner_client.post(f"/memory/memory/entries/{entry_key('First fact.')}/edit/", {"content": "First fact, edited."})
    edited = latest_entry()
    owner_client.post("/memory/delete/", {"entry": f"memory:{entry_key('First fact, edited.')}"})
    deleted = latest_entry()

    assert (added.kind, added.details["action"], added.details["content"]) == (Kind.MEMORY_ENTRY, "add", "First fact.")
    assert edited.details == {"action": "edit", "target": "memory", "content": "First fact, edited.",
                              "old_content": "First fact."}
    assert deleted.details["action"] == "delete"
    assert "First fact, edited." in json.dumps(deleted.details)


def test_it_audits_approvals_and_rejections(owner_client, home):
    _memory(home)
    first = pending.stage(home, payload={"action": "add", "target": "memory", "content": "Staged one",
                                         "old_text": None}, summary="add to memory: Staged one")
    second = pending.stage(home, payload={"action": "add", "target": "memory", "content": "Staged two",
                                          "old_text": None}, summary="add to memory: Staged two")

    owner_client.post("/memory/pending/action/", {"action": "approve", "pending_id": first["id"]})
    approved = latest_entry()
    owner_client.post("/memory/pending/action/", {"action": "reject", "pending_id": second["id"]})
    rejected = latest_entry()

    assert (approved.kind, approved.details["action"], approved.details["pending_id"]) == (Kind.APPROVAL, "approve",
                                                                                          first["id"])
    assert (rejected.kind, rejected.details["action"]) == (Kind.APPROVAL, "reject")


def test_it_audits_memory_changes_made_with_the_management_command(home):
    _memory(home, "Old fact.")
    out, err = io.StringIO(), io.StringIO()

    call_command("memory", "add", "memory", "Fact from a shell.", stdout=out, stderr=err)
    added = latest_entry()
    call_command("memory", "replace", "memory", "Old fact", "New fact.", stdout=out, stderr=err)
    replaced = latest_entry()
    call_command("memory", "remove", "memory", "New fact", stdout=out, stderr=err)
    removed = latest_entry()

    assert (added.channel, added.user, added.username) == ("command", None, getpass.getuser())
    assert (added.kind, added.details["action"], added.details["content"]) == (Kind.MEMORY_ENTRY, "add",
                                                                               "Fact from a shell.")
    assert (replaced.details["action"], replaced.details["content"], replaced.details["old_content"]) == (
        "edit", "New fact.", "Old fact.")
    assert (removed.details["action"], removed.details["content"]) == ("delete", ["New fact."])


def test_it_audits_approvals_made_with_the_management_command(home):
    _memory(home)
    record = pending.stage(home, payload={"action": "add", "target": "memory", "content": "Staged by agent",
                                          "old_text": None}, summary="add to memory: Staged by agent")

    call_command("memory", "pending", "approve", record["id"], stdout=io.StringIO(), stderr=io.StringIO())

    entry = latest_entry()
    assert (entry.kind, entry.channel, entry.details["pending_id"], entry.details["action"]) == (
        Kind.APPROVAL, "command", record["id"], "approve")


def test_it_records_nothing_when_a_command_changes_nothing(home):
    _memory(home, "Only fact.")

    with pytest.raises(SystemExit):
        call_command("memory", "remove", "memory", "not there", stdout=io.StringIO(),
                     stderr=io.StringIO())
    call_command("memory", "show", stdout=io.StringIO(), stderr=io.StringIO())

    assert not AuditEntry.objects.exists()

"""The audit page words each change in the reader's language from its kind and details; the
stored English summary stays for exports and for rows whose details it cannot read."""

from __future__ import annotations

import io
import json
import re

import pytest
from django.core.management import call_command
from django.utils import translation

from admin_panel.models import AuditEntry
from admin_panel.selectors.audit import describe, detail_facts, kind_label
from admin_panel.services.audit import record
from memory_core import pending

pytestmark = pytest.mark.django_db

Kind = AuditEntry.Kind
_LATIN_WORDS = re.compile(r"[A-Za-z]{2,}(?:\s+[A-Za-z]{2,})+")

# One entry of every kind, with the details shapes the write paths record.
SHAPES = [
    (Kind.PROVIDER_SETTINGS, "hindsight", {"changes": [{"key": "bank_id", "location": "f", "old": "a", "new": "b"},
                                                       {"key": "api_key", "secret": "set", "store": ".env"}]}),
    (Kind.ACTIVATION, "holographic", {"old": "", "new": "holographic"}),
    (Kind.ACTIVATION, "holographic", {"old": "holographic", "new": "honcho"}),
    (Kind.ACTIVATION, "holographic", {"old": "holographic", "new": ""}),
    (Kind.MEMORY_SETTINGS, "", {"changes": [{"key": "memory_char_limit", "old": 2200, "new": 3000}]}),
    (Kind.MEMORY_ENTRY, "", {"action": "add", "target": "memory", "content": "x"}),
    (Kind.MEMORY_ENTRY, "", {"action": "edit", "target": "user", "content": "x", "old_content": "y"}),
    (Kind.MEMORY_ENTRY, "", {"action": "delete", "target": "memory", "content": ["x", "y"]}),
    (Kind.MEMORY_ENTRY, "", {"action": "restore", "target": "memory", "content": ["x"], "reason": "undo"}),
    (Kind.MEMORY_ENTRY, "", {"action": "restore", "target": "memory", "content": ["x"],
                             "reason": "backup MEMORY.md.bak.1700000000"}),
    (Kind.APPROVAL, "", {"action": "approve", "pending_id": "ab12", "summary": "s", "result": "applied"}),
    (Kind.APPROVAL, "", {"action": "approve", "pending_id": "ab12", "summary": "s", "result": "Blocked: x"}),
    (Kind.APPROVAL, "", {"action": "reject", "pending_id": "ab12", "summary": "s", "result": "rejected"}),
    (Kind.REVERT, "hindsight", {"reverted_entry": 1, "changes": [{"key": "bank_id", "old": "b", "new": "a"}]}),
    (Kind.SECRET_STORE, "", {"old": "env_file", "new": "keyring"}),
    (Kind.API_TOKEN, "", {"action": "create", "token_id": 3, "name": "cron", "for_user": "owner"}),
    (Kind.API_TOKEN, "", {"action": "revoke", "token_id": 3, "name": "cron", "for_user": "owner"}),
    (Kind.ACCOUNT, "", {"action": "create", "account": "dana", "staff": True}),
    (Kind.SESSION_EXPORT, "", {"session_id": "20260101_100000_aaaaaa", "format": "markdown"}),
    (Kind.ACCOUNT, "", {"action": "password", "account": "dana"}),
    (Kind.ACCOUNT, "", {"action": "sign_out_others", "account": "dana", "sessions_ended": 2}),
    (Kind.INVITATION, "", {"action": "create", "link_id": 4, "role": "viewer"}),
    (Kind.INVITATION, "", {"action": "accept", "link_id": 4, "role": "admin", "account": "dana"}),
    (Kind.INVITATION, "", {"action": "revoke", "link_id": 4, "role": "viewer"}),
    (Kind.ROLE, "", {"account": "dana", "old": "viewer", "new": "admin"}),
    (Kind.ROLE, "", {"account": "dana", "old": "", "new": "viewer"}),
    (Kind.ACCESS, "", {"action": "deactivate", "account": "dana", "role": "viewer", "sessions_ended": 1}),
    (Kind.ACCESS, "", {"action": "activate", "account": "dana", "role": "viewer"}),
    (Kind.RESET_LINK, "", {"action": "create", "link_id": 5, "account": "dana"}),
    (Kind.RESET_LINK, "", {"action": "use", "link_id": 5, "account": "dana"}),
]
# What the Chinese wording leaves in Latin letters on purpose: names and file names.
NAMES = ("hindsight", "holographic", "honcho", "memory_char_limit", "bank_id", "api_key", "MEMORY.md", "USER.md",
         "MEMORY.md.bak.1700000000", "cron", "owner", "dana", "ab12", "20260101_100000_aaaaaa", "Markdown")


@pytest.mark.parametrize(("kind", "provider", "details"), SHAPES, ids=lambda v: str(v)[:24])
def test_it_words_every_kind_in_chinese_from_its_details(home, kind, provider, details):
    entry = record(user=None, channel="panel", home=home, kind=kind, provider=provider,
                   summary="Stored English summary", details=details)

    with translation.override("zh-hans"):
        shown = describe(entry)
        label = str(kind_label(kind))
    for name in NAMES:
        shown = shown.replace(name, " ")

    assert shown != entry.summary
    assert not _LATIN_WORDS.search(shown), shown
    assert re.search(r"[\u4e00-\u9fff]", shown) and re.search(r"[\u4e00-\u9fff]", label)


@pytest.mark.parametrize("details", [{}, {"action": "teleport", "target": "memory"}, {"changes": "not a list"},
                                     {"old": 1, "new": 2}])
def test_it_falls_back_to_the_stored_summary_for_details_it_cannot_read(home, details):
    entries = [record(user=None, channel="panel", home=home, kind=kind, summary=f"Old row of {kind}", details=details)
               for kind in (Kind.MEMORY_ENTRY, Kind.PROVIDER_SETTINGS, Kind.SECRET_STORE)]

    with translation.override("zh-hans"):
        assert [describe(entry) for entry in entries] == [entry.summary for entry in entries]


def test_it_falls_back_to_the_stored_summary_for_an_unknown_kind(home):
    entry = record(user=None, channel="api", home=home, kind="retired_kind", summary="Something from an old version")

    with translation.override("zh-hans"):
        assert describe(entry) == "Something from an old version"


def test_it_words_changes_in_english_as_the_stored_summary_says_them(home):
    (home / "memories").mkdir()
    (home / "memories" / "MEMORY.md").write_text("Old fact.", encoding="utf-8")
    quiet = {"stdout": io.StringIO(), "stderr": io.StringIO()}
    call_command("memory", "add", "memory", "New fact.", **quiet)
    call_command("memory", "remove", "memory", "Old fact", **quiet)
    staged = pending.stage(home, payload={"action": "add", "target": "memory", "content": "Staged",
                                          "old_text": None}, summary="add to memory: Staged")
    call_command("memory", "pending", "approve", staged["id"], **quiet)

    entries = list(AuditEntry.objects.order_by("pk"))
    with translation.override("en"):
        shown = [describe(entry) for entry in entries]

    assert len(entries) == 3
    assert shown[0] == entries[0].summary == "Added an entry to MEMORY.md"
    assert shown[1] == "Deleted 1 entry from MEMORY.md"
    assert shown[2] == entries[2].summary == f"Approved pending memory write {staged['id']}"


def test_it_shows_recorded_identifiers_as_words_of_the_readers_language(home):
    entry = record(user=None, channel="command", home=home, kind=Kind.API_TOKEN, summary="Created",
                   details={"action": "create", "token_id": 3, "name": "cron", "for_user": "owner"})

    with translation.override("zh-hans"):
        facts = {str(fact.label): fact.texts for fact in detail_facts(entry)}

    assert facts["操作"] == ["创建"]
    assert facts["令牌名称"] == ["cron"] and facts["代表的用户"] == ["owner"]
    assert json.dumps(entry.details) == '{"action": "create", "token_id": 3, "name": "cron", "for_user": "owner"}'

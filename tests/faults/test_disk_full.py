"""A disk that fills up in the middle of a save: an ENOSPC injected into the second write leaves
every previous file exactly as it was (no temp file left, nothing audited), and the user is told."""

from __future__ import annotations

import json

import pytest

from admin_panel.models import AuditEntry
from tests.bad_input.helpers import api_put, snapshot
from tests.faults.inject import Fault, leftovers

pytestmark = pytest.mark.django_db

OLD_ENV = "# mine\nHINDSIGHT_API_KEY=old-key\nOTHER=1\n"
OLD_CONFIG = {"mode": "local_external", "bank_id": "bank-old"}
SAVE = {"values": {"api_key": "new-key", "bank_id": "bank-new"}}


@pytest.fixture
def two_file_home(home):
    (home / ".env").write_text(OLD_ENV)
    (home / ".env").chmod(0o600)
    (home / "hindsight").mkdir()
    (home / "hindsight" / "config.json").write_text(json.dumps(OLD_CONFIG))
    return home


def _modes(home) -> dict[str, int]:
    return {str(p.relative_to(home)): p.stat().st_mode & 0o777 for p in home.rglob("*") if p.is_file()}


@pytest.mark.parametrize(("operation", "nth"), [("fsync", 2), ("replace", 2), ("fsync", 1), ("replace", 1)])
def test_it_keeps_the_previous_files_when_the_disk_fills_during_an_api_save(owner_client, two_file_home,
                                                                             monkeypatch, operation, nth):
    home = two_file_home
    before, modes = snapshot(home), _modes(home)
    fault = Fault(operation, home, nth).install(monkeypatch)

    response = api_put(owner_client, "/api/memory/providers/hindsight/config", SAVE)

    assert fault.fired, fault.calls
    assert response.status_code == 500
    assert response.json() == {"detail": "Internal server error"}
    assert snapshot(home) == before
    assert _modes(home) == modes
    assert leftovers(home) == []
    assert not AuditEntry.objects.exists()


def test_it_saves_normally_once_the_disk_has_room_again(owner_client, two_file_home, monkeypatch):
    home = two_file_home
    Fault("fsync", home, 2).install(monkeypatch)
    api_put(owner_client, "/api/memory/providers/hindsight/config", SAVE)
    monkeypatch.undo()

    response = api_put(owner_client, "/api/memory/providers/hindsight/config", SAVE)

    assert response.status_code == 200
    assert "HINDSIGHT_API_KEY=new-key" in (home / ".env").read_text()
    assert json.loads((home / "hindsight" / "config.json").read_text())["bank_id"] == "bank-new"


def test_it_tells_the_panel_user_that_nothing_was_saved(owner_client, home, monkeypatch):
    # openviking keeps some settings in .env and others in config.yaml: one save, two files.
    (home / ".env").write_text("OPENVIKING_ENDPOINT=http://old:1933\n")
    (home / "config.yaml").write_text("# keep\nmemory:\n  provider: ''\n")
    before = snapshot(home)
    fault = Fault("replace", home, 2).install(monkeypatch)

    response = owner_client.post("/providers/openviking/save/", {
        "v:endpoint": "http://new:1933", "o:endpoint": "http://old:1933",
        "v:use_ovcli_config": "true", "o:use_ovcli_config": "false"})

    assert fault.fired and len(set(fault.calls)) == 2, fault.calls
    assert response.status_code == 500
    assert "Nothing was saved: a write failed and every change was rolled back." in response.content.decode()
    assert snapshot(home) == before
    assert leftovers(home) == []
    assert not AuditEntry.objects.exists()


def test_it_keeps_memory_md_when_the_disk_fills_during_an_add(owner_client, home, monkeypatch):
    (home / "memories").mkdir()
    (home / "memories" / "MEMORY.md").write_text("Old fact.")
    before = snapshot(home)
    fault = Fault("write", home / "memories", 1).install(monkeypatch)

    response = owner_client.post("/memory/memory/add/", {"content": "New fact."})

    text = response.content.decode()
    assert fault.fired
    assert response.status_code < 500
    assert response.status_code == 409
    assert "could not be written; nothing was changed" in text and "The disk is full: nothing was changed." in text
    assert {k: v for k, v in snapshot(home).items() if not k.endswith(".lock")} == {
        k: v for k, v in before.items() if not k.endswith(".lock")}
    assert leftovers(home) == []
    assert not AuditEntry.objects.exists()


def test_it_keeps_config_yaml_when_the_disk_fills_during_memory_settings(owner_client, home, monkeypatch):
    (home / "config.yaml").write_text("# keep\nmemory:\n  memory_char_limit: 2200\n")
    before = snapshot(home)
    Fault("fsync", home, 1).install(monkeypatch)

    response = owner_client.post("/settings/", {"v:memory_char_limit": "3000", "o:memory_char_limit": "2200"})

    # A full disk is the server's failure (500), but answered with the settings page and a clear
    # message, never the bare error page.
    assert response.status_code == 500
    assert "Nothing was saved: a write failed and every change was rolled back." in response.content.decode()
    assert "Something went wrong" not in response.content.decode()
    assert snapshot(home) == before
    assert leftovers(home) == []


def test_it_keeps_the_files_when_the_disk_fills_during_a_revert(owner_client, owner, two_file_home, monkeypatch):
    from admin_panel.services import providers as provider_services

    home = two_file_home
    provider_services.save_provider_settings(user=owner, channel="panel", home=home, name="hindsight",
                                             values={"bank_id": "bank-new", "recall_budget": "high"})
    entry = AuditEntry.objects.get()
    before = snapshot(home)
    Fault("fsync", home, 1).install(monkeypatch)

    response = owner_client.post(f"/audit/{entry.pk}/revert/")

    assert "Nothing was reverted." in response.content.decode()
    assert "rolled back" in response.content.decode()
    assert snapshot(home) == before
    assert AuditEntry.objects.count() == 1


def test_it_answers_an_injected_permission_error_with_409_and_the_folder(owner_client, owner, two_file_home,
                                                                         monkeypatch):
    import errno

    from admin_panel.services import providers as provider_services

    home = two_file_home
    provider_services.save_provider_settings(user=owner, channel="panel", home=home, name="hindsight",
                                             values={"bank_id": "bank-new"})
    entry = AuditEntry.objects.get()
    before = snapshot(home)
    Fault("replace", home, 1, code=errno.EACCES).install(monkeypatch)
    api = api_put(owner_client, "/api/memory/providers/hindsight/config", SAVE)
    Fault("replace", home, 1, code=errno.EACCES).install(monkeypatch)
    revert = owner_client.post(f"/audit/{entry.pk}/revert/")

    assert api.status_code == 409
    assert api.json()["detail"].startswith("Nothing was saved: permission denied writing")
    assert revert.status_code == 409
    assert "permission denied writing" in revert.content.decode()
    assert snapshot(home) == before
    assert leftovers(home) == []

"""Reverting an audited provider-settings change: the normal validated save, refused when the
setting changed since, audited itself, staff only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from admin_panel.models import AuditEntry
from admin_panel.services import providers as provider_services

pytestmark = pytest.mark.django_db

SECRET = "hs-revert-SECRET-0042"


def _save(home: Path, user, name: str, values: dict, clear: tuple[str, ...] = (), channel: str = "panel") -> AuditEntry:
    before = AuditEntry.objects.count()
    provider_services.save_provider_settings(user=user, channel=channel, home=home, name=name, values=values,
                                             clear=list(clear))
    assert AuditEntry.objects.count() == before + 1, "the save must be audited"
    return AuditEntry.objects.order_by("-pk").first()


def _snapshot(home: Path) -> dict[str, bytes]:
    return {str(p.relative_to(home)): p.read_bytes() for p in sorted(home.rglob("*")) if p.is_file()}


def _hindsight(home: Path) -> dict:
    return json.loads((home / "hindsight" / "config.json").read_text())


def test_it_reverts_a_change_to_the_previous_values(owner_client, owner, home):
    _save(home, owner, "hindsight", {"bank_id": "bank-one", "recall_budget": "high"})
    second = _save(home, owner, "hindsight", {"bank_id": "bank-two", "recall_budget": "low"})

    response = owner_client.post(f"/audit/{second.pk}/revert/")

    assert response.status_code == 302
    assert _hindsight(home)["bank_id"] == "bank-one"
    assert _hindsight(home)["recall_budget"] == "high"
    revert = AuditEntry.objects.order_by("-pk").first()
    assert revert.kind == AuditEntry.Kind.REVERT
    assert revert.details["reverted_entry"] == second.pk
    assert revert.username == "owner" and revert.provider == "hindsight"
    assert {(row["key"], row["old"], row["new"]) for row in revert.details["changes"]} == {
        ("bank_id", "bank-two", "bank-one"), ("recall_budget", "low", "high")}
    assert response["Location"] == f"/audit/{revert.pk}/"


def test_it_removes_the_keys_a_change_created(owner_client, owner, home):
    _save(home, owner, "hindsight", {"bank_id": "bank-one"})
    second = _save(home, owner, "hindsight", {"bank_mission": "remember the build system"})

    owner_client.post(f"/audit/{second.pk}/revert/")

    assert "bank_mission" not in _hindsight(home)
    assert _hindsight(home)["bank_id"] == "bank-one"


def test_it_refuses_when_a_key_changed_since_and_writes_nothing(owner_client, owner, home):
    first = _save(home, owner, "hindsight", {"bank_id": "bank-one"})
    _save(home, owner, "hindsight", {"bank_id": "bank-two"})
    before = _snapshot(home)
    entries = AuditEntry.objects.count()

    response = owner_client.post(f"/audit/{first.pk}/revert/")

    html = response.content.decode()
    assert response.status_code == 409
    assert "bank_id changed since this change was made" in html
    assert "Nothing was reverted." in html
    assert _snapshot(home) == before
    assert AuditEntry.objects.count() == entries


def test_it_refuses_when_the_file_was_edited_by_hand_since(owner_client, owner, home):
    entry = _save(home, owner, "hindsight", {"bank_id": "bank-one"})
    data = _hindsight(home) | {"bank_id": "edited-by-hand"}
    (home / "hindsight" / "config.json").write_text(json.dumps(data))
    before = _snapshot(home)

    page = owner_client.get(f"/audit/{entry.pk}/").content.decode()
    response = owner_client.post(f"/audit/{entry.pk}/revert/")

    assert "changed since" in page and "Revert this change" not in page
    assert response.status_code == 409
    assert _snapshot(home) == before


def test_it_reverts_values_but_never_secrets_and_says_so(owner_client, owner, home):
    _save(home, owner, "hindsight", {"bank_id": "bank-one"})
    entry = _save(home, owner, "hindsight", {"bank_id": "bank-two", "api_key": SECRET})

    page = owner_client.get(f"/audit/{entry.pk}/").content.decode()
    response = owner_client.post(f"/audit/{entry.pk}/revert/", follow=True)

    assert "Secrets cannot be reverted" in page
    assert _hindsight(home)["bank_id"] == "bank-one"
    assert f"HINDSIGHT_API_KEY={SECRET}" in (home / ".env").read_text()
    assert "Secrets were not reverted" in response.content.decode()
    assert SECRET not in response.content.decode() and SECRET not in page


def test_it_offers_no_revert_for_a_change_of_secrets_only(owner_client, owner, home):
    entry = _save(home, owner, "hindsight", {"api_key": SECRET})
    before = _snapshot(home)

    page = owner_client.get(f"/audit/{entry.pk}/").content.decode()
    response = owner_client.post(f"/audit/{entry.pk}/revert/")

    assert "Revert this change" not in page
    assert response.status_code == 409
    assert "only touched secrets" in response.content.decode()
    assert _snapshot(home) == before


def test_it_refuses_to_revert_kinds_other_than_provider_settings(owner_client, owner, home):
    provider_services.save_provider_settings(user=owner, channel="panel", home=home, name="retaindb",
                                             values={"api_key": "rdb-key"})
    provider_services.activate_provider(user=owner, channel="panel", home=home, name="retaindb")
    activation = AuditEntry.objects.get(kind=AuditEntry.Kind.ACTIVATION)
    before = _snapshot(home)

    response = owner_client.post(f"/audit/{activation.pk}/revert/")

    assert response.status_code == 409
    assert "Only changes of provider settings can be reverted." in response.content.decode()
    assert _snapshot(home) == before


def test_it_refuses_a_viewer_and_writes_nothing(viewer_client, owner, home):
    _save(home, owner, "hindsight", {"bank_id": "bank-one"})
    entry = _save(home, owner, "hindsight", {"bank_id": "bank-two"})
    before = _snapshot(home)

    response = viewer_client.post(f"/audit/{entry.pk}/revert/")

    assert response.status_code == 403
    assert _snapshot(home) == before
    assert not AuditEntry.objects.filter(kind=AuditEntry.Kind.REVERT).exists()


def test_it_needs_the_csrf_token(client, owner, home):
    from django.test import Client

    _save(home, owner, "hindsight", {"bank_id": "bank-one"})
    entry = _save(home, owner, "hindsight", {"bank_id": "bank-two"})
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(owner)

    response = strict.post(f"/audit/{entry.pk}/revert/")

    assert response.status_code == 403
    assert _hindsight(home)["bank_id"] == "bank-two"


def test_it_answers_a_get_on_the_revert_address_with_405(owner_client, owner, home):
    entry = _save(home, owner, "hindsight", {"bank_id": "bank-one"})

    assert owner_client.get(f"/audit/{entry.pk}/revert/").status_code == 405


def test_it_shows_that_a_change_was_reverted_and_refuses_a_second_revert(owner_client, owner, home):
    _save(home, owner, "hindsight", {"bank_id": "bank-one"})
    entry = _save(home, owner, "hindsight", {"bank_id": "bank-two"})
    owner_client.post(f"/audit/{entry.pk}/revert/")
    revert = AuditEntry.objects.get(kind=AuditEntry.Kind.REVERT)

    page = owner_client.get(f"/audit/{entry.pk}/").content.decode()
    again = owner_client.post(f"/audit/{entry.pk}/revert/")

    assert f"reverted by change #{revert.pk}" in page
    assert again.status_code == 409
    assert AuditEntry.objects.filter(kind=AuditEntry.Kind.REVERT).count() == 1


def test_it_can_revert_a_revert(owner_client, owner, home):
    _save(home, owner, "hindsight", {"bank_id": "bank-one"})
    entry = _save(home, owner, "hindsight", {"bank_id": "bank-two"})
    owner_client.post(f"/audit/{entry.pk}/revert/")
    revert = AuditEntry.objects.get(kind=AuditEntry.Kind.REVERT)

    response = owner_client.post(f"/audit/{revert.pk}/revert/")

    assert response.status_code == 302
    assert _hindsight(home)["bank_id"] == "bank-two"


def test_it_reverts_a_change_made_through_the_api(owner_client, owner, home):
    _save(home, owner, "mem0", {"agent_id": "agent-one"}, channel="api")
    entry = _save(home, owner, "mem0", {"agent_id": "agent-two", "rerank": True}, channel="api")

    owner_client.post(f"/audit/{entry.pk}/revert/")

    data = json.loads((home / "mem0.json").read_text())
    assert data["agent_id"] == "agent-one"
    assert "rerank" not in data


def test_it_reverts_a_config_yaml_setting_and_keeps_the_rest_of_the_file(owner_client, owner, home):
    (home / "config.yaml").write_text("# my agent\nmodel: gpt\nmemory:\n  provider: ''\n")
    _save(home, owner, "byterover", {"auto_extract": False})
    entry = _save(home, owner, "byterover", {"auto_extract": True})

    owner_client.post(f"/audit/{entry.pk}/revert/")

    text = (home / "config.yaml").read_text()
    assert text.startswith("# my agent\nmodel: gpt\n")
    assert yaml.safe_load(text)["memory"]["byterover"]["auto_extract"] is False


def test_it_reverts_a_setting_stored_in_the_env_file_and_keeps_other_lines(owner_client, owner, home):
    (home / ".env").write_text("# keep me\nexport OTHER='x y'\n")
    entry = _save(home, owner, "retaindb", {"base_url": "https://rdb.example"})

    owner_client.post(f"/audit/{entry.pk}/revert/")

    assert (home / ".env").read_text() == "# keep me\nexport OTHER='x y'\n"


def test_it_reverts_a_honcho_host_block_value(owner_client, owner, home):
    (home / "honcho.json").write_text(json.dumps({"hosts": {"hermes": {"workspace": "ws-old"}}, "baseUrl": "http://h"}))
    entry = _save(home, owner, "honcho", {"workspace": "ws-new", "baseUrl": "http://other"})

    response = owner_client.post(f"/audit/{entry.pk}/revert/")

    data = json.loads((home / "honcho.json").read_text())
    assert response.status_code == 302
    assert data["hosts"]["hermes"]["workspace"] == "ws-old"
    assert data["baseUrl"] == "http://h"


def test_it_refuses_a_change_made_in_another_agent_home(owner_client, owner, home, tmp_path, settings):
    other = tmp_path / "elsewhere"
    other.mkdir()
    settings.HERMES_HOME = other
    _save(other, owner, "hindsight", {"bank_id": "bank-one"})
    entry = _save(other, owner, "hindsight", {"bank_id": "bank-two"})
    settings.HERMES_HOME = home

    response = owner_client.post(f"/audit/{entry.pk}/revert/")

    assert response.status_code == 409
    assert "another agent home" in response.content.decode()
    assert json.loads((other / "hindsight" / "config.json").read_text())["bank_id"] == "bank-two"


def test_it_refuses_when_the_old_value_no_longer_validates(owner_client, owner, home):
    (home / "hindsight").mkdir()
    (home / "hindsight" / "config.json").write_text(json.dumps({"recall_budget": "ultra"}))
    entry = _save(home, owner, "hindsight", {"recall_budget": "high"})
    before = _snapshot(home)

    response = owner_client.post(f"/audit/{entry.pk}/revert/")

    assert response.status_code == 400
    assert "Invalid value for &#x27;recall_budget&#x27;" in response.content.decode()
    assert _snapshot(home) == before


def test_it_refuses_when_the_settings_file_is_broken_now(owner_client, owner, home):
    _save(home, owner, "hindsight", {"bank_id": "bank-one"})
    entry = _save(home, owner, "hindsight", {"bank_id": "bank-two"})
    (home / "hindsight" / "config.json").write_text("{broken")
    before = _snapshot(home)

    response = owner_client.post(f"/audit/{entry.pk}/revert/")

    assert response.status_code == 409
    assert "is not valid JSON" in response.content.decode()
    assert _snapshot(home) == before

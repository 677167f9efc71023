"""Reverting an audited settings change (provider settings or the memory settings): the normal
validated save, refused when the setting changed since, audited itself, staff only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from admin_panel.models import AuditEntry
from admin_panel.selectors.audit import describe
from admin_panel.services import providers as provider_services
from admin_panel.services import revert as revert_service

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


def test_it_refuses_to_revert_kinds_other_than_settings_changes(owner_client, owner, home):
    provider_services.save_provider_settings(user=owner, channel="panel", home=home, name="retaindb",
                                             values={"api_key": "rdb-key"})
    provider_services.activate_provider(user=owner, channel="panel", home=home, name="retaindb")
    activation = AuditEntry.objects.get(kind=AuditEntry.Kind.ACTIVATION)
    before = _snapshot(home)

    page = owner_client.get(f"/audit/{activation.pk}/").content.decode()
    response = owner_client.post(f"/audit/{activation.pk}/revert/")

    assert "Revert this change" not in page
    assert response.status_code == 409
    assert "Only changes of provider settings and memory settings can be reverted." in response.content.decode()
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


# --- memory settings (the memory: section of config.yaml) -----------------------------------------

CONFIG = """# my agent's settings
model: gpt-5  # keep this comment
memory:
  # how much the agent may keep
  memory_char_limit: 2500   # tuned by hand
  user_char_limit: 1375
  nudge_interval: 10
tools:
  - web
"""


def _save_memory(home: Path, user, values: dict) -> AuditEntry:
    before = AuditEntry.objects.filter(kind=AuditEntry.Kind.MEMORY_SETTINGS).count()
    provider_services.save_memory_settings(user=user, channel="panel", home=home, values=values,
                                           expected_fingerprint=None)
    assert AuditEntry.objects.filter(kind=AuditEntry.Kind.MEMORY_SETTINGS).count() == before + 1
    return AuditEntry.objects.filter(kind=AuditEntry.Kind.MEMORY_SETTINGS).order_by("-pk").first()


def _memory(home: Path) -> dict:
    return yaml.safe_load((home / "config.yaml").read_text())["memory"]


def test_it_reverts_a_memory_char_limit_change_and_keeps_config_yaml_byte_for_byte(owner_client, owner, home):
    (home / "config.yaml").write_text(CONFIG)
    entry = _save_memory(home, owner, {"memory_char_limit": "4000"})
    assert _memory(home)["memory_char_limit"] == 4000

    page = owner_client.get(f"/audit/{entry.pk}/").content.decode()
    response = owner_client.post(f"/audit/{entry.pk}/revert/")

    assert "Revert this change" in page
    assert response.status_code == 302
    assert (home / "config.yaml").read_text() == CONFIG


def test_it_records_a_memory_settings_revert_with_who_and_what(owner_client, owner, home):
    (home / "config.yaml").write_text(CONFIG)
    entry = _save_memory(home, owner, {"memory_char_limit": "4000", "write_approval": "true"})

    response = owner_client.post(f"/audit/{entry.pk}/revert/", follow=True)

    revert = AuditEntry.objects.get(kind=AuditEntry.Kind.REVERT)
    assert (revert.username, revert.channel, revert.provider) == ("owner", "panel", "")
    assert revert.details["reverted_entry"] == entry.pk
    assert {(row["key"], row["old"], row["new"]) for row in revert.details["changes"]} == {
        ("memory_char_limit", 4000, 2500), ("write_approval", True, None)}
    assert describe(revert) == f"Reverted change #{entry.pk} of the memory settings: memory_char_limit, write_approval"
    assert "write_approval" not in _memory(home)
    assert f"Reverted change #{entry.pk} of the memory settings" in response.content.decode()
    listing = owner_client.get("/audit/?kind=revert").content.decode()
    assert f"Reverted change #{entry.pk} of the memory settings" in listing and "owner" in listing
    assert f"reverted by change #{revert.pk}" in owner_client.get(f"/audit/{entry.pk}/").content.decode()


def test_it_refuses_a_memory_settings_revert_when_the_key_changed_since(owner_client, owner, home):
    (home / "config.yaml").write_text(CONFIG)
    entry = _save_memory(home, owner, {"memory_char_limit": "4000", "nudge_interval": "5"})
    _save_memory(home, owner, {"nudge_interval": "7"})
    before = _snapshot(home)
    entries = AuditEntry.objects.count()

    page = owner_client.get(f"/audit/{entry.pk}/").content.decode()
    response = owner_client.post(f"/audit/{entry.pk}/revert/")

    html = response.content.decode()
    assert "Revert this change" not in page
    assert response.status_code == 409
    assert "nudge_interval changed since this change was made" in html
    assert "<p>nudge_interval changed since" in html  # only the key that changed is named
    assert "Nothing was reverted." in html
    assert _snapshot(home) == before
    assert AuditEntry.objects.count() == entries


@pytest.mark.parametrize("broken", ["memory: [unclosed\n", "- a list\n- at the top\n", "memory: just text\n"],
                         ids=["invalid-yaml", "top-level-list", "memory-not-a-mapping"])
def test_it_refuses_a_memory_settings_revert_when_config_yaml_is_broken(owner_client, owner, home, broken):
    (home / "config.yaml").write_text(CONFIG)
    entry = _save_memory(home, owner, {"memory_char_limit": "4000"})
    (home / "config.yaml").write_text(broken)
    before = _snapshot(home)

    page = owner_client.get(f"/audit/{entry.pk}/")
    response = owner_client.post(f"/audit/{entry.pk}/revert/")

    html = response.content.decode()
    assert page.status_code == 200 and "Revert this change" not in page.content.decode()
    assert 400 <= response.status_code < 500
    assert "config.yaml is not valid YAML" in html and "Nothing was reverted." in html
    assert _snapshot(home) == before
    assert not AuditEntry.objects.filter(kind=AuditEntry.Kind.REVERT).exists()


def test_it_refuses_a_viewer_a_memory_settings_revert(viewer_client, owner, home):
    (home / "config.yaml").write_text(CONFIG)
    entry = _save_memory(home, owner, {"memory_char_limit": "4000"})
    before = _snapshot(home)

    page = viewer_client.get(f"/audit/{entry.pk}/").content.decode()
    response = viewer_client.post(f"/audit/{entry.pk}/revert/")

    assert "Only staff can revert changes." in page and "Revert this change" not in page
    assert response.status_code == 403
    assert _snapshot(home) == before
    assert not AuditEntry.objects.filter(kind=AuditEntry.Kind.REVERT).exists()


def test_it_refuses_a_memory_settings_revert_when_a_change_lands_between_check_and_write(
    owner_client, owner, home, monkeypatch
):
    (home / "config.yaml").write_text(CONFIG)
    entry = _save_memory(home, owner, {"memory_char_limit": "4000"})
    checked = revert_service.build_memory_revert

    def check_then_someone_else_saves(**kwargs):
        plan = checked(**kwargs)
        provider_services.save_memory_settings(user=owner, channel="api", home=home, values={"user_char_limit": "999"},
                                               expected_fingerprint=None)
        return plan

    monkeypatch.setattr(revert_service, "build_memory_revert", check_then_someone_else_saves)
    response = owner_client.post(f"/audit/{entry.pk}/revert/")

    assert response.status_code == 409
    assert "The settings changed while reverting" in response.content.decode()
    assert _memory(home)["memory_char_limit"] == 4000 and _memory(home)["user_char_limit"] == 999
    assert not AuditEntry.objects.filter(kind=AuditEntry.Kind.REVERT).exists()


def test_it_removes_a_memory_setting_the_change_created_and_can_revert_the_revert(owner_client, owner, home):
    (home / "config.yaml").write_text(CONFIG)
    entry = _save_memory(home, owner, {"write_approval": "true"})

    owner_client.post(f"/audit/{entry.pk}/revert/")
    assert (home / "config.yaml").read_text() == CONFIG
    revert = AuditEntry.objects.get(kind=AuditEntry.Kind.REVERT)
    response = owner_client.post(f"/audit/{revert.pk}/revert/")

    assert response.status_code == 302
    assert _memory(home)["write_approval"] is True


def test_it_reverts_a_provider_change_through_the_activation_rules(owner_client, owner, home):
    (home / "config.yaml").write_text(CONFIG)
    provider_services.save_provider_settings(user=owner, channel="panel", home=home, name="retaindb",
                                             values={"api_key": "rdb-key"})
    _save_memory(home, owner, {"provider": "retaindb"})
    deactivated = _save_memory(home, owner, {"provider": ""})
    env = (home / ".env").read_text()
    kept = [line for line in env.splitlines(keepends=True) if "RETAINDB_API_KEY" not in line]
    (home / ".env").write_text("".join(kept))
    before = _snapshot(home)

    page = owner_client.get(f"/audit/{deactivated.pk}/").content.decode()
    refused = owner_client.post(f"/audit/{deactivated.pk}/revert/")

    assert "Revert this change" not in page
    assert refused.status_code == 409
    assert "Memory provider &#x27;retaindb&#x27; is not ready (needs config)" in refused.content.decode()
    assert _snapshot(home) == before

    (home / ".env").write_text(env)
    ready = owner_client.get(f"/audit/{deactivated.pk}/").content.decode()
    done = owner_client.post(f"/audit/{deactivated.pk}/revert/")

    assert "from built-in memory only back to retaindb" in ready and "Revert this change" in ready
    assert done.status_code == 302
    assert _memory(home)["provider"] == "retaindb"
    activation = AuditEntry.objects.filter(kind=AuditEntry.Kind.ACTIVATION).order_by("-pk").first()
    assert (activation.details, activation.username) == ({"old": "", "new": "retaindb"}, "owner")


def test_it_words_a_memory_settings_revert_in_chinese(owner_client, owner, home):
    from django.utils import translation

    (home / "config.yaml").write_text(CONFIG)
    entry = _save_memory(home, owner, {"memory_char_limit": "4000"})
    owner_client.post(f"/audit/{entry.pk}/revert/")
    revert = AuditEntry.objects.get(kind=AuditEntry.Kind.REVERT)

    with translation.override("zh-hans"):
        assert describe(revert) == f"已撤销记忆设置的修改 #{entry.pk}：memory_char_limit"

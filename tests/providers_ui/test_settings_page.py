"""The memory settings page: the memory: section of config.yaml, and the secret-store choice."""

from __future__ import annotations

import pytest
import yaml

from admin_panel.models import AuditEntry, HomePreference
from tests.providers_ui.browserless import as_post, form_fields
from tests.providers_ui.helpers import write

pytestmark = pytest.mark.django_db

URL = "/settings/"
CONFIG = """\
_config_version: 33
# The agent's own comment
model: gpt-x   # trailing comment
memory:
  memory_enabled: true
  memory_char_limit: 2200
other: [1, 2]
"""


def fields_of(client):
    html = client.get(URL).content.decode()
    fields = form_fields(html, URL)
    # The page holds two forms posting to the same URL: keep the memory one.
    assert ("action", "memory") in fields
    return html, fields


def test_it_saves_changed_keys_natively_and_keeps_every_other_key_and_comment(owner_client, home):
    config = write(home / "config.yaml", CONFIG)
    _html, fields = fields_of(owner_client)

    response = owner_client.post(URL, as_post(fields, **{"v:memory_char_limit": "3000", "v:write_approval": "true"}))

    assert response.status_code == 302
    text = config.read_text()
    data = yaml.safe_load(text)
    assert data["memory"] == {"memory_enabled": True, "memory_char_limit": 3000, "write_approval": True}
    assert data["other"] == [1, 2] and data["_config_version"] == 33
    assert "# The agent's own comment" in text and "# trailing comment" in text
    entry = AuditEntry.objects.get(kind=AuditEntry.Kind.MEMORY_SETTINGS)
    assert {"key": "memory_char_limit", "old": 2200, "new": 3000} in entry.details["changes"]


def test_it_rejects_invalid_values_and_writes_nothing(owner_client, home):
    config = write(home / "config.yaml", CONFIG)
    _html, fields = fields_of(owner_client)

    response = owner_client.post(URL, as_post(fields, **{"v:memory_char_limit": "lots", "v:nudge_interval": "-"}))

    html = response.content.decode()
    assert response.status_code == 400
    assert "Nothing was saved" in html and 'value="lots"' in html
    assert config.read_text() == CONFIG


def test_it_refuses_to_activate_a_provider_missing_its_secrets_from_the_settings_page(owner_client, home):
    config = write(home / "config.yaml", CONFIG)
    _html, fields = fields_of(owner_client)

    response = owner_client.post(URL, as_post(fields, **{"v:provider": "supermemory"}))

    assert response.status_code == 400
    assert "is not ready (needs config)" in response.content.decode()
    assert config.read_text() == CONFIG


def test_it_refuses_a_save_when_config_yaml_changed_since_the_page_loaded(owner_client, home):
    config = write(home / "config.yaml", CONFIG)
    _html, fields = fields_of(owner_client)
    changed = CONFIG.replace("memory_char_limit: 2200", "memory_char_limit: 2500")
    config.write_text(changed)

    response = owner_client.post(URL, as_post(fields, **{"v:user_char_limit": "1400"}))

    assert response.status_code == 409
    assert "Changed elsewhere" in response.content.decode()
    assert config.read_text() == changed


def test_it_shows_an_unparseable_config_and_disables_saving(owner_client, home):
    write(home / "config.yaml", "memory: [unclosed\n")

    html = owner_client.get(URL).content.decode()

    assert "config.yaml is not valid YAML" in html and "Saving is disabled" in html
    assert "Save memory settings" not in html


def test_it_creates_a_missing_config_yaml_with_only_the_changed_key(owner_client, home):
    _html, fields = fields_of(owner_client)

    owner_client.post(URL, as_post(fields, **{"v:user_profile_enabled": "false"}))

    data = yaml.safe_load((home / "config.yaml").read_text())
    assert data["memory"] == {"user_profile_enabled": False}
    assert data["_config_version"] == 33


def test_it_stores_the_secret_store_choice_per_home(owner_client, home, dict_keyring):
    response = owner_client.post(URL, {"action": "secret_store", "secret_store": "keyring"})

    assert response.status_code == 302
    assert HomePreference.objects.get(key="secret_store").value == "keyring"
    assert 'value="keyring" checked' in owner_client.get(URL).content.decode()
    assert owner_client.post(URL, {"action": "secret_store", "secret_store": "disk"}).status_code == 302
    assert HomePreference.objects.get(key="secret_store").value == "keyring"


def test_it_lets_viewers_see_but_not_save(viewer_client, home):
    write(home / "config.yaml", CONFIG)

    html = viewer_client.get(URL).content.decode()

    assert "Save memory settings" not in html
    assert viewer_client.post(URL, {"action": "memory", "v:memory_char_limit": "1"}).status_code == 403
    assert (home / "config.yaml").read_text() == CONFIG

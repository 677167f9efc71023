"""Choosing the keyring is checked first, everywhere: the Settings page, ``secrets store`` and
``PANEL_SECRET_STORE`` at start-up. A keyring locked later gives the same message and writes nothing."""

from __future__ import annotations

import io
from pathlib import Path

import keyring
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from keyring.backends import SecretService, fail

from admin_panel.models import AuditEntry, HomePreference
from admin_panel.services.providers import set_secret_store
from provider_schemas import keyring_service
from tests.providers_ui.browserless import as_post, form_fields
from tests.providers_ui.helpers import snapshot_files, write

pytestmark = pytest.mark.django_db

URL = "/settings/"


@pytest.fixture
def fail_keyring():
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    yield
    keyring.set_keyring(previous)


@pytest.fixture
def unreachable_keyring(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The Secret Service backend on a machine whose session bus is gone (no service to talk to)."""
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", f"unix:path={tmp_path / 'gone'}")
    previous = keyring.get_keyring()
    keyring.set_keyring(SecretService.Keyring())
    yield
    keyring.set_keyring(previous)


def _store_radio(html: str) -> str:
    start = html.index('value="keyring"')
    return html[html.rindex("<input", 0, start) : html.index(">", start) + 1]


def test_it_shows_the_keyring_unavailable_with_the_reason_before_anyone_clicks(owner_client, home, fail_keyring):
    html = owner_client.get(URL).content.decode()

    assert " disabled" in _store_radio(html)
    assert 'aria-describedby="keyring-problem"' in _store_radio(html)
    assert "Unavailable on this machine." in html
    assert "no keyring service was found on this machine" in html and "keyring.backends.fail" not in html


@pytest.mark.parametrize("backend", ["fail_keyring", "unreachable_keyring"])
def test_it_refuses_the_switch_without_a_usable_backend_and_changes_nothing(owner_client, home, backend, request):
    request.getfixturevalue(backend)

    response = owner_client.post(URL, {"action": "secret_store", "secret_store": "keyring"})

    html = response.content.decode()
    assert response.status_code == 503
    assert "The secret store was not changed." in html
    assert "The system keyring cannot be used" in html
    assert not HomePreference.objects.filter(key="secret_store").exists()
    assert not AuditEntry.objects.exists()


def test_it_refuses_the_switch_while_the_real_collection_is_locked(owner_client, home, real_keyring):
    real_keyring.lock()

    response = owner_client.post(URL, {"action": "secret_store", "secret_store": "keyring"})

    html = response.content.decode()
    assert response.status_code == 503
    assert "the keyring is locked" in html
    assert "gnome-keyring or KWallet" in html
    assert not HomePreference.objects.filter(key="secret_store").exists()
    real_keyring.unlock()
    assert real_keyring.items() == {}


def test_it_switches_to_a_real_unlocked_secret_service(owner_client, home, real_keyring):
    html = owner_client.get(URL).content.decode()
    assert " disabled" not in _store_radio(html) and "Unavailable on this machine." not in html

    response = owner_client.post(URL, {"action": "secret_store", "secret_store": "keyring"})

    assert response.status_code == 302
    assert HomePreference.objects.get(key="secret_store").value == "keyring"
    assert real_keyring.items() == {}  # the probe entry is gone again


def test_it_says_why_a_provider_save_fails_once_the_keyring_is_locked_and_writes_nothing(
    owner_client, home, real_keyring
):
    write(home / ".env", "# keep me\nOTHER=1\n")
    set_secret_store(home=home, store="keyring")
    page = owner_client.get("/providers/hindsight/").content.decode()
    fields = form_fields(page, "/providers/hindsight/review/")
    reviewed = owner_client.post(
        "/providers/hindsight/review/",
        as_post(fields, **{"secret:api_key": "replace", "new:api_key": "hs-locked-value", "v:mode": "cloud"}),
    )
    save_fields = form_fields(reviewed.content.decode(), "/providers/hindsight/save/")
    before = snapshot_files(home)
    real_keyring.lock()

    saved = owner_client.post("/providers/hindsight/save/", as_post(save_fields), follow=True)

    html = saved.content.decode()
    assert "Nothing was saved." in html
    assert "the keyring is locked" in html
    assert "Traceback" not in html and "hs-locked-value" not in html
    assert snapshot_files(home) == before
    real_keyring.unlock()
    assert (keyring_service(home), "HINDSIGHT_API_KEY") not in real_keyring.items()
    assert not AuditEntry.objects.filter(kind=AuditEntry.Kind.PROVIDER_SETTINGS).exists()


def test_it_shows_and_switches_the_store_from_the_command_line(home, real_keyring):
    out = io.StringIO()
    call_command("secrets", "store", stdout=out)
    assert "go to the .env file (env_file)" in out.getvalue()
    assert "The keyring (keyring.backends.SecretService.Keyring) is usable." in out.getvalue()

    call_command("secrets", "store", "keyring", stdout=out)

    assert HomePreference.objects.get(key="secret_store").value == "keyring"
    entry = AuditEntry.objects.get(kind=AuditEntry.Kind.SECRET_STORE)
    assert (entry.channel, entry.details) == ("command", {"old": "env_file", "new": "keyring"})


def test_it_refuses_the_command_line_switch_to_a_locked_keyring(home, real_keyring):
    real_keyring.lock()

    with pytest.raises(CommandError, match="the keyring is locked"):
        call_command("secrets", "store", "keyring", stdout=io.StringIO())
    out = io.StringIO()
    call_command("secrets", "store", stdout=out)
    assert "The keyring cannot be used" in out.getvalue() and "the keyring is locked" in out.getvalue()

    assert not HomePreference.objects.filter(key="secret_store").exists()


def test_it_refuses_to_start_with_panel_secret_store_keyring_when_the_keyring_fails(
    home, settings, fail_keyring, monkeypatch: pytest.MonkeyPatch
):
    from admin_panel.management.commands import serve

    settings.PANEL_SECRET_STORE = "keyring"
    monkeypatch.setattr(serve, "bind_socket", lambda *a, **kw: pytest.fail("the server must not start"))

    with pytest.raises(CommandError, match=r"PANEL_SECRET_STORE=keyring is refused.*keyring\.backends\.fail"):
        call_command("serve", stdout=io.StringIO(), stderr=io.StringIO())

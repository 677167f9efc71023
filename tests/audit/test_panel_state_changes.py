"""Changes to the panel's own state are audited too: the secret-store choice, API tokens created
and revoked by the management command, and the first account made with the sign-in link. Each
entry says who, through which channel and what; none holds a token or a secret."""

from __future__ import annotations

import getpass
import io
import json

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import translation

from admin_panel.models import ApiToken, AuditEntry, token_digest
from admin_panel.selectors.audit import describe
from admin_panel.services.audit import command_username
from admin_panel.services.sign_in_links import create_sign_in_link
from tests.audit.entries import latest_entry

pytestmark = pytest.mark.django_db

Kind = AuditEntry.Kind


def _export(client, fmt: str) -> str:
    response = client.get(f"/audit/?format={fmt}")
    assert response.status_code == 200
    return b"".join(response.streaming_content).decode("utf-8")


def _create_token(*, user: str = "owner", name: str = "backup-script") -> tuple[str, ApiToken]:
    out = io.StringIO()
    call_command("api_token", "create", "--user", user, "--name", name, stdout=out, stderr=io.StringIO())
    token = out.getvalue().strip()
    return token, ApiToken.objects.get(token_digest=token_digest(token))


def test_it_audits_the_secret_store_choice_with_who_and_both_stores(owner_client, home, dict_keyring):
    response = owner_client.post("/settings/", {"action": "secret_store", "secret_store": "keyring"})

    entry = latest_entry()
    assert response.status_code == 302
    assert (entry.kind, entry.channel, entry.username, entry.home) == (Kind.SECRET_STORE, "panel", "owner", str(home))
    assert entry.details == {"old": "env_file", "new": "keyring"}


def test_it_records_nothing_when_the_store_already_in_use_is_chosen_again(owner_client, home):
    owner_client.post("/settings/", {"action": "secret_store", "secret_store": "env_file"})

    assert not AuditEntry.objects.filter(kind=Kind.SECRET_STORE).exists()


def test_it_records_nothing_for_a_refused_store_choice(owner_client, viewer, home):
    owner_client.post("/settings/", {"action": "secret_store", "secret_store": "clipboard"})
    viewer_client = Client()
    viewer_client.force_login(viewer)
    viewer_client.post("/settings/", {"action": "secret_store", "secret_store": "keyring"})

    assert not AuditEntry.objects.exists()


def test_it_audits_an_api_token_created_by_the_command_without_the_token(owner, home):
    token, created = _create_token()

    entry = latest_entry()
    assert (entry.kind, entry.channel, entry.user, entry.username) == (Kind.API_TOKEN, "command", None,
                                                                       getpass.getuser())
    assert entry.details == {"action": "create", "token_id": created.pk, "name": "backup-script",
                             "for_user": "owner"}
    stored = json.dumps(entry.details) + entry.summary
    assert token not in stored and token_digest(token) not in stored and token[:8] not in stored


def test_it_audits_an_api_token_revoked_by_the_command(owner, home):
    _token, created = _create_token(name="old-cron")

    call_command("api_token", "revoke", str(created.pk), stdout=io.StringIO())

    entry = latest_entry()
    assert (entry.kind, entry.channel, entry.username) == (Kind.API_TOKEN, "command", getpass.getuser())
    assert entry.details == {"action": "revoke", "token_id": created.pk, "name": "old-cron", "for_user": "owner"}


def test_it_records_nothing_when_a_revoke_finds_no_active_token(owner, home):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError):
        call_command("api_token", "revoke", "999", stdout=io.StringIO())
    call_command("api_token", "list", stdout=io.StringIO())

    assert not AuditEntry.objects.exists()


def test_it_never_exports_a_token_in_json_lines_or_csv(owner_client, home):
    token, _created = _create_token()

    exports = _export(owner_client, "jsonl") + _export(owner_client, "csv")

    assert '"kind": "api_token"' in exports and "api_token" in exports.splitlines()[-1]
    assert token not in exports and token_digest(token) not in exports


def test_it_audits_the_first_account_made_with_the_sign_in_link(client, home):
    assert client.get(f"/accounts/first-run/{create_sign_in_link()}/").status_code == 302
    password = "a long and new passphrase"

    client.post("/accounts/first-run/", {"username": "dana", "password1": password, "password2": password})

    entry = latest_entry()
    assert (entry.kind, entry.channel, entry.username, entry.user.get_username()) == (Kind.ACCOUNT, "panel", "dana",
                                                                                     "dana")
    assert entry.details == {"action": "create", "account": "dana", "staff": True}
    assert password not in json.dumps(entry.details) + entry.summary


def test_it_names_the_system_account_when_the_system_cannot(monkeypatch):
    def no_account() -> str:
        raise KeyError("uid not found")

    monkeypatch.setattr(getpass, "getuser", no_account)

    assert command_username() == ""


def test_it_offers_the_new_kinds_as_filters_and_filters_by_them(owner_client, owner, home):
    _create_token()
    owner_client.post("/settings/", {"action": "secret_store", "secret_store": "keyring"})

    page = owner_client.get("/audit/").content.decode()
    only_tokens = owner_client.get("/audit/?kind=api_token").content.decode()

    for kind in ("secret_store", "api_token", "account"):
        assert f'<option value="{kind}"' in page
    assert "Created API token" in only_tokens and "New secrets go to" not in only_tokens


def test_it_words_new_kinds_in_the_readers_language_and_keeps_english_for_exports(owner_client, home, dict_keyring):
    owner_client.post("/settings/", {"action": "secret_store", "secret_store": "keyring"})
    entry = latest_entry()

    with translation.override("zh-hans"):
        shown = describe(entry)
    page = owner_client.get(f"/audit/{entry.pk}/", HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()

    assert entry.summary == "New secrets go to: keyring (before: env_file)"
    assert "New secrets" not in shown and "keyring" not in shown
    assert shown in page
    assert json.loads(_export(owner_client, "jsonl").splitlines()[0])["summary"] == entry.summary


def test_it_audits_an_account_made_with_createsuperuser(home, monkeypatch):
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", "a long and new passphrase")
    call_command("createsuperuser", "--noinput", "--username", "ops", "--email", "ops@example.org",
                 stdout=io.StringIO())

    entry = latest_entry()
    assert (entry.kind, entry.channel, entry.username) == (Kind.ACCOUNT, "command", command_username())
    assert entry.details == {"action": "create", "account": "ops", "staff": True, "via": "command"}
    assert "passphrase" not in json.dumps(entry.details) + entry.summary
    with translation.override("zh-hans"):
        assert "ops" in describe(entry) and "Created" not in describe(entry)


def test_it_audits_a_password_changed_with_changepassword(owner, monkeypatch):
    answers = iter(["another long passphrase", "another long passphrase"])
    monkeypatch.setattr("django.contrib.auth.management.commands.changepassword.getpass.getpass",
                        lambda prompt="": next(answers))
    call_command("changepassword", owner.get_username(), stdout=io.StringIO())

    entry = latest_entry()
    assert (entry.kind, entry.channel) == (Kind.ACCOUNT, "command")
    assert entry.details == {"action": "password", "account": owner.get_username(), "staff": True,
                             "via": "command"}
    assert "passphrase" not in json.dumps(entry.details) + entry.summary
    owner.refresh_from_db()
    assert owner.check_password("another long passphrase")


def test_it_records_nothing_when_changepassword_gives_up(owner, monkeypatch):
    monkeypatch.setattr("django.contrib.auth.management.commands.changepassword.getpass.getpass",
                        lambda prompt="": "x")  # too short, three times: the command fails

    with pytest.raises(Exception, match="Aborting"):
        call_command("changepassword", owner.get_username(), stdout=io.StringIO(), stderr=io.StringIO())

    assert not AuditEntry.objects.filter(kind=Kind.ACCOUNT).exists()

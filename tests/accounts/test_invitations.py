"""Invitations and password-reset links: the one-time links of the first run, for new people."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from admin_panel.models import AuditEntry, SignInLink, token_digest
from admin_panel.permissions import ADMIN, VIEWER, can_change, can_view, role_of
from admin_panel.services import accounts
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "a long and new passphrase"


def _sign_up(client: Client, token: str, username: str = "dana"):
    opened = client.get(f"/accounts/invitation/{token}/")
    return opened, client.post("/accounts/invitation/", {
        "username": username, "password1": NEW_PASSWORD, "password2": NEW_PASSWORD})


def _invite(owner, role: str) -> str:
    return accounts.invite(role=role, actor=owner, channel="panel")[1]


@pytest.mark.parametrize("role", [ADMIN, VIEWER])
def test_it_signs_the_invitee_in_with_the_role_the_invitation_gave(home, owner, client, role):
    token = _invite(owner, role)

    opened, signed_up = _sign_up(client, token)

    assert opened.status_code == 302 and opened["Location"] == "/accounts/invitation/"
    assert signed_up.status_code == 302
    dana = get_user_model().objects.get(username="dana")
    assert role_of(dana) == role
    assert can_change(dana) is (role == ADMIN) and can_view(dana)
    assert client.get("/account/").context["user"] == dana
    entry = AuditEntry.objects.filter(kind=AuditEntry.Kind.INVITATION).latest("pk")
    assert entry.details == {"action": "accept", "link_id": SignInLink.objects.get().pk, "role": role,
                             "account": "dana"}


def test_it_accepts_an_invitation_only_once(home, owner, client):
    token = _invite(owner, VIEWER)
    _sign_up(client, token)

    again = Client()
    opened, signed_up = _sign_up(again, token, username="eve")

    assert opened.status_code == 403
    assert signed_up.status_code == 403
    assert not get_user_model().objects.filter(username="eve").exists()


def test_it_lets_only_one_of_two_browsers_holding_the_same_invitation_sign_up(home, owner):
    token = _invite(owner, VIEWER)
    first, second = Client(), Client()
    assert first.get(f"/accounts/invitation/{token}/").status_code == 302
    assert second.get(f"/accounts/invitation/{token}/").status_code == 302

    ok = first.post("/accounts/invitation/", {"username": "dana", "password1": NEW_PASSWORD,
                                              "password2": NEW_PASSWORD})
    late = second.post("/accounts/invitation/", {"username": "eve", "password1": NEW_PASSWORD,
                                                 "password2": NEW_PASSWORD})

    assert ok.status_code == 302 and late.status_code == 403
    assert list(get_user_model().objects.exclude(username="owner").values_list("username", flat=True)) == ["dana"]


def test_it_refuses_an_invitation_after_24_hours(home, owner, client):
    token = _invite(owner, ADMIN)
    SignInLink.objects.update(created_at=timezone.now() - timedelta(hours=24, seconds=1))

    opened, signed_up = _sign_up(client, token)

    assert opened.status_code == 403 and signed_up.status_code == 403
    assert "24 hours" in opened.content.decode()
    assert not get_user_model().objects.filter(username="dana").exists()


def test_it_refuses_an_invitation_that_expires_between_opening_and_signing_up(home, owner, client):
    token = _invite(owner, ADMIN)
    assert client.get(f"/accounts/invitation/{token}/").status_code == 302
    SignInLink.objects.update(created_at=timezone.now() - timedelta(hours=25))

    response = client.post("/accounts/invitation/", {"username": "dana", "password1": NEW_PASSWORD,
                                                     "password2": NEW_PASSWORD})

    assert response.status_code == 403
    assert not get_user_model().objects.filter(username="dana").exists()


@pytest.mark.parametrize("tamper", [lambda t: t[:-1] + ("A" if t[-1] != "A" else "B"), lambda t: t + "x",
                                    lambda t: t[1:], lambda t: "x" * 300])
def test_it_refuses_a_tampered_invitation(home, owner, client, tamper):
    token = _invite(owner, ADMIN)

    opened, signed_up = _sign_up(client, tamper(token))

    assert opened.status_code == 403 and signed_up.status_code == 403
    assert SignInLink.objects.get().used_at is None


def test_it_does_not_take_a_first_run_link_as_an_invitation_or_the_other_way_round(home, owner, client):
    from admin_panel.services.sign_in_links import create_sign_in_link

    first_run = create_sign_in_link()
    invitation = _invite(owner, ADMIN)

    assert client.get(f"/accounts/invitation/{first_run}/").status_code == 403
    assert client.get(f"/accounts/first-run/{invitation}/").status_code == 403


def test_it_stores_only_a_digest_of_the_link_and_logs_it_nowhere(home, owner, capsys, caplog):
    caplog.set_level(logging.DEBUG)

    call_command("user", "invite", "--role", "viewer")

    out, err = capsys.readouterr()
    link = out.strip()
    token = link.rsplit("/", 2)[-2]
    assert link == f"http://127.0.0.1:8000/accounts/invitation/{token}/"
    assert SignInLink.objects.get().token_digest == token_digest(token)
    assert token not in err and token not in caplog.text
    assert token not in str(list(AuditEntry.objects.values()))
    client = Client()
    _sign_up(client, token)
    assert token not in caplog.text
    assert token not in str(list(AuditEntry.objects.values()))


def test_it_keeps_an_opened_link_unused_until_the_form_is_sent(home, owner, client):
    token = _invite(owner, VIEWER)

    client.get(f"/accounts/invitation/{token}/")
    bad = client.post("/accounts/invitation/", {"username": "dana", "password1": "x", "password2": "y"})

    assert bad.status_code == 200 and SignInLink.objects.get().used_at is None
    assert _sign_up(Client(), token)[1].status_code == 302


# --- password-reset links ----------------------------------------------------------------------------


def test_it_sets_a_new_password_through_a_reset_link_once_and_ends_the_old_sessions(home, owner, viewer):
    old_session = Client()
    old_session.force_login(viewer)
    token = accounts.create_reset_link(account=viewer, actor=owner, channel="panel")[1]
    browser = Client()

    assert browser.get(f"/accounts/reset/{token}/").status_code == 302
    done = browser.post("/accounts/reset/", {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})

    assert done.status_code == 302
    viewer.refresh_from_db()
    assert viewer.check_password(NEW_PASSWORD)
    assert old_session.get("/providers/").status_code == 302  # signed out: sent to the sign-in page
    assert browser.get("/providers/").status_code == 200
    assert Client().get(f"/accounts/reset/{token}/").status_code == 403
    assert {e.details["action"] for e in AuditEntry.objects.filter(kind=AuditEntry.Kind.RESET_LINK)} == {
        "create", "use"}


def test_it_refuses_a_reset_link_after_24_hours_or_for_a_deactivated_account(home, owner, viewer, client):
    expired = accounts.create_reset_link(account=viewer, actor=owner, channel="panel")[1]
    SignInLink.objects.update(created_at=timezone.now() - timedelta(days=2))
    fresh = accounts.create_reset_link(account=viewer, actor=owner, channel="panel")[1]
    accounts.deactivate(account=viewer, actor=owner, channel="panel")

    assert client.get(f"/accounts/reset/{expired}/").status_code == 403
    assert client.get(f"/accounts/reset/{fresh}/").status_code == 403
    viewer.refresh_from_db()
    assert viewer.check_password(PASSWORD)


def test_it_redacts_a_spent_links_token_from_the_refusal_django_logs(home, owner, client, caplog):
    from admin_panel.logging_filters import RedactSecretsFilter

    invitation = _invite(owner, VIEWER)
    reset = accounts.create_reset_link(account=owner, actor=owner, channel="panel")[1]
    SignInLink.objects.update(used_at=timezone.now())
    caplog.set_level(logging.WARNING, logger="django.request")

    client.get(f"/accounts/invitation/{invitation}/")
    client.get(f"/accounts/reset/{reset}/")

    refusals = [r for r in caplog.records if r.name == "django.request"]
    assert len(refusals) == 2
    for record in refusals:
        RedactSecretsFilter().filter(record)  # what the console handler does before it writes
    written = "\n".join(r.getMessage() for r in refusals)
    assert invitation not in written and reset not in written
    assert "/accounts/invitation/[redacted]/" in written

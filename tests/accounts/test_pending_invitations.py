"""Pending invitations on the People page: an admin sees who invited whom as what and until when
(never the link), and can withdraw one; a withdrawn link says so and creates no account."""

from __future__ import annotations

import re
from datetime import UTC, timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from admin_panel.models import AuditEntry, SignInLink
from admin_panel.selectors.audit import describe
from admin_panel.services import accounts

pytestmark = pytest.mark.django_db

PASSPHRASE = "a long and new passphrase"


def _invite(owner, role: str = "viewer") -> tuple[SignInLink, str]:
    return accounts.invite(role=role, actor=owner, channel="panel")


def _revoke(client: Client, link: SignInLink, **extra: str):
    return client.post(f"/people/invitations/{link.pk}/revoke/", {"confirmed": "1", **extra})


def _sign_up(client: Client, token: str):
    opened = client.get(f"/accounts/invitation/{token}/")
    return opened, client.post("/accounts/invitation/", {"username": "dana", "password1": PASSPHRASE,
                                                         "password2": PASSPHRASE})


def _pending_rows(html: str) -> list[str]:
    section = html.split('id="invitations-title"', 1)[1].split("</section>", 1)[0]
    return [re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", row)).strip() for row in section.split("<tr>")[2:]]


def test_it_lists_pending_invitations_with_inviter_role_creation_and_expiry_but_never_the_link(
    home, owner_client, owner, capsys
):
    link, token = _invite(owner, "admin")
    call_command("user", "invite", "--role", "viewer")
    by_command = SignInLink.objects.latest("pk")
    capsys.readouterr()

    response = owner_client.get("/people/")

    html = response.content.decode()
    rows = _pending_rows(html)
    created = link.created_at.astimezone(UTC)
    expires = created + timedelta(hours=24)
    # Moments in the panel's one format: the exact time on hover and for screen readers.
    assert rows[0].startswith(f"#{link.pk} Admin owner ") and rows[0].endswith(" Withdraw")
    assert f'datetime="{created:%Y-%m-%dT%H:%M:%S}+00:00"' in html
    assert f'datetime="{expires:%Y-%m-%dT%H:%M:%S}+00:00"' in html
    assert f"{expires:%H:%M:%S} UTC" in rows[0]
    assert rows[1].startswith(f"#{by_command.pk} Viewer {AuditEntry.objects.latest('pk').username} ")
    assert token not in html and link.token_digest not in html and by_command.token_digest not in html
    assert "/accounts/invitation/" not in html


def test_it_leaves_used_expired_withdrawn_and_reset_links_off_the_pending_list(home, owner_client, owner):
    used = _invite(owner)[1]
    _sign_up(Client(), used)
    expired = _invite(owner)[0]
    SignInLink.objects.filter(pk=expired.pk).update(created_at=timezone.now() - timedelta(hours=24, seconds=1))
    withdrawn = _invite(owner)[0]
    accounts.revoke_invitation(link=withdrawn, actor=owner, channel="panel")
    accounts.create_reset_link(account=owner, actor=owner, channel="panel")
    pending = _invite(owner)[0]

    html = owner_client.get("/people/").content.decode()

    assert [row.split()[0] for row in _pending_rows(html)] == [f"#{pending.pk}"]


def test_it_says_so_when_no_invitation_is_pending(home, owner_client):
    assert "No invitation is waiting to be used." in owner_client.get("/people/").content.decode()


def test_it_asks_before_withdrawing_and_withdraws_nothing_until_confirmed(home, owner_client, owner):
    link, token = _invite(owner)

    response = owner_client.post(f"/people/invitations/{link.pk}/revoke/")

    html = response.content.decode()
    assert response.status_code == 200
    assert f"Withdraw invitation #{link.pk} for a new Viewer?" in html
    assert 'name="confirmed" value="1"' in html and "csrfmiddlewaretoken" in html
    link.refresh_from_db()
    assert link.revoked_at is None
    assert _sign_up(Client(), token)[1].status_code == 302


def test_it_withdraws_an_invitation_audits_it_and_the_link_then_says_it_was_withdrawn(home, owner_client, owner):
    link, token = _invite(owner, "admin")

    response = _revoke(owner_client, link)

    assert response.status_code == 302 and response["Location"] == "/people/"
    link.refresh_from_db()
    assert link.revoked_at is not None and link.used_at is None
    entry = AuditEntry.objects.latest("pk")
    assert (entry.kind, entry.username, entry.channel) == (AuditEntry.Kind.INVITATION, "owner", "panel")
    assert entry.details == {"action": "revoke", "link_id": link.pk, "role": "admin"}
    assert describe(entry) == f"Withdrew invitation #{link.pk} (a new Admin)"
    assert token not in str(list(AuditEntry.objects.values()))
    assert "The invitation for a new Admin is withdrawn" in owner_client.get("/people/").content.decode()

    opened, signed_up = _sign_up(Client(), token)
    assert opened.status_code == 403 and signed_up.status_code == 403
    assert "This invitation was withdrawn" in opened.content.decode()
    assert not get_user_model().objects.filter(username="dana").exists()


def test_it_refuses_a_sign_up_whose_invitation_was_withdrawn_after_the_link_was_opened(home, owner_client, owner):
    link, token = _invite(owner)
    invitee = Client()
    assert invitee.get(f"/accounts/invitation/{token}/").status_code == 302

    _revoke(owner_client, link)
    response = invitee.post("/accounts/invitation/", {"username": "dana", "password1": PASSPHRASE,
                                                      "password2": PASSPHRASE})

    assert response.status_code == 403
    assert "This invitation was withdrawn" in response.content.decode()
    assert not get_user_model().objects.filter(username="dana").exists()


def test_it_still_calls_an_expired_or_used_invitation_not_valid_rather_than_withdrawn(home, owner):
    used = _invite(owner)[1]
    _sign_up(Client(), used)

    response = Client().get(f"/accounts/invitation/{used}/")

    assert response.status_code == 403
    assert "This link cannot be used" in response.content.decode()
    assert "withdrawn" not in response.content.decode()


def test_it_refuses_to_withdraw_an_invitation_that_was_already_used(home, owner_client, owner):
    link, token = _invite(owner)
    _sign_up(Client(), token)
    entries = AuditEntry.objects.count()

    response = _revoke(owner_client, link)

    assert response.status_code == 409
    assert "can no longer be withdrawn" in response.content.decode()
    link.refresh_from_db()
    assert link.revoked_at is None and AuditEntry.objects.count() == entries


def test_it_records_one_withdrawal_when_two_admins_withdraw_the_same_invitation(home, owner):
    link = _invite(owner)[0]

    first = accounts.revoke_invitation(link=link, actor=owner, channel="panel")
    second = accounts.revoke_invitation(link=link, actor=owner, channel="panel")

    assert (first, second) == (True, False)
    assert AuditEntry.objects.filter(details__action="revoke").count() == 1


def test_it_does_not_withdraw_a_password_reset_link_through_the_invitation_route(home, owner_client, owner):
    reset = accounts.create_reset_link(account=owner, actor=owner, channel="panel")[0]

    assert _revoke(owner_client, reset).status_code == 404
    reset.refresh_from_db()
    assert reset.revoked_at is None


def test_it_forbids_a_viewer_to_withdraw_and_leaves_the_invitation_usable(home, viewer_client, owner):
    link, token = _invite(owner)

    assert _revoke(viewer_client, link).status_code == 403
    assert viewer_client.post(f"/people/invitations/{link.pk}/revoke/").status_code == 403
    link.refresh_from_db()
    assert link.revoked_at is None
    assert _sign_up(Client(), token)[1].status_code == 302


def test_it_withdraws_only_by_post_with_a_csrf_token(home, owner, owner_client):
    link = _invite(owner)[0]
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(owner)

    assert owner_client.get(f"/people/invitations/{link.pk}/revoke/").status_code == 405
    assert _revoke(strict, link).status_code == 403
    link.refresh_from_db()
    assert link.revoked_at is None

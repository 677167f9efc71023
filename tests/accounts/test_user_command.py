"""``manage.py user``: the People page for headless installs, audited with the OS account."""

from __future__ import annotations

import getpass
import io

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from admin_panel.models import ApiToken, AuditEntry, token_digest
from admin_panel.permissions import ADMIN, VIEWER, role_of
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def _run(*args: str) -> str:
    out = io.StringIO()
    call_command("user", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def _latest() -> AuditEntry:
    return AuditEntry.objects.order_by("-pk").first()


def test_it_lists_accounts_with_their_role_and_state(home, owner, viewer):
    viewer.is_active = False
    viewer.save()

    lines = _run("list").splitlines()

    assert [line.split("\t")[:3] for line in lines] == [["owner", "admin", "active"], ["viewer", "viewer",
                                                                                      "deactivated"]]


@pytest.mark.parametrize("role", [ADMIN, VIEWER])
def test_it_prints_an_invitation_for_the_role_and_audits_the_os_user(home, owner, role):
    link = _run("invite", "--role", role, "--base-url", "https://panel.example/").strip()

    assert link.startswith("https://panel.example/accounts/invitation/")
    entry = _latest()
    assert (entry.kind, entry.channel, entry.username) == (AuditEntry.Kind.INVITATION, "command", getpass.getuser())
    assert entry.details["role"] == role


def test_it_refuses_an_invitation_without_a_valid_role(home):
    with pytest.raises(CommandError):
        call_command("user", "invite", "--role", "owner", stdout=io.StringIO(), stderr=io.StringIO())


def test_it_sets_a_role_and_audits_it(home, owner, viewer):
    assert _run("set-role", "viewer", "admin").strip() == "viewer is now admin."

    viewer.refresh_from_db()
    assert role_of(viewer) == ADMIN
    entry = _latest()
    assert (entry.kind, entry.channel, entry.details) == (AuditEntry.Kind.ROLE, "command",
                                                          {"account": "viewer", "old": "viewer", "new": "admin"})


def test_it_refuses_to_demote_or_deactivate_the_last_active_admin(home, owner, viewer):
    for args in (("set-role", "owner", "viewer"), ("deactivate", "owner")):
        with pytest.raises(CommandError, match="last active admin"):
            call_command("user", *args, stdout=io.StringIO(), stderr=io.StringIO())

    owner.refresh_from_db()
    assert role_of(owner) == ADMIN and owner.is_active
    assert not AuditEntry.objects.exists()


def test_it_deactivates_an_account_whose_session_and_token_stop_at_once(home, owner, viewer):
    session = Client()
    session.force_login(viewer)
    ApiToken.objects.create(name="t", token_digest=token_digest("t" * 40), user=viewer)
    token = Client(HTTP_X_HERMES_SESSION_TOKEN="t" * 40)

    assert _run("deactivate", "viewer").strip() == "Deactivated viewer."

    assert session.get("/providers/").status_code == 302
    assert token.get("/api/memory").status_code == 401
    assert _latest().details["action"] == "deactivate"
    assert _run("activate", "viewer").strip() == "Reactivated viewer."
    assert Client().login(username="viewer", password=PASSWORD)
    assert token.get("/api/memory").status_code == 200


def test_it_prints_a_reset_link_for_an_active_account_only(home, owner, viewer):
    link = _run("reset-link", "viewer").strip()

    assert link.startswith("http://127.0.0.1:8000/accounts/reset/")
    assert _latest().kind == AuditEntry.Kind.RESET_LINK
    assert link.rsplit("/", 2)[-2] not in str(list(AuditEntry.objects.values()))
    _run("deactivate", "viewer")
    with pytest.raises(CommandError, match="deactivated"):
        call_command("user", "reset-link", "viewer", stdout=io.StringIO(), stderr=io.StringIO())


def test_it_names_an_unknown_account(home):
    with pytest.raises(CommandError, match="No account named 'ghost'"):
        call_command("user", "deactivate", "ghost", stdout=io.StringIO(), stderr=io.StringIO())

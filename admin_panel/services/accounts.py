"""Changes to the panel's own accounts: roles, invitations, access, passwords, sessions, API tokens.

The People page, the account page and ``manage.py user`` / ``api_token`` all change accounts
through these functions, so each change is checked and audited the same way. ``channel`` is
``"panel"`` (``actor`` is the signed-in user) or ``"command"`` (the operating-system account that
ran the command is recorded). No token, link or password ever reaches the audit log.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, Group
from django.contrib.sessions.models import Session
from django.db import transaction
from django.utils import timezone

from admin_panel.agent_home import panel_home
from admin_panel.models import ApiToken, AuditEntry, SignInLink, token_digest
from admin_panel.permissions import ADMIN, ROLES, VIEWER, VIEWERS_GROUP, role_of
from admin_panel.services.audit import record, record_panel_change_by_command
from admin_panel.services.sign_in_links import claim_link, create_link, revoke_link
from admin_panel.session_store import end_stored_session, stored_key

Actor = AbstractBaseUser | AnonymousUser | None


class AccountRefused(Exception):
    """A change that would leave the panel without an active admin, or one that makes no sense."""

    LAST_ADMIN = "last_admin"
    UNKNOWN_ROLE = "unknown_role"

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def _audit(*, actor: Actor, channel: str, kind: str, summary: str, details: dict[str, Any]) -> AuditEntry:
    if channel == "command":
        return record_panel_change_by_command(kind=kind, summary=summary, details=details)
    return record(user=actor, channel=channel, home=panel_home(), kind=kind, summary=summary, details=details)


def record_account_change(*, account: AbstractBaseUser, action: str) -> None:
    """Django's createsuperuser and changepassword commands: ``action`` is "create" or "password"."""
    name = account.get_username()
    summary = {
        "create": f"Created the account {name} with a management command",
        "password": f"Changed the password of {name} with a management command",
    }[action]
    record_panel_change_by_command(
        kind=AuditEntry.Kind.ACCOUNT,
        summary=summary,
        details={"action": action, "account": name, "staff": bool(getattr(account, "is_staff", False)),
                 "via": "command"},
    )


# --- roles -----------------------------------------------------------------------------------------


def _apply_role(account: AbstractBaseUser, role: str) -> None:
    """Exactly one role: an admin is staff (and superuser) outside the viewers group; a viewer is
    neither staff nor superuser and inside it."""
    viewers = Group.objects.get_or_create(name=VIEWERS_GROUP)[0]
    account.is_staff = account.is_superuser = role == ADMIN
    account.save(update_fields=["is_staff", "is_superuser"])
    if role == VIEWER:
        account.groups.add(viewers)
    else:
        account.groups.remove(viewers)


def _other_active_admins(account: AbstractBaseUser) -> bool:
    return get_user_model().objects.filter(is_staff=True, is_active=True).exclude(pk=account.pk).exists()


def _keep_an_admin() -> None:
    """Checked again after the write, inside its transaction: two admins demoting each other at
    the same moment must not both succeed (the refusal rolls the write back)."""
    if not get_user_model().objects.filter(is_staff=True, is_active=True).exists():
        raise AccountRefused(AccountRefused.LAST_ADMIN)


def set_role(*, account: AbstractBaseUser, role: str, actor: Actor, channel: str) -> bool:
    """Give the account ``role``; False when it already had it (nothing recorded)."""
    if role not in ROLES:
        raise AccountRefused(AccountRefused.UNKNOWN_ROLE)
    with transaction.atomic():
        old = role_of(account)
        if old == role:
            return False
        if old == ADMIN and account.is_active and not _other_active_admins(account):
            raise AccountRefused(AccountRefused.LAST_ADMIN)
        _apply_role(account, role)
        _keep_an_admin()
    name = account.get_username()
    _audit(actor=actor, channel=channel, kind=AuditEntry.Kind.ROLE,
           summary=f"Changed the role of {name} from {old or 'none'} to {role}",
           details={"account": name, "old": old, "new": role})
    return True


# --- access ----------------------------------------------------------------------------------------


def end_sessions(*, account: AbstractBaseUser, keep_session_key: str | None = None) -> int:
    """Sign the account out of every browser session (but ``keep_session_key``); how many ended."""
    # The table holds digests of the session keys (admin_panel/session_store.py).
    keep = stored_key(keep_session_key) if keep_session_key else None
    ended = 0
    for session in Session.objects.filter(expire_date__gt=timezone.now()):
        if session.session_key == keep:
            continue
        if session.get_decoded().get("_auth_user_id") == str(account.pk):
            end_stored_session(session.session_key)  # through the store: the cache forgets it too
            ended += 1
    return ended


def deactivate(*, account: AbstractBaseUser, actor: Actor, channel: str) -> bool:
    """Stop the account signing in: its sessions end and its API tokens are refused at once."""
    with transaction.atomic():
        if not account.is_active:
            return False
        if account.is_staff and not _other_active_admins(account):
            raise AccountRefused(AccountRefused.LAST_ADMIN)
        account.is_active = False
        account.save(update_fields=["is_active"])
        _keep_an_admin()
    ended = end_sessions(account=account)
    name = account.get_username()
    _audit(actor=actor, channel=channel, kind=AuditEntry.Kind.ACCESS, summary=f"Deactivated the account {name}",
           details={"action": "deactivate", "account": name, "role": role_of(account), "sessions_ended": ended})
    return True


def activate(*, account: AbstractBaseUser, actor: Actor, channel: str) -> bool:
    if account.is_active:
        return False
    account.is_active = True
    account.save(update_fields=["is_active"])
    name = account.get_username()
    _audit(actor=actor, channel=channel, kind=AuditEntry.Kind.ACCESS, summary=f"Reactivated the account {name}",
           details={"action": "activate", "account": name, "role": role_of(account)})
    return True


# --- invitations and password resets ---------------------------------------------------------------


def invite(*, role: str, actor: Actor, channel: str) -> tuple[SignInLink, str]:
    """A one-time invitation link giving ``role``; returns the link and its token (shown once)."""
    if role not in ROLES:
        raise AccountRefused(AccountRefused.UNKNOWN_ROLE)
    link, token = create_link(purpose=SignInLink.Purpose.INVITATION, role=role)
    entry = _audit(actor=actor, channel=channel, kind=AuditEntry.Kind.INVITATION,
                   summary=f"Invited a new {role} (invitation #{link.pk})",
                   details={"action": "create", "link_id": link.pk, "role": role})
    link.invited_by = entry.username
    link.save(update_fields=["invited_by"])
    return link, token


def revoke_invitation(*, link: SignInLink, actor: Actor, channel: str) -> bool:
    """Withdraw a pending invitation: its link then opens nothing. False when it was no longer
    pending (used, expired or already withdrawn; nothing recorded)."""
    if link.purpose != SignInLink.Purpose.INVITATION or not revoke_link(link=link):
        return False
    _audit(actor=actor, channel=channel, kind=AuditEntry.Kind.INVITATION,
           summary=f"Withdrew invitation #{link.pk} (a new {link.role})",
           details={"action": "revoke", "link_id": link.pk, "role": link.role})
    return True


def accept_invitation(*, link: SignInLink, username: str, password: str) -> AbstractBaseUser | None:
    """Create the invited account with the invitation's role; None when the link was used meanwhile."""
    with transaction.atomic():
        if link.purpose != SignInLink.Purpose.INVITATION or link.role not in ROLES or not claim_link(link=link):
            return None
        account = get_user_model().objects.create_user(username=username, password=password)
        _apply_role(account, link.role)
    name = account.get_username()
    record(user=account, channel="panel", home=panel_home(), kind=AuditEntry.Kind.INVITATION,
           summary=f"{name} accepted invitation #{link.pk} as {link.role}",
           details={"action": "accept", "link_id": link.pk, "role": link.role, "account": name})
    return account


def create_reset_link(*, account: AbstractBaseUser, actor: Actor, channel: str) -> tuple[SignInLink, str]:
    link, token = create_link(purpose=SignInLink.Purpose.PASSWORD_RESET, account=account)
    name = account.get_username()
    _audit(actor=actor, channel=channel, kind=AuditEntry.Kind.RESET_LINK,
           summary=f"Issued a password-reset link for {name} (link #{link.pk})",
           details={"action": "create", "link_id": link.pk, "account": name})
    return link, token


def reset_password(*, link: SignInLink, password: str) -> AbstractBaseUser | None:
    """Set the new password through the link (once); every open session of the account ends."""
    with transaction.atomic():
        account = link.account
        if link.purpose != SignInLink.Purpose.PASSWORD_RESET or account is None or not claim_link(link=link):
            return None
        account.set_password(password)
        account.save(update_fields=["password"])
    end_sessions(account=account)
    name = account.get_username()
    record(user=account, channel="panel", home=panel_home(), kind=AuditEntry.Kind.RESET_LINK,
           summary=f"{name} set a new password with reset link #{link.pk}",
           details={"action": "use", "link_id": link.pk, "account": name})
    return account


# --- the own account -------------------------------------------------------------------------------


def record_password_change(*, account: AbstractBaseUser) -> None:
    name = account.get_username()
    record(user=account, channel="panel", home=panel_home(), kind=AuditEntry.Kind.ACCOUNT,
           summary=f"{name} changed their password", details={"action": "password", "account": name})


def sign_out_other_sessions(*, account: AbstractBaseUser, keep_session_key: str | None) -> int:
    ended = end_sessions(account=account, keep_session_key=keep_session_key)
    name = account.get_username()
    record(user=account, channel="panel", home=panel_home(), kind=AuditEntry.Kind.ACCOUNT,
           summary=f"{name} signed out of {ended} other session(s)",
           details={"action": "sign_out_others", "account": name, "sessions_ended": ended})
    return ended


# --- API tokens ------------------------------------------------------------------------------------


def create_api_token(*, account: AbstractBaseUser, name: str, actor: Actor, channel: str) -> tuple[ApiToken, str]:
    """A token acting as ``account`` (with its role: a viewer's token only reads); shown once."""
    token = secrets.token_urlsafe(32)
    created = ApiToken.objects.create(name=name[:100], token_digest=token_digest(token), user=account)
    _audit(actor=actor, channel=channel, kind=AuditEntry.Kind.API_TOKEN,
           summary=f"Created API token #{created.pk} ({created.name}) for {account.get_username()}",
           details={"action": "create", "token_id": created.pk, "name": created.name,
                    "for_user": account.get_username()})
    return created, token


def revoke_api_token(*, token: ApiToken, actor: Actor, channel: str) -> bool:
    """False when the token was already revoked (nothing recorded)."""
    if not ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=timezone.now()):
        return False
    _audit(actor=actor, channel=channel, kind=AuditEntry.Kind.API_TOKEN,
           summary=f"Revoked API token #{token.pk} ({token.name})",
           details={"action": "revoke", "token_id": token.pk, "name": token.name,
                    "for_user": token.user.get_username()})
    return True

"""Reads for the People and account pages."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, Q

from admin_panel.models import ApiToken, SignInLink
from admin_panel.permissions import ADMIN, VIEWER, VIEWERS_GROUP, role_label
from admin_panel.services.sign_in_links import expires_at, pending_links


@dataclass(frozen=True)
class Person:
    pk: int
    username: str
    role: str
    role_label: str
    is_active: bool
    last_login: datetime | None
    token_count: int


def people() -> list[Person]:
    """Every account with its role, whether it may sign in, its last sign-in and active tokens."""
    users = (
        get_user_model().objects.order_by("username")
        .annotate(
            active_tokens=Count("api_tokens", filter=Q(api_tokens__revoked_at__isnull=True), distinct=True),
            viewer_groups=Count("groups", filter=Q(groups__name=VIEWERS_GROUP), distinct=True),
        )
    )
    found = []
    for user in users:
        role = ADMIN if user.is_staff else VIEWER if user.viewer_groups else ""
        found.append(Person(pk=user.pk, username=user.get_username(), role=role, role_label=role_label(role),
                            is_active=user.is_active, last_login=user.last_login, token_count=user.active_tokens))
    return found


def roles_by_username(names: set[str]) -> dict[str, str]:
    """The current role of each named account (one query), for the audit list."""
    users = get_user_model().objects.filter(username__in=names).annotate(
        viewer_groups=Count("groups", filter=Q(groups__name=VIEWERS_GROUP))
    )
    return {u.get_username(): ADMIN if u.is_staff else VIEWER if u.viewer_groups else "" for u in users}


def api_tokens_of(account: AbstractBaseUser) -> list[ApiToken]:
    return list(ApiToken.objects.filter(user=account).order_by("revoked_at", "-created_at"))


@dataclass(frozen=True)
class PendingInvitation:
    """An invitation that still opens: never its link (shown once) nor its digest."""

    pk: int
    role: str
    role_label: str
    invited_by: str
    created_at: datetime
    expires_at: datetime


def pending_invitations() -> list[PendingInvitation]:
    """Invitations not used, not withdrawn and not expired, oldest first (the next to expire)."""
    links = pending_links(purpose=SignInLink.Purpose.INVITATION).order_by("created_at", "pk")
    return [PendingInvitation(pk=link.pk, role=link.role, role_label=role_label(link.role),
                              invited_by=link.invited_by, created_at=link.created_at, expires_at=expires_at(link))
            for link in links]

"""One-time links: the first-run link, invitations and password resets share one mechanism.

A link is a random token shown once; only its SHA-256 digest is stored. It works once and only
while fresh: ``serve``'s first-run link for 15 minutes (while no account exists), an invitation
or a password-reset link for 24 hours, and not once an admin has withdrawn it. Claiming is a
conditional update, so two concurrent requests cannot both use one link.
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from admin_panel.models import SignInLink, token_digest

ACCOUNT_LINK_MAX_AGE = timedelta(hours=24)
# The address path of each kind of link, followed by the token.
LINK_PATHS = {
    SignInLink.Purpose.FIRST_RUN: "/accounts/first-run/",
    SignInLink.Purpose.INVITATION: "/accounts/invitation/",
    SignInLink.Purpose.PASSWORD_RESET: "/accounts/reset/",
}


def max_age(purpose: str) -> timedelta:
    if purpose == SignInLink.Purpose.FIRST_RUN:
        return timedelta(seconds=settings.SIGN_IN_LINK_MAX_AGE_SECONDS)
    return ACCOUNT_LINK_MAX_AGE


def create_link(*, purpose: str, role: str = "", account: AbstractBaseUser | None = None) -> tuple[SignInLink, str]:
    """Create a link and return it with its token (the only time the token exists)."""
    token = secrets.token_urlsafe(32)
    link = SignInLink.objects.create(token_digest=token_digest(token), purpose=purpose, role=role, account=account)
    return link, token


def link_path(*, purpose: str, token: str) -> str:
    return f"{LINK_PATHS[purpose]}{token}/"


def _usable(purpose: str):
    oldest_valid = timezone.now() - max_age(purpose)
    return SignInLink.objects.filter(purpose=purpose, used_at__isnull=True, revoked_at__isnull=True,
                                     created_at__gte=oldest_valid)


def usable_link(*, token: str, purpose: str) -> SignInLink | None:
    """The unused, fresh link of this purpose the token opens, or None (nothing is claimed)."""
    if not token or len(token) > 200:
        return None
    return _usable(purpose).filter(token_digest=token_digest(token)).first()


def usable_link_by_id(*, pk: int, purpose: str) -> SignInLink | None:
    return _usable(purpose).filter(pk=pk).first()


def claim_link(*, link: SignInLink) -> bool:
    """Mark the link used if it still is unused and fresh; True when this call claimed it."""
    with transaction.atomic():
        claimed = _usable(link.purpose).filter(pk=link.pk).update(used_at=timezone.now())
    return claimed == 1


def expires_at(link: SignInLink) -> datetime:
    return link.created_at + max_age(link.purpose)


def pending_links(*, purpose: str) -> QuerySet[SignInLink]:
    """The links of this purpose that would still open: unused, not withdrawn, fresh."""
    return _usable(purpose)


def revoke_link(*, link: SignInLink) -> bool:
    """Withdraw the link if it still is pending; True when this call withdrew it (a link used or
    withdrawn at the same moment is left as it is)."""
    with transaction.atomic():
        revoked = _usable(link.purpose).filter(pk=link.pk).update(revoked_at=timezone.now())
    return revoked == 1


def was_revoked(*, purpose: str, token: str = "", pk: int | None = None) -> bool:
    """Whether the link the token (or else the id) names was withdrawn, to say so instead of
    "not valid"."""
    links = SignInLink.objects.filter(purpose=purpose, revoked_at__isnull=False)
    if token:
        return len(token) <= 200 and links.filter(token_digest=token_digest(token)).exists()
    return pk is not None and links.filter(pk=pk).exists()


def create_sign_in_link() -> str:
    """The first-run link's token (``serve`` prints it while no account exists)."""
    return create_link(purpose=SignInLink.Purpose.FIRST_RUN)[1]


def accounts_exist() -> bool:
    return get_user_model().objects.exists()


def claim_sign_in_link(*, token: str) -> bool:
    link = usable_link(token=token, purpose=SignInLink.Purpose.FIRST_RUN)
    return link is not None and claim_link(link=link)

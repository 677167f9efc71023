"""One-time sign-in links for the very first account.

``serve`` prints a link while no account exists. Following it claims the link (single use,
15 minutes), and the browser then chooses the first username and password.
"""

from __future__ import annotations

import secrets
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from admin_panel.models import SignInLink, token_digest


def create_sign_in_link() -> str:
    """Create a link token and return it; only its digest is stored."""
    token = secrets.token_urlsafe(32)
    SignInLink.objects.create(token_digest=token_digest(token))
    return token


def accounts_exist() -> bool:
    return get_user_model().objects.exists()


def claim_sign_in_link(*, token: str) -> bool:
    """Mark the link used if it is valid, unused and fresh; True when this call claimed it.

    The update is conditional so that two concurrent requests cannot both claim one link.
    """
    if not token or len(token) > 200:
        return False
    oldest_valid = timezone.now() - timedelta(seconds=settings.SIGN_IN_LINK_MAX_AGE_SECONDS)
    with transaction.atomic():
        claimed = SignInLink.objects.filter(
            token_digest=token_digest(token), used_at__isnull=True, created_at__gte=oldest_valid
        ).update(used_at=timezone.now())
    return claimed == 1

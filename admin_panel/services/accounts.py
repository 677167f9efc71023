"""Audit records for changes to the panel's own accounts made by management commands."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser

from admin_panel.models import AuditEntry
from admin_panel.services.audit import record_panel_change_by_command


def record_account_change(*, account: AbstractBaseUser, action: str) -> None:
    """``action`` is "create" or "password"."""
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

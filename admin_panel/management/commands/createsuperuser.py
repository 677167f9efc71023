"""Django's ``createsuperuser``, with the new account recorded in the audit log."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.management.commands import createsuperuser

from admin_panel.services.accounts import record_account_change


class Command(createsuperuser.Command):
    def handle(self, *args: Any, **options: Any) -> None:
        users = get_user_model()._default_manager.db_manager(options["database"])
        existing = set(users.values_list("pk", flat=True))
        super().handle(*args, **options)
        for account in users.exclude(pk__in=existing).order_by("pk"):
            record_account_change(account=account, action="create")

"""Django's ``changepassword``, with the change recorded in the audit log."""

from __future__ import annotations

import getpass
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.management.commands import changepassword

from admin_panel.services.accounts import record_account_change


class Command(changepassword.Command):
    def handle(self, *args: Any, **options: Any) -> str:
        result = super().handle(*args, **options)  # raises CommandError when nothing changed
        username = options["username"] or getpass.getuser()
        users = get_user_model()._default_manager.db_manager(options["database"])
        record_account_change(account=users.get_by_natural_key(username), action="password")
        return result

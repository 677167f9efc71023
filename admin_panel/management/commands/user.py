"""``manage.py user``: the People page for headless installs.

``invite --role admin|viewer`` and ``reset-link NAME`` print a one-time link (the only place it
ever appears); ``list``, ``set-role NAME ROLE``, ``deactivate NAME``, ``activate NAME``. Every change
is audited with channel ``command`` and the operating-system account that ran it.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from admin_panel.models import SignInLink
from admin_panel.permissions import ROLES
from admin_panel.selectors.accounts import people
from admin_panel.services import accounts
from admin_panel.services.sign_in_links import link_path

DEFAULT_BASE_URL = "http://127.0.0.1:8000"


class Command(BaseCommand):
    help = "Invite people, list accounts, change roles, deactivate or reactivate accounts, issue reset links."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        invite = sub.add_parser("invite", help="Print a one-time invitation link (24 hours, single use).")
        invite.add_argument("--role", required=True, choices=ROLES)
        invite.add_argument("--base-url", default=DEFAULT_BASE_URL,
                            help=f"The panel's address as the invitee reaches it (default {DEFAULT_BASE_URL}).")
        sub.add_parser("list", help="List accounts with role, status, last sign-in and API tokens.")
        set_role = sub.add_parser("set-role", help="Give an account the role admin or viewer.")
        set_role.add_argument("name")
        set_role.add_argument("role", choices=ROLES)
        for name, text in (("deactivate", "Stop an account signing in (its sessions and API tokens stop at once)."),
                           ("activate", "Let a deactivated account sign in again.")):
            sub.add_parser(name, help=text).add_argument("name")
        reset = sub.add_parser("reset-link", help="Print a one-time password-reset link (24 hours, single use).")
        reset.add_argument("name")
        reset.add_argument("--base-url", default=DEFAULT_BASE_URL)

    def handle(self, *args: Any, **options: Any) -> None:
        action = options["action"]
        try:
            if action == "invite":
                _link, token = accounts.invite(role=options["role"], actor=None, channel="command")
                self._print_link(options["base_url"], SignInLink.Purpose.INVITATION, token,
                                 f"Invitation for a new {options['role']}: it works once, within 24 hours.")
            elif action == "list":
                for person in people():
                    seen = f"{person.last_login:%Y-%m-%d %H:%M}" if person.last_login else "never signed in"
                    state = "active" if person.is_active else "deactivated"
                    self.stdout.write(f"{person.username}\t{person.role or 'no role'}\t{state}\t{seen}\t"
                                      f"{person.token_count} API token(s)")
            elif action == "set-role":
                account = self._account(options["name"])
                changed = accounts.set_role(account=account, role=options["role"], actor=None, channel="command")
                self.stdout.write(f"{account.get_username()} is {'now' if changed else 'already'} {options['role']}.")
            elif action == "deactivate":
                account = self._account(options["name"])
                changed = accounts.deactivate(account=account, actor=None, channel="command")
                self.stdout.write(f"Deactivated {account.get_username()}." if changed
                                  else f"{account.get_username()} is already deactivated.")
            elif action == "activate":
                account = self._account(options["name"])
                changed = accounts.activate(account=account, actor=None, channel="command")
                self.stdout.write(f"Reactivated {account.get_username()}." if changed
                                  else f"{account.get_username()} is already active.")
            else:
                account = self._account(options["name"])
                if not account.is_active:
                    raise CommandError(f"{account.get_username()} is deactivated: activate the account first.")
                _link, token = accounts.create_reset_link(account=account, actor=None, channel="command")
                self._print_link(options["base_url"], SignInLink.Purpose.PASSWORD_RESET, token,
                                 f"Password-reset link for {account.get_username()}: it works once, within 24 hours.")
        except accounts.AccountRefused as exc:
            if exc.code == accounts.AccountRefused.LAST_ADMIN:
                raise CommandError("Refused: this is the last active admin. Make another account an admin "
                                   "first (user set-role NAME admin).") from None
            raise CommandError("Choose a role: admin or viewer.") from None

    def _print_link(self, base_url: str, purpose: str, token: str, explanation: str) -> None:
        self.stderr.write(explanation + " It is shown only now.")
        self.stdout.write(base_url.rstrip("/") + link_path(purpose=purpose, token=token))

    def _account(self, name: str):
        users = get_user_model().objects
        try:
            return users.get(username=name)
        except users.model.DoesNotExist:
            raise CommandError(f"No account named {name!r}.") from None

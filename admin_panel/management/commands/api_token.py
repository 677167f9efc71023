"""``manage.py api_token create|list|revoke``: tokens for scripts using the JSON API.

Creating and revoking a token are audited (kind ``api_token``, channel ``command``, the
operating-system account as the user) with the token's id, name and user: never the token.
A token acts with its user's role: a viewer's token can only read.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from admin_panel.models import ApiToken
from admin_panel.services.accounts import create_api_token, revoke_api_token


class Command(BaseCommand):
    help = "Create, list or revoke API tokens (sent as X-Hermes-Session-Token or Authorization: Bearer)."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        create = sub.add_parser("create", help="Create a token and print it once.")
        create.add_argument("--user", help="Username the token acts as (default: the only superuser).")
        create.add_argument("--name", default="script", help="A label to recognise the token by.")
        sub.add_parser("list", help="List tokens (never their values).")
        revoke = sub.add_parser("revoke", help="Revoke a token by its id.")
        revoke.add_argument("id", type=int)

    def handle(self, *args: Any, **options: Any) -> None:
        action = options["action"]
        if action == "create":
            user = self._user(options.get("user"))
            created, token = create_api_token(account=user, name=options["name"], actor=None, channel="command")
            self.stderr.write(f"Created API token {created.pk} ({created.name}) for {user.get_username()}. "
                              "It is shown once; store it now.")
            self.stdout.write(token)
        elif action == "list":
            for listed in ApiToken.objects.select_related("user").order_by("pk"):
                state = f"revoked {listed.revoked_at:%Y-%m-%d}" if listed.revoked_at else "active"
                used = f"last used {listed.last_used_at:%Y-%m-%d %H:%M}" if listed.last_used_at else "never used"
                self.stdout.write(f"{listed.pk}\t{listed.name}\t{listed.user.get_username()}\t{state}\t{used}")
        else:
            found = ApiToken.objects.select_related("user").filter(pk=options["id"]).first()
            if found is None or not revoke_api_token(token=found, actor=None, channel="command"):
                raise CommandError(f"No active API token with id {options['id']}.")
            self.stdout.write(f"Revoked API token {options['id']}.")

    def _user(self, username: str | None):
        users = get_user_model().objects
        if username:
            try:
                return users.get(username=username)
            except users.model.DoesNotExist:
                raise CommandError(f"No user named {username!r}.") from None
        superusers = list(users.filter(is_superuser=True)[:2])
        if len(superusers) != 1:
            raise CommandError("Say which user the token acts as: --user NAME.")
        return superusers[0]

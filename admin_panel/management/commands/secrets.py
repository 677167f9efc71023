"""``manage.py secrets``: where a home's secrets live, moving them, and running the agent with them.

* ``secrets store [env_file|keyring] [--profile P]`` shows the store new secrets go to, or switches
  it (the keyring is checked first: a real backend, unlocked, a probe round trip).
* ``secrets move --to keyring|env_file [--profile P] [--yes]`` moves every stored secret of every
  provider into that store, all or nothing, after listing the variable names (never the values).
* ``secrets exec [--profile P] -- COMMAND [ARGS...]`` runs the agent with the keyring secrets: every
  declared secret found in the keyring is added to the environment, then this process is replaced
  by COMMAND. Values are never printed.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

import provider_schemas
from admin_panel.selectors.providers import SECRET_STORES, secret_store_for
from admin_panel.services import providers as services
from admin_panel.services.audit import command_username
from provider_schemas import secret_moves
from provider_schemas.cli import secrets_exec
from provider_schemas.homes import profile_home

STORE_WORDS = {"env_file": "the .env file", "keyring": "the OS keyring"}


class Command(BaseCommand):
    help = "Show or switch the secret store, move stored secrets, or run a command with keyring secrets."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        run = sub.add_parser("exec", help="exec -- COMMAND [ARGS...]")
        run.add_argument("--profile", default="", help="Use this profile's home instead of HERMES_HOME.")
        run.add_argument("argv", nargs="+", metavar="COMMAND", help="The command and its arguments (after --).")
        store = sub.add_parser("store", help="store [env_file|keyring]: show or switch the secret store")
        store.add_argument("store", nargs="?", choices=SECRET_STORES, help="The store new secrets go to.")
        store.add_argument("--profile", default="", help="Use this profile's home instead of HERMES_HOME.")
        move = sub.add_parser("move", help="move --to keyring|env_file: move every stored secret")
        move.add_argument("--to", required=True, choices=SECRET_STORES, help="The store to move the secrets to.")
        move.add_argument("--profile", default="", help="Use this profile's home instead of HERMES_HOME.")
        move.add_argument("--yes", action="store_true", help="Do not ask for confirmation.")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            home = profile_home(home=Path(settings.HERMES_HOME), profile=options["profile"])
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        if options["action"] == "store":
            self._store(home=home, store=options["store"])
        elif options["action"] == "move":
            self._move(home=home, to=options["to"], assume_yes=options["yes"])
        else:
            self._exec(home=home, argv=list(options["argv"]))

    def _store(self, *, home: Path, store: str | None) -> None:
        if store is None:
            current = secret_store_for(home=home, fresh=True)
            self.stdout.write(f"New secrets of {home} go to {STORE_WORDS[current]} ({current}).")
            return
        try:
            services.set_secret_store(home=home, store=store, channel="command", username=command_username())
        except provider_schemas.SecretStoreUnavailable as exc:
            raise CommandError(f"The secret store was not changed. {exc.reason}") from None
        self.stdout.write(f"New secrets of {home} now go to {STORE_WORDS[store]} ({store}).")
        if store == "keyring":
            self.stdout.write("Secrets already in .env stay there: `secrets move --to keyring` moves them.")

    def _move(self, *, home: Path, to: str, assume_yes: bool) -> None:
        try:
            plan = secret_moves.plan_move(home=home, to=to)
        except (provider_schemas.SecretStoreUnavailable, provider_schemas.StorageParseError) as exc:
            raise CommandError(f"Nothing was moved. {getattr(exc, 'reason', None) or exc}") from None
        if plan.empty:
            services.move_secrets(home=home, to=to, channel="command", expected=[], username=command_username())
            self.stdout.write(f"No stored secret needs moving; new secrets go to {STORE_WORDS[to]} ({to}).")
            return
        self.stdout.write(f"These variables move to {STORE_WORDS[to]}: {', '.join(plan.variables)}")
        if not assume_yes:
            if not sys.stdin.isatty():
                raise CommandError("Nothing was moved: confirm with --yes when not asked in a terminal.")
            if input("Move them? [y/N] ").strip().lower() not in ("y", "yes"):
                raise CommandError("Nothing was moved.")
        try:
            moved = services.move_secrets(
                home=home, to=to, channel="command", expected=plan.variables, username=command_username()
            )
        except secret_moves.MoveChanged as exc:
            raise CommandError(f"Nothing was moved: {exc}") from None
        except (provider_schemas.SecretStoreUnavailable, provider_schemas.SaveFailed,
                provider_schemas.ConflictError, provider_schemas.StorageParseError) as exc:
            raise CommandError(f"Nothing was moved. {getattr(exc, 'reason', None) or exc}") from None
        self.stdout.write(f"Moved {len(moved.variables)} secret(s) to {STORE_WORDS[to]}; new secrets go there too.")

    def _exec(self, *, home: Path, argv: list[str]) -> None:
        if argv and argv[0] == "--":
            argv = argv[1:]
        status = secrets_exec(home=home, argv=argv, err=self.stderr)
        if status:
            sys.exit(status)

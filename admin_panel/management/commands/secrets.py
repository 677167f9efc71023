"""``manage.py secrets``: where a home's secrets live, moving them, and running the agent with them.

* ``secrets store [env_file|keyring] [--profile P]`` shows the store new secrets go to, or switches
  it (the keyring is checked first: a real backend, unlocked, a probe round trip).
* ``secrets move --to keyring|env_file [--profile P | --all-profiles] [--yes]`` moves every stored
  secret of every provider into that store, all or nothing, after listing the variable names
  (never the values).
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
from provider_schemas.cli import secrets_exec
from provider_schemas.homes import profile_home
from provider_schemas.saving import secret_moves
from provider_schemas.secret_stores.probe import check_keyring

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
        which = move.add_mutually_exclusive_group()
        which.add_argument("--profile", default="", help="Use this profile's home instead of HERMES_HOME.")
        which.add_argument("--all-profiles", action="store_true",
                           help="Move the secrets of the default profile and of every other profile, all or nothing.")
        move.add_argument("--yes", action="store_true", help="Do not ask for confirmation.")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            home = profile_home(home=Path(settings.HERMES_HOME), profile=options["profile"])
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        if options["action"] == "store":
            self._store(home=home, store=options["store"])
        elif options["action"] == "move":
            homes = secret_moves.every_profile_home(home) if options["all_profiles"] else [home]
            self._move(homes=homes, to=options["to"], assume_yes=options["yes"], all_profiles=options["all_profiles"])
        else:
            self._exec(home=home, argv=list(options["argv"]))

    def _store(self, *, home: Path, store: str | None) -> None:
        if store is None:
            current = secret_store_for(home=home, fresh=True)
            self.stdout.write(f"New secrets of {home} go to {STORE_WORDS[current]} ({current}).")
            self.stdout.write(check_keyring(home=home).english())
            return
        try:
            services.set_secret_store(home=home, store=store, channel="command", username=command_username())
        except provider_schemas.SecretStoreUnavailable as exc:
            raise CommandError(f"The secret store was not changed. {exc.reason}") from None
        self.stdout.write(f"New secrets of {home} now go to {STORE_WORDS[store]} ({store}).")
        if store == "keyring":
            self.stdout.write("Secrets already in .env stay there: `secrets move --to keyring` moves them.")

    def _move(self, *, homes: list[Path], to: str, assume_yes: bool, all_profiles: bool) -> None:
        try:
            plans = [secret_moves.plan_move(home=home, to=to) for home in homes]
        except (provider_schemas.SecretStoreUnavailable, provider_schemas.StorageParseError) as exc:
            raise CommandError(f"Nothing was moved. {getattr(exc, 'reason', None) or exc}") from None
        expected = {str(plan.home): plan.variables for plan in plans}
        pending = [plan for plan in plans if not plan.empty]
        for plan in pending:
            self.stdout.write(f"These variables of {plan.home} move to {STORE_WORDS[to]}: {', '.join(plan.variables)}")
            if plan.shadowed:
                self.stdout.write(
                    f"Warning: {plan.shadowing_file} also holds an API key at its top level; after the move it wins "
                    f"over {', '.join(plan.shadowed)} (today the host block's copy wins)."
                )
        if pending and not assume_yes:
            if not sys.stdin.isatty():
                raise CommandError("Nothing was moved: confirm with --yes when not asked in a terminal.")
            if input("Move them? [y/N] ").strip().lower() not in ("y", "yes"):
                raise CommandError("Nothing was moved.")
        try:
            moved = services.move_secrets(home=homes[0], to=to, channel="command", expected=expected,
                                          username=command_username(), all_profiles=all_profiles)
        except secret_moves.MoveChanged as exc:
            raise CommandError(f"Nothing was moved: {exc}") from None
        except (provider_schemas.SecretStoreUnavailable, provider_schemas.SaveFailed,
                provider_schemas.ConflictError, provider_schemas.StorageParseError) as exc:
            raise CommandError(f"Nothing was moved. {getattr(exc, 'reason', None) or exc}") from None
        count = sum(len(plan.variables) for plan in moved)
        if count:
            self.stdout.write(f"Moved {count} secret(s) to {STORE_WORDS[to]}; new secrets go there too.")
        else:
            self.stdout.write(f"No stored secret needs moving; new secrets go to {STORE_WORDS[to]} ({to}).")

    def _exec(self, *, home: Path, argv: list[str]) -> None:
        if argv and argv[0] == "--":
            argv = argv[1:]
        status = secrets_exec(home=home, argv=argv, err=self.stderr)
        if status:
            sys.exit(status)

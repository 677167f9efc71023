"""``manage.py secrets exec [--profile P] -- COMMAND [ARGS...]``: run the agent with keyring secrets.

The agent reads secrets only from its environment, so a home using the keyring store starts it
through this command: every declared secret found in the keyring is added to the environment,
then this process is replaced by COMMAND. Values are never printed.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from provider_schemas.cli import secrets_exec
from provider_schemas.homes import profile_home


class Command(BaseCommand):
    help = "Run a command with the keyring's provider secrets in its environment."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        run = sub.add_parser("exec", help="exec -- COMMAND [ARGS...]")
        run.add_argument("--profile", default="", help="Use this profile's home instead of HERMES_HOME.")
        run.add_argument("argv", nargs="+", metavar="COMMAND", help="The command and its arguments (after --).")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            home = profile_home(home=Path(settings.HERMES_HOME), profile=options["profile"])
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        argv = [a for a in options["argv"]]
        if argv and argv[0] == "--":
            argv = argv[1:]
        status = secrets_exec(home=home, argv=argv, err=self.stderr)
        if status:
            sys.exit(status)

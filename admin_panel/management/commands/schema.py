"""``manage.py schema list | check PATH | show NAME [--json]``: provider schemas from the shell."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from provider_schemas.cli import run_check, run_list, run_show
from provider_schemas.homes import profile_home


class Command(BaseCommand):
    help = "List providers, lint a config_schema.py file, or show a provider's settings."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--profile", default="", help="Work on this profile's home instead of HERMES_HOME.")
        sub = parser.add_subparsers(dest="action", required=True)
        sub.add_parser("list", help="Every provider with its origin and status, plus shadowed plugins.")
        check = sub.add_parser("check", help="Lint a schema file; exit 1 on errors (for provider authors' CI).")
        check.add_argument("path")
        check.add_argument("--name", help="Expected provider name (default: the file's directory name).")
        check.add_argument(
            "--static",
            action="store_true",
            help="Prove the file is pure data without executing it (exit 1 with the line otherwise); "
            "the same declaration checks as a plain check follow.",
        )
        check.add_argument("--strict", action="store_true", help="Warnings fail too (exit 1), for a clean CI.")
        show = sub.add_parser("show", help="A provider's settings as the API returns them.")
        show.add_argument("name")
        show.add_argument("--json", action="store_true", help="Print the API's payload (docs/api.md).")
        preview = sub.add_parser("preview", help="Serve the panel on loopback, previewing one schema file live.")
        preview.add_argument("path", help="A config_schema.py file, or the plugin directory holding it.")
        preview.add_argument("--port", type=int, default=8000, help="Port to bind on 127.0.0.1 (default 8000).")

    def _home(self, profile: str) -> Path:
        try:
            return profile_home(home=Path(settings.HERMES_HOME), profile=profile)
        except ValueError as exc:
            raise CommandError(str(exc)) from None

    def _secret_store(self) -> str:
        store = getattr(settings, "PANEL_SECRET_STORE", "env_file")
        return store if store in ("env_file", "keyring") else "env_file"

    def handle(self, *args: Any, **options: Any) -> None:
        action = options["action"]
        if action == "preview":
            from admin_panel.schema_preview_runner import run_preview

            run_preview(path=options["path"], port=options["port"], out=self.stdout)
            return
        if action == "check" and options.get("static"):
            from provider_schemas.loading.static_eval import run_static_check

            status = run_static_check(
                options["path"], out=self.stdout, err=self.stderr, name=options.get("name"), strict=options["strict"]
            )
        elif action == "check":
            status = run_check(
                options["path"], out=self.stdout, err=self.stderr, name=options.get("name"), strict=options["strict"]
            )
        elif action == "list":
            status = run_list(home=self._home(options["profile"]), out=self.stdout, secret_store=self._secret_store())
        else:
            status = run_show(
                options["name"],
                home=self._home(options["profile"]),
                out=self.stdout,
                err=self.stderr,
                as_json=options["json"],
                secret_store=self._secret_store(),
            )
        if status:
            sys.exit(status)

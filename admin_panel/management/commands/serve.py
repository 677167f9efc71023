"""``manage.py serve``: migrate, then serve the panel with uvicorn over ASGI (never runserver).

uvicorn holds the pages' open event streams on its event loop (no worker per tab), parses HTTP
with httptools, and is the server hermes-agent's own dashboard runs on. The socket is bound here,
before any address is printed, so a printed sign-in link always finds a listening socket and a
port in use fails before a link is made.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import socket
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser

from admin_panel.demo_memory import DEMO_STATES, apply_demo_state

LOOPBACK = "127.0.0.1"
# Open event streams are ended on shutdown; a request still running gets this long to finish.
GRACEFUL_SHUTDOWN_SECONDS = 10


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (IPv4 or IPv6, as the name resolves)."""
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def migrate_if_needed() -> None:
    """``migrate``, only when a migration is unapplied. An up-to-date database (every start but
    the first) would otherwise pay for migrate's post_migrate handlers, which re-check every
    content type and permission, and for a second run of the system checks that ``serve`` has
    just run: together about a third of the time before the socket listens (docs/performance.md)."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    if executor.migration_plan(executor.loader.graph.leaf_nodes()):
        call_command("migrate", interactive=False, verbosity=0, skip_checks=True)


def warm_up() -> None:
    """Run once in the background as soon as the socket listens: what the first page would
    otherwise build itself (the URL names for reversing, the compiled base templates, both
    languages' catalogues). A request arriving meanwhile only waits for a lock that the work
    holds; nothing here changes what a page shows. A failure is logged, never raised: the page
    that needs the piece builds it and reports its own error."""
    import logging

    from django.template.loader import get_template
    from django.urls import reverse
    from django.utils import translation

    try:
        reverse("home")
        for name in WARM_TEMPLATES:
            get_template(name)
        for language in ("en", "zh-hans"):
            with translation.override(language):
                translation.gettext("Providers")
    except Exception:
        logging.getLogger("admin_panel.requests").warning("The start-up warm-up failed", exc_info=True)
    finally:
        resume_collector()


def resume_collector() -> None:
    """Collect garbage again where manage.py paused the collector for the start, with everything
    the start made frozen: it lives as long as the process, so later passes need not walk it. Not
    collected first: the start leaves a few thousand unreachable objects, and a full pass over
    everything costs more CPU than the first page. A process that never paused it (``serve`` run
    from code) is left as it is."""
    if not gc.isenabled():
        gc.freeze()
        gc.enable()


WARM_TEMPLATES = ("base.html", "home.html")


def _server_class():  # uvicorn is imported only when serving
    import uvicorn

    class PanelServer(uvicorn.Server):
        threads = 8

        def handle_exit(self, sig: int, frame: object) -> None:
            from admin_panel.change_feed import close_change_feed

            close_change_feed()  # open streams end now instead of holding the shutdown
            super().handle_exit(sig, frame)

        async def serve(self, sockets: list[socket.socket] | None = None) -> None:
            asyncio.get_running_loop().set_default_executor(
                ThreadPoolExecutor(max_workers=self.threads, thread_name_prefix="panel"))
            await super().serve(sockets=sockets)

    return PanelServer


class Command(BaseCommand):
    help = "Serve memory-panel on a production ASGI server, uvicorn (loopback by default)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default=LOOPBACK, help="Address to bind (default 127.0.0.1).")
        parser.add_argument("--port", type=int, default=8000, help="Port to bind (default 8000).")
        parser.add_argument("--threads", type=int, default=None,
                            help="Request threads (default: CPU count + 2, at most 16); event streams need none.")
        parser.add_argument(
            "--demo",
            nargs="?",
            const="",
            default=None,
            metavar="PATH",
            help="Seed a demo HERMES_HOME (a new temporary folder, or PATH) and serve it.",
        )
        parser.add_argument(
            "--demo-state",
            choices=sorted(DEMO_STATES),
            help="With --demo: put the demo's USER.md in this state (one per demo home): "
            + "; ".join(f"{name}: {what}" for name, what in DEMO_STATES.items()),
        )
        parser.add_argument(
            "--schema-dir",
            action="append",
            default=[],
            metavar="DIR",
            help="Also allow the schema preview to open config_schema.py files under DIR (repeatable).",
        )
        # Set by --demo when it re-runs serve in the demo home: seed the demo's budget history
        # into that home's panel database once it exists.
        parser.add_argument("--demo-history", action="store_true", help=argparse.SUPPRESS)

    def handle(self, *args: Any, **options: Any) -> None:
        if options["demo"] is not None:
            self._restart_in_demo_home(options)
            return
        if options["demo_state"]:
            raise CommandError("--demo-state works only with --demo.")
        if options["schema_dir"]:
            settings.PANEL_SCHEMA_PREVIEW_DIRS = [
                *settings.PANEL_SCHEMA_PREVIEW_DIRS,
                *(Path(d).expanduser().absolute() for d in options["schema_dir"]),
            ]
        self._serve(host=options["host"], port=options["port"], threads=options["threads"],
                    demo_history=options["demo_history"])

    def _restart_in_demo_home(self, options: dict[str, Any]) -> None:
        """Seed the demo home, then re-run ``serve`` with that home as the process's HERMES_HOME.

        Settings (database location, secret key) are derived from HERMES_HOME when they load, so
        the demo gets its own database by starting afresh rather than patching live settings.
        """
        from admin_panel.demo import seed_demo_home

        target = Path(options["demo"]).expanduser().absolute() if options["demo"] else Path(
            tempfile.mkdtemp(prefix="memory-panel-demo-")
        )
        seed_demo_home(target)
        self.stdout.write(f"Demo HERMES_HOME seeded at {target}")
        if options["demo_state"]:
            try:
                described = apply_demo_state(target, options["demo_state"])
            except (OSError, ValueError) as exc:
                raise CommandError(f"Cannot apply the demo state: {exc}") from exc
            self.stdout.write(f"Demo state {options['demo_state']}: {described}")
        env = {**os.environ, "HERMES_HOME": str(target), "PANEL_DATA_DIR": str(target / "panel")}
        argv = [sys.executable, str(Path(settings.BASE_DIR) / "manage.py"), "serve",
                "--host", options["host"], "--port", str(options["port"]), "--demo-history"]
        if options["threads"]:
            argv += ["--threads", str(options["threads"])]
        for schema_dir in options["schema_dir"]:
            argv += ["--schema-dir", schema_dir]
        sys.stdout.flush()
        sys.stderr.flush()
        os.execve(sys.executable, argv, env)  # noqa: S606 - replace this process, same interpreter

    def _check_secret_store(self, *, home: Path) -> None:
        """``PANEL_SECRET_STORE=keyring`` is a choice like the Settings page's: refused (the panel
        does not start) when the keyring fails its check. A home switched to the keyring earlier
        only gets a warning: its pages explain the problem and write nothing."""
        from admin_panel.selectors.providers import default_secret_store, secret_store_for
        from provider_schemas.secret_stores.probe import check_keyring

        from_setting = default_secret_store() == "keyring"
        if not from_setting and secret_store_for(home=home, fresh=True) != "keyring":
            return
        check = check_keyring(home=home)
        if check.usable:
            return
        if from_setting:
            raise CommandError(f"PANEL_SECRET_STORE=keyring is refused. {check.english()}")
        self.stderr.write(f"Warning: this home keeps its secrets in the OS keyring. {check.english()}")

    def _serve(self, *, host: str, port: int, threads: int | None, demo_history: bool = False) -> None:
        import uvicorn

        from admin_panel.asgi import build_application, default_threads
        from admin_panel.services.sign_in_links import accounts_exist, create_sign_in_link
        from provider_schemas.saving.locks import recover

        migrate_if_needed()
        home = Path(settings.HERMES_HOME)
        home.mkdir(parents=True, exist_ok=True)
        recover(home=home)  # finish a save a killed panel process left half-done, before serving
        from admin_panel.services.providers import finish_interrupted_secret_move

        finish_interrupted_secret_move(home=home)  # and a move of every profile's secrets
        from provider_schemas.saving.leftovers import remove_leftover_temps

        remove_leftover_temps(home=home)  # and remove the temp files a killed save left behind
        self._check_secret_store(home=home)
        if demo_history:
            from admin_panel.demo_memory import seed_budget_history

            seed_budget_history(home)
        from admin_panel.services.maintenance import record_budget_on_store_changes

        record_budget_on_store_changes(home=home)  # the budget chart gets the agent's writes as they happen
        display_host = f"[{host}]" if ":" in host else host
        base_url = f"http://{display_host}:{port}"
        if host not in {LOOPBACK, "localhost", "::1"}:
            self.stderr.write(
                f"Warning: binding {host} exposes the panel beyond this machine. Put it behind TLS "
                "(PANEL_HTTPS=1) and add the host name to PANEL_ALLOWED_HOSTS."
            )
        # Bind before printing any address, so a printed link always finds a listening socket.
        try:
            sock = bind_socket(host, port)
        except OSError as exc:
            raise CommandError(f"Cannot listen on {host}:{port}: {exc.strerror or exc}") from exc
        from memory_core.history.search import warm_history

        # The listening socket queues requests already; the first search no longer pays for the
        # read of long tool rows (docs/history.md "Speed"). Never blocks, never raises.
        warm_history(home)
        self.stdout.write(f"memory-panel: HERMES_HOME={home}")
        self.stdout.write(f"memory-panel: panel data in {settings.PANEL_DATA_DIR}")
        if not accounts_exist():
            token = create_sign_in_link()
            self.stdout.write(
                "No account exists yet. Open this one-time link within 15 minutes to create one:\n"
                f"  {base_url}/accounts/first-run/{token}/"
            )
        self.stdout.write(f"memory-panel: serving on {base_url}/ (Ctrl+C to stop)")
        sys.stdout.flush()
        threads = threads or default_threads()
        config = uvicorn.Config(
            build_application(threads=threads), lifespan="off", log_config=None, access_log=False, server_header=False,
            # Never trust X-Forwarded-For from loopback: the sign-in throttle counts REMOTE_ADDR.
            proxy_headers=False,
            ws="none",  # no route speaks WebSocket: nothing of websockets is imported at the start
            headers=[("Server", "memory-panel")], timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_SECONDS,
        )
        server = _server_class()(config)
        server.threads = threads
        threading.Thread(target=warm_up, name="panel-warm-up", daemon=True).start()
        server.run(sockets=[sock])

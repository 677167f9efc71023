"""The whole panel as a test sees it: every route, sample addresses for them, and a home seeded
with something on every page (memory entries, a drift backup, a pending write, provider settings,
a user plugin, audit entries)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from django.urls import URLPattern, URLResolver, get_resolver

# Reachable before signing in.
PUBLIC_ROUTES = {"login", "first_run_account", "first_run_link", "set_language", "invitation_accept",
                 "invitation_link", "reset_password", "reset_link", "favicon"}
# Open to every signed-in user: signing out, and the landing page (which shows no agent state to a
# user without a role).
ANY_USER_ROUTES = {"logout", "home"}
# The own account page: every account with a role (viewers too) changes its own password, sessions
# and API tokens there, and nothing of the agent or of other accounts.
OWN_ACCOUNT_ROUTES = {"account", "account_password", "account_sign_out_others", "account_token_create",
                      "account_token_revoke"}
# POSTs that change nothing: "Back to the form" from the review page (a viewer is sent to the page).
NON_CHANGING_POSTS = {"provider_detail"}
# Pages that show state: staff and viewers may GET them.
VIEWER_PAGES = {
    "home", "providers", "provider_detail", "memory_settings", "memory", "memory_poll", "memory_snapshot",
    "memory_blocked", "memory_pending", "memory_backups", "memory_backup_detail", "audit", "audit_detail",
    "sessions", "sessions_secrets", "session_detail", "session_export",
    "memory_maintenance",
    "profiles",
    "memory_events",
    "memory_pending_events",
    "sessions_events",
    "provider_events",
    "memory_settings_events",
    "provider_contents_index", "provider_contents", "provider_contents_events", "provider_contents_item",
    "provider_contents_left_behind",
}
# Routes whose GET is itself staff-only (confirmation pages of changes, the schema preview, which
# executes schema files) or that only accept POST.
STAFF_ROUTES = {
    "provider_deactivate", "provider_field", "provider_review", "provider_save", "provider_activate",
    "memory_delete_confirm", "memory_undo", "memory_undo_dismiss", "memory_pending_action", "memory_entry_add",
    "memory_entry_edit", "memory_restore", "schema_preview", "schema_preview_poll", "schema_preview_paste",
    "schema_preview_try", "schema_preview_field", "audit_revert", "memory_merge", "memory_maintenance_undo",
    "people", "people_invite", "people_set_role", "people_deactivate", "people_activate", "people_reset_link",
    "people_revoke_invitation",
    "profiles_copy", "profiles_copy_review", "profiles_copy_apply",
    "schema_preview_events",
    "provider_contents_delete", "provider_contents_undo",
}
BACKUP_NAME = "MEMORY.md.bak.1700000000"
MEMORY_TEXT = "Repo uses uv for Python deps.\n§\nCI runs on GitHub Actions."
USER_TEXT = "Name: Dana\n§\nPrefers concise answers."
PLUGIN_SCHEMA = '''from plugins.memory.config_schema import KIND_SECRET, KIND_TEXT, ProviderConfigSchema, ProviderField

CONFIG_SCHEMA = ProviderConfigSchema(
    name="mytool",
    label="My Tool",
    storage="json_file",
    storage_path="mytool.json",
    fields=(
        ProviderField("url", "URL", kind=KIND_TEXT, inline=True),
        ProviderField("token", "Token", kind=KIND_SECRET, env_key="MYTOOL_TOKEN"),
    ),
)
'''


def _walk(resolver: URLResolver, prefix: str = "") -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for pattern in resolver.url_patterns:
        if isinstance(pattern, URLResolver):
            found += _walk(pattern, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern) and pattern.name:
            found.append((pattern.name, prefix + str(pattern.pattern)))
    return found


def page_routes() -> list[tuple[str, str]]:
    """(name, route) of every signed-in page and form endpoint, the JSON API excluded."""
    return [(n, r) for n, r in _walk(get_resolver()) if n not in PUBLIC_ROUTES and not r.startswith("api/")]


def api_routes() -> list[tuple[str, str]]:
    return [(n, r) for n, r in _walk(get_resolver()) if r.startswith("api/")]


@dataclass(frozen=True)
class Site:
    home: Path
    entry_key: str
    audit_pk: int
    session_id: str = ""

    def url(self, name: str, route: str) -> str:
        """A real address for a route, each parameter filled with something that exists."""
        values = {
            "target": "memory",
            "key": self.entry_key,
            "pk": str(self.audit_pk),
            "token": "not-a-real-token",
            "session_id": self.session_id,
            "name": BACKUP_NAME if name.startswith(("memory_backup", "memory_restore")) else "hindsight",
        }
        if name.startswith("provider_contents"):
            # hindsight's contents come from its server, which this site does not run (a 503 in
            # words); a cloud provider's page is the one that answers here without a server.
            values["name"] = "mem0"

        def fill(match: re.Match[str]) -> str:
            return values.get(match.group(1), "sample")

        return "/" + re.sub(r"<(?:\w+:)?(\w+)>", fill, route).lstrip("^").rstrip("$")


def seed_site(home: Path, *, user) -> Site:
    """Something on every page of ``home``, changed through the real services."""
    from admin_panel.models import AuditEntry
    from admin_panel.selectors.memory import entry_key
    from admin_panel.services import providers as provider_services
    from memory_core import pending

    memories = home / "memories"
    memories.mkdir(parents=True, exist_ok=True)
    (memories / "MEMORY.md").write_text(MEMORY_TEXT, encoding="utf-8")
    (memories / "USER.md").write_text(USER_TEXT, encoding="utf-8")
    (memories / BACKUP_NAME).write_text(MEMORY_TEXT + "\n§\nA fact only in the backup.", encoding="utf-8")
    pending.stage(home, payload={"action": "add", "target": "memory", "content": "Deploys go to Ubuntu 24.04",
                                 "old_text": None}, summary="add to memory: Deploys go to Ubuntu 24.04")
    plugin = home / "plugins" / "mytool"
    plugin.mkdir(parents=True)
    (plugin / "__init__.py").write_text("# register_memory_provider\n", encoding="utf-8")
    (plugin / "config_schema.py").write_text(PLUGIN_SCHEMA, encoding="utf-8")
    (home / "config.yaml").write_text("_config_version: 33\nmemory:\n  provider: ''\n", encoding="utf-8")
    provider_services.save_provider_settings(user=user, channel="panel", home=home, name="hindsight",
                                             values={"bank_id": "bank-one", "mode": "local_external"})
    provider_services.save_provider_settings(user=user, channel="panel", home=home, name="hindsight",
                                             values={"bank_id": "bank-two"})
    from admin_panel.demo_sessions import demo_session_ids, seed_demo_sessions
    from tests.demo_homes import seeded

    seeded(home, seed_demo_sessions)
    entry = AuditEntry.objects.order_by("-pk").first()
    assert entry is not None
    return Site(home=home, entry_key=entry_key("Repo uses uv for Python deps."), audit_pk=entry.pk,
                session_id=demo_session_ids(home)[-1])


def snapshot(home: Path) -> dict[str, bytes]:
    """Every file of a home with its bytes (a write of any kind changes this)."""
    return {str(p.relative_to(home)): p.read_bytes() for p in sorted(home.rglob("*")) if p.is_file()}


def json_of(response) -> object:
    return json.loads(response.content.decode("utf-8"))


class _SubmitFinder:
    """Enabled submit controls inside POST forms of the page's <main> (what a user can press to
    change something)."""

    def __init__(self) -> None:
        from html.parser import HTMLParser

        finder = self

        class Parser(HTMLParser):
            def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
                finder.start(tag, dict(attrs))

            def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
                finder.start(tag, dict(attrs))

            def handle_endtag(self, tag: str) -> None:
                finder.end(tag)

        self.parser = Parser(convert_charrefs=True)
        self.in_main = False
        self.post_forms = 0
        self.found: list[str] = []

    def start(self, tag: str, attrs: dict[str, str | None]) -> None:
        if tag == "main":
            self.in_main = True
        if not self.in_main:
            return
        if tag == "form":
            self.post_forms += (attrs.get("method") or "get").lower() == "post"
        elif self.post_forms and "disabled" not in attrs:
            kind = (attrs.get("type") or ("submit" if tag == "button" else "")).lower()
            if tag in ("button", "input") and kind in ("submit", "image"):
                self.found.append(f"<{tag} {attrs}>")

    def end(self, tag: str) -> None:
        if tag == "main":
            self.in_main = False
        elif tag == "form" and self.post_forms:
            self.post_forms -= 1


def change_controls(html: str) -> list[str]:
    finder = _SubmitFinder()
    finder.parser.feed(html)
    return finder.found

"""Recording changes in the audit log.

Every write path (panel views, API views, management commands) calls :func:`record` after a
change has landed. ``details`` must be JSON-serialisable and must never contain a secret value.
Conventional shapes of ``details`` per kind:

- provider_settings: ``{"changes": [{"key", "location", "old", "new"} | {"key", "secret": "set" |
  "replaced" | "cleared", "store"}], "written": [...]}``
- activation: ``{"old": "<name>", "new": "<name>"}``
- memory_settings: ``{"changes": [{"key", "old", "new"}]}``
- memory_entry: ``{"action": "add" | "edit" | "delete" | "restore" | "merge", "target": "memory" | "user",
  "content": ..., "old_content": ...}`` (merge: ``old_content`` lists the merged entries)
- approval: ``{"action": "approve" | "reject", "pending_id", "summary", "result"}``; an approval also
  carries ``"payload"``, the staged write in the ``memory`` tool's argument shape
- revert: ``{"reverted_entry": <pk>, "changes": [...], "written": [...], "secrets_not_reverted": [...],
  "not_restored": [...]}``
- secret_store: ``{"old": "env_file" | "keyring", "new": "env_file" | "keyring"}``
- api_token: ``{"action": "create" | "revoke", "token_id": <pk>, "name": "<label>", "for_user": "<username>"}``
  (never the token, nor its digest)
- account: ``{"action": "create", "account": "<username>", "staff": true}``
- invitation: ``{"action": "create" | "accept" | "revoke", "link_id": <pk>, "role": "<role>"}``, with
  ``"account": "<username>"`` on accept (never the link, nor its digest)
- a provider_settings or memory_settings entry written by a copy between profiles also carries
  ``"profile": "<target>"`` and ``"copied_from": "<source>"`` (``home`` is the target's home)

``summary`` is plain English written at record time: it is what exports carry and what the audit
page falls back to for rows whose ``details`` it cannot read. The page itself words each entry in
the reader's language from ``kind`` and ``details`` (``admin_panel.selectors.audit.describe``).

Changes made by management commands have no panel user: they record the operating-system account
that ran the command (:func:`command_username`) in ``username``, with channel ``"command"``.
"""

from __future__ import annotations

import getpass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from admin_panel.models import AuditEntry
from admin_panel.permissions import role_of
from provider_schemas.homes import profile_name


def record(
    *,
    user: AbstractBaseUser | AnonymousUser | None,
    channel: str,
    home: Path,
    kind: str,
    summary: str,
    provider: str = "",
    details: dict[str, Any] | None = None,
    username: str = "",
) -> AuditEntry:
    """Store one change. ``username`` names who acted when there is no panel user (a command's
    operating-system account); a signed-in ``user`` always wins over it."""
    real_user = user if user is not None and user.is_authenticated else None
    return AuditEntry.objects.create(
        user=real_user,
        username=real_user.get_username() if real_user is not None else username[:150],
        actor_role=role_of(real_user) if real_user is not None else "",
        channel=channel,
        home=str(home),
        profile=profile_name(Path(home)),
        kind=kind,
        provider=provider,
        summary=summary[:500],
        details=details or {},
    )


def command_username() -> str:
    """The operating-system account running this process ("" when the system cannot say)."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no USER/LOGNAME and no passwd entry (e.g. an arbitrary container uid)
        return ""


def record_panel_change_by_command(*, kind: str, summary: str, details: dict[str, Any]) -> AuditEntry:
    """A change to the panel's own state (accounts, API tokens) made by a management command, as
    done by the operating-system account that ran it. Such state belongs to no home: the entry names
    the home the panel serves, so the log stays one list."""
    return record(
        user=None,
        username=command_username(),
        channel="command",
        home=Path(settings.HERMES_HOME),
        kind=kind,
        summary=summary,
        details=details,
    )

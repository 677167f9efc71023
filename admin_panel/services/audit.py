"""Recording changes in the audit log.

Every write path (panel views, API views, management commands) calls :func:`record` after a
change has landed. ``details`` must be JSON-serialisable and must never contain a secret value.
Conventional shapes of ``details`` per kind:

- provider_settings: ``{"changes": [{"key", "location", "old", "new"} | {"key", "secret": "set" |
  "replaced" | "cleared", "store"}], "written": [...]}``
- activation: ``{"old": "<name>", "new": "<name>"}``
- memory_settings: ``{"changes": [{"key", "old", "new"}]}``
- memory_entry: ``{"action": "add" | "edit" | "delete" | "restore", "target": "memory" | "user",
  "content": ..., "old_content": ...}``
- approval: ``{"action": "approve" | "reject", "pending_id", "summary", "result"}``
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from admin_panel.models import AuditEntry


def record(
    *,
    user: AbstractBaseUser | AnonymousUser | None,
    channel: str,
    home: Path,
    kind: str,
    summary: str,
    provider: str = "",
    details: dict[str, Any] | None = None,
) -> AuditEntry:
    real_user = user if user is not None and user.is_authenticated else None
    return AuditEntry.objects.create(
        user=real_user,
        username=real_user.get_username() if real_user is not None else "",
        channel=channel,
        home=str(home),
        kind=kind,
        provider=provider,
        summary=summary[:500],
        details=details or {},
    )

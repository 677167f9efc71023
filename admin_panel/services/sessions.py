"""The Sessions area changes nothing in the agent's home; the one thing it records is who
exported which session (the audit log)."""

from __future__ import annotations

from pathlib import Path

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from admin_panel.models import AuditEntry
from admin_panel.services.audit import record

FORMAT_NAMES = {"markdown": "Markdown", "json": "JSON"}


def record_export(*, user: AbstractBaseUser | AnonymousUser, channel: str, home: Path, session_id: str,
                  fmt: str) -> AuditEntry:
    return record(
        user=user,
        channel=channel,
        home=home,
        kind=AuditEntry.Kind.SESSION_EXPORT,
        summary=f"Exported the session {session_id} as {FORMAT_NAMES[fmt]}",
        details={"session_id": session_id, "format": fmt},
    )

"""Reading back what a test made the panel record."""

from __future__ import annotations

from admin_panel.models import AuditEntry


def latest_entry() -> AuditEntry:
    entry = AuditEntry.objects.order_by("-pk").first()
    assert entry is not None, "nothing was audited"
    return entry

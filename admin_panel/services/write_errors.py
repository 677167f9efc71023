"""Why a write failed, from the engines' errors, in one place (docs/request_limits.md).

``memory_core`` and ``provider_schemas`` raise their own errors (``RuntimeError`` from an atomic
write, ``SaveFailed`` after a rollback) chained to the ``OSError`` that stopped them; the errno on
that chain is the code. A full disk (ENOSPC) and an exhausted quota (EDQUOT) read the same to a
person, and are answered 507 Insufficient Storage everywhere, pages and API alike.
"""

from __future__ import annotations

import errno

from django.utils.translation import gettext as _

DISK_FULL = "disk_full"
DISK_FULL_STATUS = 507
_DISK_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})


def write_error_code(exc: BaseException | None) -> str | None:
    """``DISK_FULL`` when an OSError for a full disk or quota is on ``exc``'s cause chain, else None."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, OSError) and exc.errno in _DISK_FULL_ERRNOS:
            return DISK_FULL
        exc = exc.__cause__ if exc.__cause__ is not None else exc.__context__
    return None


def is_disk_full(exc: BaseException | None) -> bool:
    return write_error_code(exc) == DISK_FULL


def reports_disk_full(text: str) -> bool:
    """For an engine that already turned the error into its text (a replayed pending write reports
    ``str()`` of the write's error): the ``[Errno N]`` Python puts in an OSError's text."""
    return any(f"[Errno {code}]" in text for code in _DISK_FULL_ERRNOS)


def disk_full_text() -> str:
    return _("The disk is full: nothing was changed.")

"""What a write flow ended in, as a value: the one vocabulary between services and responses.

A service catches the engines' errors once and returns an ``Outcome``; ``admin_panel.responses``
is the only place that turns an outcome into a page or a JSON answer (docs/admin_panel.md, "The
save walk"). Views never catch engine errors for a write.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import provider_schemas
from admin_panel.services.write_errors import is_disk_full

PLANNED = "planned"  # validated and computed, nothing written (the review step)
SAVED = "saved"
INVALID = "invalid"  # a value breaks a rule: per-field errors
CONFLICT = "conflict"  # the files changed since the form was loaded
REFUSED = "refused"  # a storage file does not parse: it is never overwritten
STORE_UNAVAILABLE = "store_unavailable"  # the OS keyring cannot be used
WRITE_FAILED = "write_failed"  # a write failed and was rolled back (permission, I/O)
DISK_FULL = "disk_full"  # ENOSPC / EDQUOT, rolled back
UNKNOWN = "unknown"  # no such provider (or a name that cannot be one)
SCHEMA_ERROR = "schema_error"  # the provider's declaration does not load
NOT_READY = "not_ready"  # activation refused: required secrets missing or the schema broken


@dataclass
class Outcome:
    kind: str
    plan: Any = None  # provider_schemas SavePlan (PLANNED)
    result: Any = None  # provider_schemas SaveResult (SAVED)
    errors: dict[str, str] = field(default_factory=dict)  # INVALID: key -> the engine's message
    details: dict[str, Any] = field(default_factory=dict)  # INVALID: key -> constraint Violation
    changes: list[str] = field(default_factory=list)  # CONFLICT: what changed
    error: BaseException | None = None  # the engine error behind a failure
    home: Path | None = None

    @property
    def ok(self) -> bool:
        return self.kind in (PLANNED, SAVED)


# The engine errors a write can end in, and the outcome each one is. Anything else is a bug and
# propagates (a 500 with the error logged), as before.
WRITE_ERRORS = (
    provider_schemas.ValidationFailed,
    provider_schemas.ConflictError,
    provider_schemas.StorageParseError,
    provider_schemas.SecretStoreUnavailable,
    provider_schemas.SaveFailed,
    provider_schemas.UnknownProvider,
    provider_schemas.InvalidProviderName,
    provider_schemas.SchemaLoadError,
    provider_schemas.NotReady,
)


def outcome_of(exc: BaseException, *, home: Path) -> Outcome:
    """The outcome an engine error stands for (one of ``WRITE_ERRORS``)."""
    if isinstance(exc, provider_schemas.ValidationFailed):
        return Outcome(INVALID, errors=dict(exc.errors), details=dict(exc.details), error=exc, home=home)
    if isinstance(exc, provider_schemas.ConflictError):
        return Outcome(CONFLICT, changes=list(exc.changes), error=exc, home=home)
    if isinstance(exc, provider_schemas.StorageParseError):
        return Outcome(REFUSED, error=exc, home=home)
    if isinstance(exc, provider_schemas.SecretStoreUnavailable):
        return Outcome(STORE_UNAVAILABLE, error=exc, home=home)
    if isinstance(exc, provider_schemas.UnknownProvider | provider_schemas.InvalidProviderName):
        return Outcome(UNKNOWN, error=exc, home=home)
    if isinstance(exc, provider_schemas.NotReady):
        return Outcome(NOT_READY, error=exc, home=home)
    if isinstance(exc, provider_schemas.SchemaLoadError):
        return Outcome(SCHEMA_ERROR, error=exc, home=home)
    if is_disk_full(exc) and getattr(exc, "rolled_back", True):
        return Outcome(DISK_FULL, error=exc, home=home)
    return Outcome(WRITE_FAILED, error=exc, home=home)


def from_plan(plan: Any, *, home: Path) -> Outcome:
    """A plan's own verdict: invalid values and conflicts are reported in it, not raised."""
    if plan.errors:
        return Outcome(INVALID, plan=plan, errors=dict(plan.errors), details=dict(plan.error_details), home=home)
    if plan.conflict:
        return Outcome(CONFLICT, plan=plan, changes=list(plan.conflict), home=home)
    return Outcome(PLANNED, plan=plan, home=home)

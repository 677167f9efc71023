"""Exceptions raised by provider_schemas. None of their messages ever contains a secret value."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from provider_schemas.messages import message as coded


class ProviderSchemaError(Exception):
    """Base class of every error this package raises on purpose."""


class InvalidProviderName(ProviderSchemaError, ValueError):
    """The name fails the provider-name guard; nothing on disk was looked at."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"Unknown memory provider: {name}")


class UnknownProvider(ProviderSchemaError, LookupError):
    """No provider of that name is discovered (``reason="not_found"``) or it has no schema file
    (``reason="no_schema"``; saving settings is impossible, activation is allowed)."""

    def __init__(self, name: str, *, reason: str = "not_found") -> None:
        self.name = name
        self.reason = reason
        super().__init__(f"Unknown memory provider: {name}")


@dataclass(frozen=True)
class SchemaErrorInfo:
    """What a failed schema load reports (docs/agent_formats.md §Loading declarations)."""

    type: str
    message: str
    line: int | None
    path: str

    def as_dict(self) -> dict[str, Any]:
        return {"type": self.type, "message": self.message, "line": self.line, "path": self.path}


class SchemaLoadError(ProviderSchemaError):
    """A schema file could not be executed or its ``CONFIG_SCHEMA`` failed the declaration checks."""

    def __init__(self, *, type: str, message: str, line: int | None, path: str) -> None:
        self.info = SchemaErrorInfo(type=type, message=message, line=line, path=path)
        where = f" (line {line})" if line is not None else ""
        super().__init__(f"{type}: {message}{where}")

    @property
    def type(self) -> str:
        return self.info.type

    @property
    def message(self) -> str:
        return self.info.message

    @property
    def line(self) -> int | None:
        return self.info.line

    @property
    def path(self) -> str:
        return self.info.path

    def as_dict(self) -> dict[str, Any]:
        return self.info.as_dict()

    def detail_for(self, name: str) -> str:
        """The 409 text of docs/api.md §Saving a provider's config."""
        return f"Config schema for '{name}' failed to load: {self}"


class ValidationFailed(ProviderSchemaError):
    """One or more submitted values are invalid; nothing was written.

    ``errors`` maps field key to message in declaration order; ``detail`` is the first one.
    """

    def __init__(self, errors: dict[str, str], *, details: Mapping[str, Any] | None = None) -> None:
        self.errors = dict(errors)
        # key -> constraints.Violation for the errors that come from a declared constraint
        self.details = dict(details or {})
        self.detail = next(iter(self.errors.values()), "Invalid input")
        super().__init__(self.detail)


class StorageParseError(ProviderSchemaError):
    """A storage file exists but cannot be parsed (or has the wrong shape): it is never overwritten.

    ``file`` is the display name (relative to HERMES_HOME or ``~/``); ``problem`` the parser's
    message; ``detail`` the full text of docs/agent_formats.md §Provider storage.
    """

    def __init__(self, *, file: str, problem: str, fmt: str) -> None:
        from memory_core.safe_paths import LINK_PROBLEM

        self.file = file
        self.problem = problem
        self.format = fmt
        # A file reached through a link out of the home is neither read nor written (docs/safe_paths.md).
        self.linked = problem == LINK_PROBLEM
        if self.linked:
            self.detail = coded("link_cannot_save", file=file)
        else:
            self.detail = coded("storage_unparsable", file=file, format=fmt, problem=problem)
        super().__init__(self.detail)

    @property
    def banner(self) -> str:
        """The same message without the save verb, for read-only display."""
        if self.linked:
            return link_banner(self.file)
        return coded("storage_unparsable_banner", file=self.file, format=self.format, problem=self.problem)


def link_banner(file: str) -> str:
    return coded("link_banner", name=file)


class ConflictError(ProviderSchemaError):
    """Something the save depends on changed since the form was rendered (or since the plan)."""

    def __init__(self, changes: list[str]) -> None:
        self.changes = list(changes)
        super().__init__(coded("changed_elsewhere", changes="; ".join(self.changes)))


class SecretStoreUnavailable(ProviderSchemaError):
    """The selected secret store (the OS keyring) cannot be used."""

    def __init__(self, reason: str, *, check: Any = None) -> None:
        self.reason = reason
        # The failed ``secret_stores.probe.KeyringCheck`` (backend, problem, platform) when known,
        # so the panel can say what happened and what to do in the reader's language.
        self.check = check
        super().__init__(coded("secret_store_unavailable", reason=reason))


class SaveFailed(ProviderSchemaError):
    """A write failed during commit; every change already applied was rolled back, unless
    ``rolled_back`` is False (the detail then lists what could not be undone)."""

    def __init__(self, detail: str, *, rolled_back: bool = True) -> None:
        self.rolled_back = rolled_back
        super().__init__(detail)


class NotReady(ProviderSchemaError):
    """Activation refused: the schema fails to load or required secrets are missing."""

    def __init__(
        self,
        name: str,
        *,
        status: str,
        missing_secrets: list[dict[str, Any]] | None = None,
        schema_error: SchemaLoadError | None = None,
    ) -> None:
        self.name = name
        self.status = status
        self.missing_secrets = list(missing_secrets or [])
        self.schema_error = schema_error
        super().__init__(coded("not_ready", name=name, status=status.replace("_", " ")))


class BodyError(ProviderSchemaError):
    """A malformed request body (HTTP 422); ``text`` is the detail."""

    def __init__(self, text: str) -> None:
        self.text = text
        super().__init__(text)

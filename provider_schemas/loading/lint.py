"""Lint a provider schema: the declaration checks plus advice for schema authors.

Findings carry a severity (``error`` makes ``schema check`` exit 1), the field key, a message and
the source line of the ``ProviderField(...)`` call, found with ``ast`` (the file is parsed, and
executed only through the loader).
"""

from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass
from pathlib import Path

from provider_schemas import constraints
from provider_schemas.config_schema import (
    KIND_BOOL,
    KIND_JSON,
    KIND_NUMBER,
    KIND_SECRET,
    KIND_SELECT,
    KIND_TEXT,
    ProviderConfigSchema,
    ProviderField,
)
from provider_schemas.errors import SchemaLoadError
from provider_schemas.loading.checks import declaration_problems
from provider_schemas.loading.loader import read_source, run_schema_code
from provider_schemas.loading.source_lines import field_lines
from provider_schemas.messages import message as coded
from provider_schemas.values import FieldError, coerce, parse_number

SECRET_WORDS = frozenset({"key", "apikey", "token", "password", "passwd", "passphrase", "secret", "credential"})
# Kinds whose value could be a credential typed in the clear (a number, bool or select cannot).
FREE_TEXT_KINDS = frozenset({KIND_TEXT, KIND_JSON})


@dataclass(frozen=True)
class LintFinding:
    severity: str  # "error" | "warning"
    key: str | None
    message: str
    line: int | None = None

    def as_dict(self) -> dict[str, object]:
        return {"severity": self.severity, "key": self.key, "message": self.message, "line": self.line}

    def __str__(self) -> str:
        where = f"line {self.line}: " if self.line else ""
        return f"{self.severity}: {where}{self.message}"


def _words(key: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", key)
    return [w.lower() for w in re.split(r"[^A-Za-z0-9]+", spaced) if w]


def _names_a_credential(key: str) -> bool:
    """``api_key``, ``apiKey``, ``access_token``, ``password``: the key's last word names a
    credential. ``key_prefix`` or ``token_budget`` only mention one."""
    words = _words(key)
    return bool(words) and words[-1] in SECRET_WORDS


def _possible_values(f: ProviderField) -> set[str] | None:
    """The edited strings a controlling field can take, or None when unbounded."""
    if f.kind == KIND_SELECT:
        return f.allowed_values()
    if f.kind == KIND_BOOL:
        return {"true", "false"}
    if f.kind == KIND_SECRET:
        return {""}
    return None


def _well_typed(f: object) -> bool:
    """A field whose attributes have the declared types; the declaration checks report the others,
    and the advice below would only trip over them."""
    return (
        isinstance(f, ProviderField)
        and isinstance(f.key, str)
        and isinstance(f.kind, str)
        and isinstance(f.label, str)
        and (f.env_key is None or isinstance(f.env_key, str))
        and all(isinstance(names, (tuple, list)) for names in (f.env_fallbacks, f.env_overrides, f.seed_env))
    )


def _constraint_advice(f: ProviderField) -> list[LintFinding]:
    """Constraints that contradict each other or the field's own default."""
    out: list[LintFinding] = []
    where = f"field {f.key!r}"
    numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (f.minimum, f.maximum))
    if numbers and f.minimum > f.maximum:  # type: ignore[operator]
        out.append(LintFinding("error", f.key, f"{where}: minimum {f.minimum} is greater than maximum {f.maximum}"))
        return out
    if f.integer is True:
        for attr in ("minimum", "maximum"):
            value = getattr(f, attr)
            if isinstance(value, float) and not value.is_integer():
                out.append(LintFinding("warning", f.key, f"{where}: integer field with a fractional {attr} {value}"))
    if isinstance(f.pattern_hint, str) and f.pattern_hint and not f.pattern:
        out.append(LintFinding("warning", f.key, f"{where}: pattern_hint without a pattern is never shown"))
    if isinstance(f.default, str) and f.default and constraints.has_constraints(f):
        try:
            coerce(f, f.default, storage=f.storage)
        except FieldError as exc:
            if exc.violation is not None:
                out.append(
                    LintFinding(
                        "error",
                        f.key,
                        f"{where}: default {f.default!r} breaks its own {exc.violation.constraint} constraint",
                    )
                )
        except (re.error, TypeError, ValueError):
            pass  # an ill-formed constraint, reported by the declaration checks
    return out


def _advice(schema: ProviderConfigSchema) -> list[LintFinding]:
    out: list[LintFinding] = []
    fields = [f for f in schema.fields if _well_typed(f)] if isinstance(schema.fields, (tuple, list)) else []
    by_key = {f.key: f for f in fields}
    writers: dict[str, str] = {}
    readers: dict[str, str] = {}
    for f in fields:
        if not f.label.strip():
            out.append(LintFinding("warning", f.key, coded("lint_empty_label", key=repr(f.key))))
        if f.is_secret and not f.env_key:
            # An error for authors; the loader still loads such a file (0.19.0 allows it) and the
            # page shows the field read-only.
            out.append(
                LintFinding(
                    "error",
                    f.key,
                    coded("lint_secret_without_env_key", key=repr(f.key)),
                )
            )
        out.extend(_constraint_advice(f))
        if f.kind in FREE_TEXT_KINDS and _names_a_credential(f.key):
            out.append(
                LintFinding(
                    "warning",
                    f.key,
                    coded("lint_credential_kind", key=repr(f.key), kind=repr(f.kind)),
                )
            )
        if f.kind == KIND_NUMBER and f.default and parse_number(f.default) is None:
            pass  # reported by the declaration checks
        for attr in ("when", "required_when"):
            cond = getattr(f, attr)
            if not isinstance(cond, dict):
                continue
            for ctl_key, expected in cond.items():
                ctl = by_key.get(ctl_key)
                if ctl is None or not isinstance(expected, str):
                    continue
                possible = _possible_values(ctl)
                if possible is not None and expected not in possible:
                    out.append(
                        LintFinding(
                            "error",
                            f.key,
                            coded("lint_condition_value", key=repr(f.key), attr=attr, control=repr(ctl_key),
                                  value=repr(expected)),
                        )
                    )
                elif ctl.kind == KIND_NUMBER and parse_number(expected) is None:
                    out.append(
                        LintFinding(
                            "error",
                            f.key,
                            coded("lint_condition_number", key=repr(f.key), attr=attr, control=repr(ctl_key),
                                  value=repr(expected)),
                        )
                    )
        if f.env_key:
            other = writers.get(f.env_key)
            if other is not None:
                out.append(
                    LintFinding(
                        "error",
                        f.key,
                        coded("lint_env_key_shared", key=repr(f.key), variable=f.env_key, other=repr(other)),
                    )
                )
            else:
                writers[f.env_key] = f.key
        for name in (*f.env_fallbacks, *f.env_overrides, *f.seed_env):
            if not isinstance(name, str):
                continue
            owner = readers.get(name)
            if owner is not None and owner != f.key:
                out.append(
                    LintFinding("warning", f.key, coded("lint_env_read_twice", key=repr(f.key), variable=name,
                                                        other=repr(owner)))
                )
            readers.setdefault(name, f.key)
    for name, reader in readers.items():
        writer = writers.get(name)
        if writer is not None and writer != reader:
            out.append(
                LintFinding(
                    "warning",
                    reader,
                    coded("lint_env_is_env_key", key=repr(reader), variable=name, other=repr(writer)),
                )
            )
    return out


def lint(
    schema_or_path: ProviderConfigSchema | str | os.PathLike[str], *, name: str | None = None
) -> list[LintFinding]:
    """All findings for a schema object or a schema file, sorted by line.

    For a file the expected provider name is the directory name unless ``name`` is given; a file
    that does not load gives a single error finding with the load error's line.
    """
    lines: dict[str, list[int]] = {}
    if isinstance(schema_or_path, ProviderConfigSchema):
        schema: object = schema_or_path
        expected = name
    else:
        path = Path(schema_or_path)
        real = Path(os.path.realpath(path))
        expected = name if name is not None else real.parent.name
        try:
            # Parse once: the same tree gives the field lines and the code to run.
            source, _stat = read_source(real, display=str(path))
            try:
                tree: bytes | ast.Module = ast.parse(source, filename=str(real))
            except (SyntaxError, ValueError):
                tree = source  # run_schema_code reports the error with its line
            schema = run_schema_code(tree, filename=str(real), name=expected, display=str(path))
        except SchemaLoadError as exc:
            return [LintFinding("error", None, coded("typed_error", type=exc.type, message=exc.message), exc.line)]
        lines = field_lines(tree) if isinstance(tree, ast.Module) else {}
    findings = [LintFinding("error", p.key, p.message) for p in declaration_problems(schema, expected_name=expected)]
    if isinstance(schema, ProviderConfigSchema):
        findings.extend(_advice(schema))
    seen_count: dict[str, int] = {}
    located: list[LintFinding] = []
    for finding in findings:
        line = None
        if finding.key is not None and finding.key in lines:
            candidates = lines[finding.key]
            if "duplicate key" in finding.message:
                # The n-th duplicate points at the (n+1)-th declaration.
                seen_count[finding.key] = seen_count.get(finding.key, 0) + 1
                index = min(seen_count[finding.key], len(candidates) - 1)
                line = candidates[index]
            else:
                line = candidates[0]
        located.append(LintFinding(finding.severity, finding.key, finding.message, line))
    located.sort(key=lambda f: (f.line is None, f.line or 0, f.severity != "error"))
    return located


def has_errors(findings: list[LintFinding]) -> bool:
    return any(f.severity == "error" for f in findings)

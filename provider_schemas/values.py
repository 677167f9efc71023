"""Values of fields: input normalisation, per-kind coercion and validation, the edited-string
form, and ``when`` visibility (docs/agent_formats.md §Reading provider values, §Reading provider values, §Saving
provider values, §Saving provider values). Pure functions."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from provider_schemas.config_schema import (
    KIND_BOOL,
    KIND_JSON,
    KIND_NUMBER,
    KIND_SECRET,
    KIND_SELECT,
    STORAGE_ENV_FILE,
    ProviderField,
)
from provider_schemas.constraints import Violation, has_constraints, unparseable_number, violation
from provider_schemas.messages import message as coded

# No setting needs more; a longer value is a mistake or an attack on the files the agent parses.
MAX_VALUE_CHARS = 65_536
# Invisible and direction-changing characters (the set the agent's threat scanner calls "invisible
# unicode"): in a setting they only hide or disguise what is really stored.
INVISIBLE_CHARS = frozenset(
    [chr(c) for c in (0x200B, 0x200C, 0x200D, 0x2060, 0x2062, 0x2063, 0x2064, 0xFEFF)]
    + [chr(c) for c in range(0x202A, 0x202F)]
    + [chr(c) for c in range(0x2066, 0x206A)]
)
TRUE_WORDS = frozenset({"true", "1", "yes", "on"})
FALSE_WORDS = frozenset({"false", "0", "no", "off"})
_INT_RE = re.compile(r"[+-]?[0-9]+")
# ASCII only: float() would also take "1_000", "١٢" and "infinity".
_FLOAT_RE = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


class FieldError(ValueError):
    """A submitted value is invalid; the message is the per-field text of docs/api.md §Saving a provider's config.

    ``violation`` is set when a declared constraint failed (or a constrained number did not
    parse): it carries the message for people and the constraint's name and limits."""

    def __init__(self, text: str, *, violation: Violation | None = None) -> None:
        super().__init__(text)
        self.text = text  # a provider_schemas.messages.Message when the engine made it
        self.violation = violation

    def __str__(self) -> str:
        return self.text  # keeps the Message's code through ``str(exc)``


def _check(field: ProviderField, value: Any) -> None:
    found = violation(field, value)
    if found is not None:
        raise FieldError(found.compat, violation=found)


@dataclass(frozen=True)
class Coerced:
    """Outcome of coercing one submitted value: ``action`` is ``"set"`` (``value`` is native),
    ``"clear"`` or ``"keep"`` (secrets only)."""

    action: str
    value: Any = None


def normalise_input(value: Any) -> str:
    """docs/agent_formats.md §Saving provider values: any JSON value as the string the coercion works on."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    if isinstance(value, str):
        return value
    return str(value)


def parse_number(text: str) -> int | float | None:
    """A finite int or float per docs/agent_formats.md §Saving provider values, or None. Integral floats become ints
    (``"1e3"`` → 1000)."""
    text = text.strip()
    if _INT_RE.fullmatch(text):
        try:
            return int(text)
        except ValueError:  # more digits than Python converts: no setting needs such a number
            return None
    if not _FLOAT_RE.fullmatch(text):
        return None
    try:
        number = float(text)
    except (ValueError, OverflowError):
        return None
    if not math.isfinite(number):
        return None
    if number.is_integer():
        return int(number)
    return number


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_json_text(text: str) -> Any:
    """Parse strict JSON (no NaN/Infinity, no lone surrogate escape). Raises ValueError."""
    value = json.loads(text, parse_constant=_reject_constant)
    # A "\ud800" escape decodes to half of a character pair, which no UTF-8 file can hold; it can
    # only arrive through an escape, so text without one needs no check.
    if "\\u" in text:
        try:
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError("a lone surrogate escape is no character") from None
    return value


def has_line_break(text: str) -> bool:
    return "\n" in text or "\r" in text


def field_storage(field: ProviderField, schema_storage: str) -> str:
    return field.storage or schema_storage


def coerce(field: ProviderField, raw: Any, *, storage: str, current: str | None = None) -> Coerced:
    """Validate and convert one submitted value (docs/agent_formats.md §Saving provider values, §Provider secrets).

    ``storage`` is the field's effective storage kind; ``current`` the edited string of the value
    stored now (a select may keep a stored value that is not among its options). Raises
    ``FieldError``.
    """
    key = field.key
    text = normalise_input(raw).strip()
    if len(text) > MAX_VALUE_CHARS:
        raise FieldError(coded("value_too_long", key=key, limit=f"{MAX_VALUE_CHARS:,}"))
    if "\x00" in text:
        raise FieldError(coded("line_breaks", key=key))
    hidden = sorted({f"U+{ord(c):04X}" for c in text if c in INVISIBLE_CHARS})
    if hidden:
        raise FieldError(coded("invisible_characters", key=key, characters=", ".join(hidden)))
    if field.kind == KIND_SECRET:
        if not text:
            return Coerced("keep")
        if has_line_break(text):
            raise FieldError(coded("line_breaks", key=key))
        return Coerced("set", text)
    if field.kind == KIND_BOOL:
        lowered = text.lower()
        if lowered in TRUE_WORDS:
            return Coerced("set", True)
        if lowered in FALSE_WORDS:
            return Coerced("set", False)
        raise FieldError(coded("invalid_boolean", key=key))
    if field.kind == KIND_SELECT:
        if not text:
            return Coerced("set", field.default) if field.default else Coerced("clear")
        if text in field.allowed_values() or (current is not None and text == current):
            return Coerced("set", text)
        raise FieldError(coded("invalid_choice", key=key))
    if field.kind == KIND_NUMBER:
        if not text:
            return Coerced("clear")
        number = parse_number(text)
        if number is None:
            found = unparseable_number(field) if has_constraints(field) else None
            raise FieldError(coded("invalid_number", key=key), violation=found)
        _check(field, number)
        return Coerced("set", number)
    if field.kind == KIND_JSON:
        if not text:
            return Coerced("clear")
        try:
            value = parse_json_text(text)
        except (ValueError, RecursionError):
            raise FieldError(coded("invalid_json", key=key)) from None
        if not isinstance(value, (dict, list)):
            raise FieldError(coded("json_shape", key=key))
        _check(field, value)
        return Coerced("set", value)
    # text (and any kind the checks let through as text)
    if not text:
        return Coerced("clear")
    if storage == STORAGE_ENV_FILE and has_line_break(text):
        raise FieldError(coded("line_breaks", key=key))
    _check(field, text)
    return Coerced("set", text)


def truthy(value: Any) -> bool:
    """How the plugins read a bool that may be stored as a string or number."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return value != 0
    if isinstance(value, str):
        return value.strip().lower() in TRUE_WORDS
    return bool(value)


def to_plain(value: Any) -> Any:
    """Round-trip YAML containers and scalars as plain Python (dict, list, str, int, float, bool)."""
    if isinstance(value, Mapping):
        return {str(k): to_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, str):
        return str(value)
    return value


def to_edit_string(field: ProviderField, value: Any) -> str:
    """docs/agent_formats.md §Reading provider values: the string shown in the form for a stored/env value (None → the
    default)."""
    if value is None:
        return field.default
    value = to_plain(value)
    if field.kind == KIND_BOOL:
        return "true" if truthy(value) else "false"
    if field.kind == KIND_JSON and isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def to_env_text(value: Any) -> str:
    """A native value as the text of a ``.env`` variable (bools ``true``/``false``, docs/agent_formats.md §Provider
    storage)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def when_matches(condition: Mapping[str, str] | None, effective: Mapping[str, str]) -> bool:
    """True when every key's effective value equals the expected string (AND; exact match)."""
    if not condition:
        return True
    return all(effective.get(key) == expected for key, expected in condition.items())

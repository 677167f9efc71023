"""The ``memory:`` section of ``config.yaml`` and activation (docs/agent_formats.md §Activation).

Native YAML types are written with the round-trip rules of §Provider storage; every other key and comment is
kept. Activation is the only way ``memory.provider`` changes, and it requires the provider's
required secrets (§Activation).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from provider_schemas.errors import (
    ConflictError,
    InvalidProviderName,
    NotReady,
    StorageParseError,
    UnknownProvider,
    ValidationFailed,
)
from provider_schemas.loading.discovery import BUILTIN_NAME, get_provider
from provider_schemas.loading.names import normalise_active_provider
from provider_schemas.messages import message as coded
from provider_schemas.reading.state import Notice, fingerprint_changes, make_fingerprint
from provider_schemas.saving.locks import home_lock
from provider_schemas.saving.transaction import FileWrite, commit
from provider_schemas.secret_stores import ENV_FILE
from provider_schemas.storage.json_doc import real_target
from provider_schemas.storage.yaml_doc import SectionEdit, YamlDoc, apply_edits, read_yaml_doc
from provider_schemas.values import FALSE_WORDS, TRUE_WORDS, FieldError, normalise_input, parse_number

# key → (type, default the agent applies, minimum for ints)
MEMORY_KEYS: dict[str, tuple[str, Any, int | None]] = {
    "memory_enabled": ("bool", True, None),
    "user_profile_enabled": ("bool", True, None),
    "write_approval": ("bool", False, None),
    "memory_char_limit": ("int", 2200, 1),
    "user_char_limit": ("int", 1375, 1),
    "nudge_interval": ("int", 10, 0),
    "provider": ("str", "", None),
}
LABELS = {
    "memory_enabled": "Built-in memory",
    "user_profile_enabled": "User profile",
    "write_approval": "Write approval",
    "memory_char_limit": "Memory size limit",
    "user_char_limit": "User profile size limit",
    "nudge_interval": "Nudge interval",
    "provider": "Active provider",
}


@dataclass
class MemorySettings:
    values: dict[str, Any]  # effective: stored value, else the agent's default
    stored: dict[str, Any]  # keys present in config.yaml
    defaults: dict[str, Any]
    exists: bool  # config.yaml exists
    error: str | None  # banner text when config.yaml cannot be used
    fingerprint: str
    active: str  # memory.provider normalised ("" = built-in only)
    warnings: list[Notice] = field(default_factory=list)


def _memory_section(doc: YamlDoc) -> tuple[dict[str, Any], str | None]:
    if doc.error is not None:
        return {}, doc.error
    memory = doc.data.get("memory")
    if memory is None:
        return {}, None
    if not isinstance(memory, Mapping):
        return {}, "'memory' is not a mapping"
    return dict(memory), None


def _path(home: Path) -> Path:
    return Path(home) / "config.yaml"


def _settings_from(doc: YamlDoc) -> MemorySettings:
    section, problem = _memory_section(doc)
    stored = {k: section[k] for k in MEMORY_KEYS if k in section and section[k] is not None}
    defaults = {k: spec[1] for k, spec in MEMORY_KEYS.items()}
    values = {**defaults, **stored}
    warnings = []
    for key, value in stored.items():
        kind = MEMORY_KEYS[key][0]
        if kind == "bool" and not isinstance(value, bool):
            warnings.append(Notice("string_bool", f"memory.{key} is {value!r}, not a boolean."))
        if kind == "int" and (isinstance(value, bool) or not isinstance(value, int)):
            warnings.append(Notice("not_a_number", f"memory.{key} is {value!r}, not a whole number."))
    if doc.bom:
        warnings.append(Notice("bom", "config.yaml starts with a byte-order mark; saving removes it."))
    error = None
    if problem is not None:
        error = coded("storage_unparsable_banner", file="config.yaml", format="YAML", problem=problem)
    return MemorySettings(
        values=values,
        stored=stored,
        defaults=defaults,
        exists=doc.exists,
        error=error,
        fingerprint=make_fingerprint({k: [k in stored, stored.get(k)] for k in MEMORY_KEYS} | {"__error__": problem}),
        active=normalise_active_provider(section.get("provider")),
        warnings=warnings,
    )


def read_memory_settings(*, home: Path) -> MemorySettings:
    return _settings_from(read_yaml_doc(_path(home), home=home))


def _coerce(key: str, raw: Any) -> tuple[str, Any]:
    """("set", native) or ("clear", None); raises ValueError with the field message."""
    kind, _default, minimum = MEMORY_KEYS[key]
    if kind == "bool" and isinstance(raw, bool):
        return "set", raw
    if kind == "int" and isinstance(raw, int) and not isinstance(raw, bool):
        number: Any = raw
    else:
        text = normalise_input(raw).strip()
        if text == "":
            return "clear", None
        if kind == "bool":
            lowered = text.lower()
            if lowered in TRUE_WORDS:
                return "set", True
            if lowered in FALSE_WORDS:
                return "set", False
            raise FieldError(coded("invalid_boolean", key=key))
        if kind == "str":
            return "set", text
        number = parse_number(text)
        if not isinstance(number, int):
            raise FieldError(coded("invalid_number", key=key))
    if minimum is not None and number < minimum:
        raise ValueError(f"'{key}' must be at least {minimum}")
    return "set", number


def _commit_memory(home: Path, doc: YamlDoc, sets: dict[str, Any], deletes: tuple[str, ...]) -> None:
    edit = SectionEdit(("memory",), sets, deletes, drop_if_empty=False)
    try:
        new = apply_edits(doc.raw, [edit])
    except ValueError as exc:
        raise StorageParseError(file="config.yaml", problem=str(exc), fmt="YAML") from None
    path = _path(home)
    try:
        old_mode = path.stat().st_mode & 0o777
    except OSError:
        old_mode = None
    commit(
        [
            FileWrite(
                real_target(path, home=home, label="config.yaml"),
                "config.yaml",
                new,
                doc.raw,
                old_mode if old_mode is not None else 0o600,
                old_mode,
            )
        ],
        [],
        None,
    )


def _parse_problem(doc: YamlDoc) -> StorageParseError | None:
    _section, problem = _memory_section(doc)
    if problem is not None:
        return StorageParseError(file="config.yaml", problem=problem, fmt="YAML")
    return None


def save_memory_settings(
    *,
    home: Path,
    values: Mapping[str, Any],
    expected_fingerprint: str | None = None,
    secret_store: str = ENV_FILE,
) -> MemorySettings:
    """Validate all values, then write them in one atomic change of ``config.yaml``.

    A blank value removes the key (the agent's default applies). ``provider`` follows the
    activation rules. Raises ``ValidationFailed``, ``StorageParseError``, ``ConflictError``,
    ``NotReady``, ``UnknownProvider``.
    """
    home = Path(home)
    with home_lock(home):
        doc = read_yaml_doc(_path(home), home=home)
        problem = _parse_problem(doc)
        if problem is not None:
            raise problem
        current = _settings_from(doc)
        if expected_fingerprint:
            labels = {k: f"{LABELS[k]} ({k})" for k in MEMORY_KEYS}
            changed = fingerprint_changes(expected_fingerprint, current.fingerprint, labels)
            if changed:
                raise ConflictError(changed)
        errors: dict[str, str] = {}
        sets: dict[str, Any] = {}
        deletes: list[str] = []
        for key, raw in values.items():
            if key not in MEMORY_KEYS:
                errors[key] = f"Unknown setting '{key}'"
                continue
            try:
                action, native = _coerce(key, raw)
            except ValueError as exc:
                errors[key] = str(exc)
                continue
            if key == "provider":
                action, native = "set", normalise_active_provider(native or "")
                if native == current.active:
                    continue
            if action == "clear":
                if key in current.stored:
                    deletes.append(key)
            elif (
                key not in current.stored
                or current.stored[key] != native
                or type(current.stored[key]) is not type(native)
            ):
                sets[key] = native
        if errors:
            order = [k for k in MEMORY_KEYS if k in errors] + [k for k in errors if k not in MEMORY_KEYS]
            raise ValidationFailed({k: errors[k] for k in order})
        if sets.get("provider"):
            check_ready(home=home, name=sets["provider"], secret_store=secret_store)
        if sets or deletes:
            _commit_memory(home, doc, sets, tuple(deletes))
        return read_memory_settings(home=home)


def check_ready(*, home: Path, name: str, secret_store: str) -> None:
    """The activation rules (docs/agent_formats.md §Activation) for ``name``, without writing: raises
    ``UnknownProvider`` (not
    installed, or the built-in name) or ``NotReady`` (schema fails to load, required secrets missing)."""
    from provider_schemas.reading.state import read_provider

    try:
        entry = get_provider(home=home, name=name)
    except InvalidProviderName:
        entry = None
    if entry is None or entry.name == BUILTIN_NAME:
        raise UnknownProvider(name)
    if entry.load_error is not None:
        raise NotReady(name, status="schema_error", schema_error=entry.load_error)
    if entry.schema is None:
        return
    state = read_provider(home=home, name=name, secret_store=secret_store)
    if state.missing_secrets:
        raise NotReady(name, status="needs_config", missing_secrets=state.missing_secrets)


def activate(*, home: Path, name: str, secret_store: str = ENV_FILE) -> str:
    """Write ``memory.provider: <name>`` when allowed (docs/agent_formats.md §Activation) and return the active name.

    Built-in aliases (``""``, ``built-in``, ``builtin``, ``none``) deactivate. Idempotent: an
    unchanged value is not rewritten. Raises ``UnknownProvider``, ``NotReady`` and
    ``StorageParseError``."""
    home = Path(home)
    wanted = normalise_active_provider(name)
    if not wanted:
        return deactivate(home=home)
    with home_lock(home):
        check_ready(home=home, name=wanted, secret_store=secret_store)
        doc = read_yaml_doc(_path(home), home=home)
        problem = _parse_problem(doc)
        if problem is not None:
            raise problem
        section, _ = _memory_section(doc)
        if section.get("provider") != wanted:
            _commit_memory(home, doc, {"provider": wanted}, ())
        return wanted


def deactivate(*, home: Path) -> str:
    """Write ``memory.provider: ""`` (built-in memory only); returns ``""``."""
    home = Path(home)
    with home_lock(home):
        doc = read_yaml_doc(_path(home), home=home)
        problem = _parse_problem(doc)
        if problem is not None:
            raise problem
        section, _ = _memory_section(doc)
        if normalise_active_provider(section.get("provider")):
            _commit_memory(home, doc, {"provider": ""}, ())
        return ""

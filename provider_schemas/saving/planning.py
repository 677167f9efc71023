"""Plan and commit a save of one provider's settings (docs/agent_formats.md §Saving provider values, §Provider secrets,
§Provider storage).

``plan_save`` validates every submitted value and computes the exact changes without writing;
``commit_save`` recomputes the plan under the locks and writes everything or nothing.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from provider_schemas.config_schema import (
    STORAGE_CONFIG_YAML,
    STORAGE_ENV_FILE,
    STORAGE_HONCHO_HOST_BLOCK,
    ProviderConfigSchema,
    ProviderField,
)
from provider_schemas.constraints import Violation
from provider_schemas.errors import (
    ConflictError,
    StorageParseError,
    UnknownProvider,
    ValidationFailed,
)
from provider_schemas.loading.discovery import ProviderEntry, get_provider
from provider_schemas.messages import message as coded
from provider_schemas.model import MAPPING_KINDS, OAUTH_PREFIX, SOURCE_ALIAS, SOURCE_STORED, Model
from provider_schemas.reading.state import (
    FieldState,
    Notice,
    ProviderState,
    active_provider,
    field_states,
    fingerprint_changes,
    fingerprint_labels,
    model_warnings,
    state_from_model,
)
from provider_schemas.saving.locks import home_lock
from provider_schemas.saving.transaction import FileWrite, KeyringOp, commit
from provider_schemas.secret_stores import ENV_FILE, KEYRING
from provider_schemas.storage import honcho as honcho_storage
from provider_schemas.storage.env_file import render as render_env
from provider_schemas.storage.json_doc import real_target, render_json
from provider_schemas.storage.yaml_doc import apply_edits, section_edit
from provider_schemas.values import (
    FieldError,
    coerce,
    normalise_input,
    to_edit_string,
    to_env_text,
    to_plain,
    when_matches,
)

SECRET_KINDS = ("secret_set", "secret_replace", "secret_clear")


@dataclass(frozen=True)
class Change:
    """One planned change. Secret changes never carry values (``old``/``new`` are None)."""

    location: str  # file as displayed (".env", "config.yaml", "mem0.json", "~/.honcho/config.json") or "keyring"
    key: str  # key, dotted path or variable
    old: str | None
    new: str | None
    kind: str  # set | clear | copy | secret_set | secret_replace | secret_clear
    field: str | None = None

    @property
    def file(self) -> str | None:
        return None if self.location == "keyring" else self.location

    def as_dict(self) -> dict[str, Any]:
        return {
            "location": self.location,
            "file": self.file,
            "key": self.key,
            "old": self.old,
            "new": self.new,
            "kind": self.kind,
            "field": self.field,
        }


@dataclass
class SavePlan:
    home: Path
    name: str
    secret_store: str
    fingerprint: str
    changes: list[Change] = field(default_factory=list)
    ignored: dict[str, list[str]] = field(default_factory=lambda: {"unknown": [], "hidden": []})
    errors: dict[str, str] = field(default_factory=dict)
    # Failed constraints behind some of ``errors`` (same keys): the message for people and limits.
    error_details: dict[str, Violation] = field(default_factory=dict)
    conflict: list[str] = field(default_factory=list)
    # docs/agent_formats.md §Saving provider values step 3: each field's visibility against the prospective values
    # (declaration order).
    visible: dict[str, bool] = field(default_factory=dict)
    warnings: list[Notice] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    secrets_set: list[str] = field(default_factory=list)
    secrets_cleared: list[str] = field(default_factory=list)
    values: dict[str, Any] = field(default_factory=dict, repr=False)
    clear: tuple[str, ...] = ()
    expected_fingerprint: str | None = None
    writes: list[FileWrite] = field(default_factory=list, repr=False)
    keyring_ops: list[KeyringOp] = field(default_factory=list, repr=False)

    @property
    def ok(self) -> bool:
        return not self.errors and not self.conflict

    @property
    def changes_nothing(self) -> bool:
        return not self.writes and not self.keyring_ops


@dataclass
class SaveResult:
    written: list[str]
    ignored: dict[str, list[str]]
    secrets_set: list[str]  # env_keys replaced: record set_at
    secrets_cleared: list[str]  # env_keys cleared: drop set_at
    changes: list[Change]
    warnings: list[Notice]
    active: str


# --- helpers -----------------------------------------------------------------------------------


def _canonical(data: Any) -> str:
    return json.dumps(to_plain(data), sort_keys=True, ensure_ascii=False)


def _same(a: Any, b: Any) -> bool:
    return _canonical(a) == _canonical(b)


def _file_mode(path: Path | None) -> int | None:
    if path is None:
        return None
    try:
        return os.stat(path).st_mode & 0o777
    except OSError:
        return None


def resolve_entry(*, home: Path, name: str) -> tuple[ProviderEntry, ProviderConfigSchema]:
    """The entry and its schema, or the error a save must answer with."""
    entry = get_provider(home=home, name=name)
    if entry is None:
        raise UnknownProvider(name)
    if entry.load_error is not None:
        raise entry.load_error
    if entry.schema is None:
        raise UnknownProvider(name, reason="no_schema")
    return entry, entry.schema


@contextlib.contextmanager
def save_locks(home: Path, schema: ProviderConfigSchema) -> Iterator[None]:
    """The per-home lock, plus Honcho's file lock for the whole read-modify-write."""
    with home_lock(home):
        if schema.storage == STORAGE_HONCHO_HOST_BLOCK:
            path, _shared = honcho_storage.choose_file(home)
            with honcho_storage.file_lock(path):
                yield
        else:
            yield


def parse_error(model: Model) -> StorageParseError | None:
    if model.primary_error is not None:
        fmt = "YAML" if model.kind == STORAGE_CONFIG_YAML else "JSON"
        return StorageParseError(file=model.primary_label, problem=model.primary_error, fmt=fmt)
    return None


class _Planner:
    """Applies one save to a copy of the model, recording every change."""

    def __init__(self, model: Model, plan: SavePlan) -> None:
        self.base = model
        self.work = model.clone()
        self.plan = plan
        self.changes: list[Change] = []
        self.first_creation: list[Change] = []

    # -- non-secret values --

    def _label(self) -> str:
        return self.work.primary_label

    def set_value(self, f: ProviderField, native: Any, *, into: list[Change] | None = None) -> None:
        out = self.changes if into is None else into
        work = self.work
        if work.field_storage(f) == STORAGE_ENV_FILE:
            var = f.env_key or ""
            text = to_env_text(native)
            old = work.env_get(var)
            if old != text:
                work.env_over[var] = text
                out.append(Change(".env", var, old, text, "set", f.key))
            return
        target = work.write_map(f)
        old = target.get(f.key)
        if f.key in target and _same(old, native) and type(to_plain(old)) is type(native):
            return
        target[f.key] = native
        out.append(
            Change(
                self._label(),
                work.key_path(f, f.key),
                to_edit_string(f, old) if old is not None else None,
                to_edit_string(f, native),
                "set",
                f.key,
            )
        )

    def clear_value(self, f: ProviderField) -> None:
        work = self.work
        if work.field_storage(f) == STORAGE_ENV_FILE:
            var = f.env_key or ""
            if work.env_get(var) is not None or (var not in work.env_over and work.env.defines(var)):
                old = work.env_get(var)
                work.env_over[var] = None
                self.changes.append(Change(".env", var, old, None, "clear", f.key))
            return
        existing = work.existing_write_map(f)
        present = [k for k in (f.key, *f.aliases) if k in existing]
        if not present:
            return
        target = work.write_map(f)
        for key in present:
            old = target.pop(key)
            self.changes.append(
                Change(
                    self._label(),
                    work.key_path(f, key),
                    to_edit_string(f, old) if old is not None else None,
                    None,
                    "clear",
                    f.key,
                )
            )

    # -- secrets --

    def _slots(self, f: ProviderField, *, value: str | None, replace: bool) -> None:
        work = self.work
        if work.field_storage(f) == STORAGE_ENV_FILE or work.kind not in MAPPING_KINDS:
            return
        existing = work.existing_write_map(f)
        for key in (f.key, *f.aliases):
            current = existing.get(key)
            if isinstance(current, str) and current.startswith(OAUTH_PREFIX):
                continue  # an OAuth access token is never modified or removed
            mirror = (
                replace
                and key == f.key
                and work.kind == STORAGE_HONCHO_HOST_BLOCK
                and f.scope != "root"
                and work.secret_store == ENV_FILE
            )
            if mirror:
                # 0.19.0 behaviour with the env file store: the key also goes into the host block,
                # so it beats a root apiKey left by `hermes honcho setup`.
                work.write_map(f)[key] = value
                kind = "secret_replace" if current else "secret_set"
                self.changes.append(Change(self._label(), work.key_path(f, key), None, None, kind, f.key))
            elif key in existing:
                work.write_map(f).pop(key, None)
                self.changes.append(Change(self._label(), work.key_path(f, key), None, None, "secret_clear", f.key))

    def set_secret(self, f: ProviderField, value: str, was_set: bool) -> None:
        work = self.work
        var = f.env_key or ""
        kind = "secret_replace" if was_set else "secret_set"
        if work.secret_store == KEYRING:
            work.keyring_over[var] = value
            self.changes.append(Change("keyring", var, None, None, kind, f.key))
            if work.env.defines(var):
                work.env_over[var] = None
                self.changes.append(Change(".env", var, None, None, "secret_clear", f.key))
        else:
            work.env_over[var] = value
            self.changes.append(Change(".env", var, None, None, kind, f.key))
        self._slots(f, value=value, replace=True)
        self.plan.secrets_set.append(var)

    def clear_secret(self, f: ProviderField) -> None:
        work = self.work
        var = f.env_key or ""
        before = len(self.changes)
        if var and work.env.defines(var):
            work.env_over[var] = None
            self.changes.append(Change(".env", var, None, None, "secret_clear", f.key))
        if var and work.secret_store == KEYRING and work.keyring_get(var):
            work.keyring_over[var] = None
            self.changes.append(Change("keyring", var, None, None, "secret_clear", f.key))
        self._slots(f, value=None, replace=False)
        if len(self.changes) > before and var:
            self.plan.secrets_cleared.append(var)

    # -- first creation --

    def seed(self, submitted: set[str]) -> None:
        """docs/agent_formats.md §Saving provider values: a new storage location starts from its fallback (already
        loaded into the model) or
        from the ``seed_env`` values, so creating it does not change what the plugin reads."""
        work = self.work
        if work.kind not in MAPPING_KINDS or work.primary_exists:
            return
        if work.fallback_entry is not None:
            for key in work.data:
                self.first_creation.append(Change(self._label(), key, None, None, "copy", None))
            return
        for f in work.schema.fields:
            if f.is_secret or not f.seed_env or f.key in submitted or work.field_storage(f) == STORAGE_ENV_FILE:
                continue
            raw = next((work.env_non_empty(n) for n in f.seed_env if work.env_non_empty(n)), None)
            if raw is None:
                continue
            try:
                result = coerce(f, raw, storage=work.field_storage(f))
            except FieldError:
                self.plan.warnings.append(
                    Notice("seed_env_invalid", coded("seed_env_invalid", variable=f.seed_env[0], key=f.key))
                )
                continue
            if result.action == "set":
                self.set_value(f, result.value, into=self.first_creation)


def _record(plan: SavePlan, key: str, exc: FieldError) -> None:
    plan.errors[key] = str(exc)
    if exc.violation is not None:
        plan.error_details[key] = exc.violation


def _blank(value: Any) -> bool:
    return normalise_input(value).strip() == ""


def _start(model: Model, plan: SavePlan, values: Mapping[str, Any], clear_set: set[str]) -> _Planner:
    """A planner on a copy of ``model``, seeded as a first creation would be (docs/agent_formats.md §Saving provider
    values)."""
    declared = {f.key for f in model.schema.fields}
    planner = _Planner(model, plan)
    planner.seed({k for k in values if k in declared} | (clear_set & declared))
    return planner


def _walk_fields(
    planner: _Planner, *, values: Mapping[str, Any], clear_set: set[str], states: Mapping[str, FieldState]
) -> dict[str, bool]:
    """Apply ``values`` / ``clear_set`` field by field in declaration order (docs/agent_formats.md §Saving provider
    values steps 3-4) to the
    planner's copy, recording changes and errors in its plan; return each field's visibility.

    Visibility is evaluated from the prospective values of the earlier fields: a field's value is
    its coerced submitted value when it is visible, submitted and valid, else what the copy
    resolves to (its current value, or its fallback/default once cleared). The one loop behind
    both ``plan_model`` and ``prospective_visibility``.
    """
    plan, model = planner.plan, planner.base
    effective: dict[str, str] = {}
    visibility: dict[str, bool] = {}
    for f in model.schema.fields:
        visible = when_matches(f.when, effective)
        visibility[f.key] = visible
        in_values, in_clear = f.key in values, f.key in clear_set
        applied_value: Any = None
        applied = False
        if (in_values or in_clear) and not visible:
            plan.ignored["hidden"].append(f.key)
        elif in_values and in_clear and not _blank(values[f.key]):
            plan.errors[f.key] = coded("set_and_cleared", key=f.key)
        elif f.is_secret and (in_values or in_clear):
            if in_clear:
                planner.clear_secret(f)
            else:
                try:
                    result = coerce(f, values[f.key], storage=model.field_storage(f))
                except FieldError as exc:
                    _record(plan, f.key, exc)
                else:
                    if result.action == "set":
                        if not f.env_key:
                            plan.errors[f.key] = coded("no_env_key", key=f.key)
                        else:
                            planner.set_secret(f, result.value, states[f.key].is_set)
                            _secret_value_notices(plan, f, result.value)
        elif in_clear:
            planner.clear_value(f)
            _cleared_notices(plan, planner.work, f)
        elif in_values:
            state = states[f.key]
            current_stored = state.value if state.source in (SOURCE_STORED, SOURCE_ALIAS) else None
            try:
                result = coerce(f, values[f.key], storage=model.field_storage(f), current=current_stored)
            except FieldError as exc:
                _record(plan, f.key, exc)
            else:
                if result.action == "set":
                    planner.set_value(f, result.value)
                    applied, applied_value = True, result.value
                else:
                    planner.clear_value(f)
                    _cleared_notices(plan, planner.work, f)
        if f.is_secret:
            effective[f.key] = ""
        elif applied:
            effective[f.key] = to_edit_string(f, applied_value)
        else:
            res = planner.work.resolve(f)
            text = to_edit_string(f, res.value)
            if f.options and text not in f.allowed_values() and res.source == "default":
                text = f.default
            effective[f.key] = text
    return visibility


def plan_model(
    *,
    model: Model,
    entry: ProviderEntry,
    values: Mapping[str, Any],
    clear: Iterable[str],
    expected_fingerprint: str | None,
) -> SavePlan:
    schema = model.schema
    current = state_from_model(entry, model, active=False)
    plan = SavePlan(
        home=model.home,
        name=schema.name,
        secret_store=model.secret_store,
        fingerprint=current.fingerprint,
        values=dict(values),
        clear=tuple(clear),
        expected_fingerprint=expected_fingerprint,
    )
    if expected_fingerprint:
        labels = fingerprint_labels(schema)
        if current.storage is not None and current.storage.file:
            labels["__storage__"] = current.storage.file
        plan.conflict = fingerprint_changes(expected_fingerprint, current.fingerprint, labels)
    problem = parse_error(model)
    if problem is not None:
        raise problem
    declared = {f.key for f in schema.fields}
    clear_set = set(plan.clear)
    plan.ignored["unknown"] = list(
        dict.fromkeys([k for k in values if k not in declared] + [k for k in plan.clear if k not in declared])
    )
    states = {s.key: s for s in current.fields}
    planner = _start(model, plan, values, clear_set)
    seeded_data = planner.work.clone().data
    plan.visible = _walk_fields(planner, values=values, clear_set=clear_set, states=states)
    if plan.errors:
        # Declaration order, as the API's "first error" relies on it.
        order = [f.key for f in schema.fields]
        plan.errors = {k: plan.errors[k] for k in order if k in plan.errors}
        plan.secrets_set.clear()
        plan.secrets_cleared.clear()
        return plan
    _finish(plan, planner, seeded_data)
    return plan


def _secret_value_notices(plan: SavePlan, f: ProviderField, value: str) -> None:
    if not value.isascii():
        plan.warnings.append(
            Notice(
                "non_ascii_secret",
                f"The new {f.label or f.key} contains non-ASCII characters; the agent strips them when it loads .env.",
            )
        )
    if "${" in value and plan.secret_store == ENV_FILE:
        plan.warnings.append(
            Notice(
                "env_interpolation", f"The new {f.label or f.key} contains '${{'; the agent expands ${{NAME}} in .env."
            )
        )


def _cleared_notices(plan: SavePlan, work: Model, f: ProviderField) -> None:
    res = work.resolve(f)
    if res.source in ("env_fallback", "env_override") and res.variable:
        plan.warnings.append(
            Notice(
                "env_still_applies",
                f"{f.label or f.key} is cleared, but .env {res.variable} still applies; remove that line to stop it.",
            )
        )


def _finish(plan: SavePlan, planner: _Planner, seeded_data: dict[str, Any]) -> None:
    base, work = planner.base, planner.work
    writes: list[FileWrite] = []
    created = False
    if work.kind in MAPPING_KINDS:
        if base.primary_exists:
            changed = not _same(work.data, base.original if base.original is not None else {})
        else:
            # A new location is created only when the save itself changes something in it.
            changed = not _same(work.data, seeded_data)
        write = _primary_write(base, work) if changed else None
        if write is not None:
            created = not base.primary_exists
            writes.append(write)
    # .env: only real changes
    env_changes = {
        name: value
        for name, value in work.env_over.items()
        if not (value is None and not base.env.defines(name))
        and not (value is not None and value == base.env.get(name))
    }
    if env_changes:
        if base.env.encoding_error is not None:
            raise StorageParseError(file=".env", problem=base.env.encoding_error, fmt="UTF-8 text")
        env_path = base.home / ".env"
        writes.append(
            FileWrite(
                target=real_target(env_path, home=base.home, label=".env"),
                label=".env",
                new=render_env(base.env, env_changes),
                old=base.env.raw,
                mode=0o600,
                old_mode=_file_mode(env_path),
            )
        )
    keyring_ops = [
        KeyringOp(name, value) for name, value in work.keyring_over.items() if value != base.keyring_values.get(name)
    ]
    # Drop recorded changes that turned out to be no-ops.
    kept: list[Change] = []
    for c in planner.changes:
        if c.location == ".env" and c.key not in env_changes:
            continue
        if c.location == "keyring" and not any(op.name == c.key for op in keyring_ops):
            continue
        kept.append(c)
    if created:
        kept = planner.first_creation + kept
        plan.warnings.extend(
            n for n in model_warnings(base) if n.code in ("legacy_file_will_be_hidden", "seed_env_will_be_frozen")
        )
    plan.changes = kept
    plan.writes = writes
    plan.keyring_ops = keyring_ops
    plan.files = [w.label for w in writes] + (["keyring"] if keyring_ops else [])
    owners = {f.env_key: f.key for f in base.schema.fields if f.is_secret and f.env_key}
    plan.secrets_set = [
        v
        for v in dict.fromkeys(plan.secrets_set)
        if any(c.field == owners.get(v) and c.kind in ("secret_set", "secret_replace") for c in kept)
    ]
    plan.secrets_cleared = [
        v
        for v in dict.fromkeys(plan.secrets_cleared)
        if any(c.field == owners.get(v) and c.kind == "secret_clear" for c in kept)
    ]
    if work.kind == STORAGE_HONCHO_HOST_BLOCK and work.secret_store == KEYRING and plan.secrets_set:
        root_key = base.data.get("apiKey")
        if root_key:
            plan.warnings.append(
                Notice(
                    "root_secret_wins",
                    f"{base.primary_label} still has a root apiKey, which the plugin reads before the keyring.",
                )
            )


def _primary_write(base: Model, work: Model) -> FileWrite | None:
    assert base.primary_path is not None
    target = real_target(base.primary_path, home=base.home, label=base.primary_label)
    old_mode = _file_mode(base.primary_path)
    if work.kind == STORAGE_CONFIG_YAML:
        edit = section_edit(work.yaml_parts, base.original, work.data)
        if edit is None:
            return None
        try:
            new = apply_edits(base.primary_raw, [edit])
        except ValueError as exc:
            raise StorageParseError(file="config.yaml", problem=str(exc), fmt="YAML") from None
        mode = old_mode if old_mode is not None else 0o600
        return FileWrite(target, base.primary_label, new, base.primary_raw, mode, old_mode)
    return FileWrite(target, base.primary_label, render_json(work.data), base.primary_raw, 0o600, old_mode)


# --- public ------------------------------------------------------------------------------------


def prospective_visibility(
    state_or_model: ProviderState | Model, *, values: Mapping[str, Any], clear: Iterable[str] = ()
) -> dict[str, bool]:
    """Which fields a save of ``values`` / ``clear`` would treat as visible (docs/agent_formats.md §Saving provider
    values
    step 3), key -> bool in declaration order: the form can show exactly the rows the save will
    validate and write.

    Computed by the same loop as ``plan_model``, on a copy of the state's model (a state from
    ``read_provider``, or a ``Model`` you loaded): nothing is read from disk, written, or
    raised for invalid values (an invalid value keeps the field's current value; a cleared field
    falls back to its env fallback or default). A state without a schema has no fields: ``{}``.
    """
    if isinstance(state_or_model, ProviderState):
        model = state_or_model.model
        if model is None:
            return {}
        states = {s.key: s for s in state_or_model.fields}
    else:
        model = state_or_model
        states = {s.key: s for s in field_states(model)}
    plan = SavePlan(
        home=model.home,
        name=model.schema.name,
        secret_store=model.secret_store,
        fingerprint="",
        values=dict(values),
        clear=tuple(clear),
    )
    clear_set = set(plan.clear)
    planner = _start(model, plan, values, clear_set)
    return _walk_fields(planner, values=values, clear_set=clear_set, states=states)


def _plan_locked(
    *,
    home: Path,
    name: str,
    values: Mapping[str, Any],
    clear: Iterable[str],
    secret_store: str,
    expected_fingerprint: str | None,
) -> SavePlan:
    entry, schema = resolve_entry(home=home, name=name)
    model = Model.load(home=home, schema=schema, secret_store=secret_store)
    return plan_model(model=model, entry=entry, values=values, clear=clear, expected_fingerprint=expected_fingerprint)


def plan_save(
    *,
    home: Path,
    name: str,
    values: Mapping[str, Any],
    clear: Iterable[str] = (),
    secret_store: str = ENV_FILE,
    expected_fingerprint: str | None = None,
) -> SavePlan:
    """Validate everything and compute the changes, writing nothing.

    Raises ``InvalidProviderName``, ``UnknownProvider`` (not found / no schema),
    ``SchemaLoadError``, ``StorageParseError`` and ``SecretStoreUnavailable``; invalid values and
    conflicts are reported in the plan (``errors``, ``conflict``).
    """
    home = Path(home)
    clear = list(clear)
    _entry, schema = resolve_entry(home=home, name=name)
    with save_locks(home, schema):
        return _plan_locked(
            home=home,
            name=name,
            values=values,
            clear=clear,
            secret_store=secret_store,
            expected_fingerprint=expected_fingerprint,
        )


def _commit_locked(plan: SavePlan, fresh: SavePlan) -> SaveResult:
    if fresh.errors:
        raise ValidationFailed(fresh.errors, details=fresh.error_details)
    if fresh.conflict:
        raise ConflictError(fresh.conflict)
    keyring = None
    if fresh.keyring_ops:
        from provider_schemas.secret_stores.keyring_store import KeyringStore

        keyring = KeyringStore(fresh.home)
    commit(fresh.writes, fresh.keyring_ops, keyring)
    return SaveResult(
        written=list(fresh.files),
        ignored=fresh.ignored,
        secrets_set=list(fresh.secrets_set),
        secrets_cleared=list(fresh.secrets_cleared),
        changes=list(fresh.changes),
        warnings=list(fresh.warnings),
        active=active_provider(home=fresh.home),
    )


def commit_save(plan: SavePlan) -> SaveResult:
    """Write a reviewed plan. Everything is re-read and re-planned under the locks; if the result
    differs from ``plan`` (someone changed a file meanwhile) ``ConflictError`` is raised and
    nothing is written."""
    if plan.errors:
        raise ValidationFailed(plan.errors, details=plan.error_details)
    if plan.conflict:
        raise ConflictError(plan.conflict)
    _entry, schema = resolve_entry(home=plan.home, name=plan.name)
    with save_locks(plan.home, schema):
        fresh = _plan_locked(
            home=plan.home,
            name=plan.name,
            values=plan.values,
            clear=plan.clear,
            secret_store=plan.secret_store,
            expected_fingerprint=plan.fingerprint,
        )
        if (
            not fresh.errors
            and not fresh.conflict
            and [c.as_dict() for c in fresh.changes] != [c.as_dict() for c in plan.changes]
        ):
            raise ConflictError(["The stored settings changed since the review; review the changes again."])
        return _commit_locked(plan, fresh)


def save_provider(
    *,
    home: Path,
    name: str,
    values: Mapping[str, Any],
    clear: Iterable[str] = (),
    secret_store: str = ENV_FILE,
    expected_fingerprint: str | None = None,
) -> SaveResult:
    """Validate and write in one step (plan + commit under the same locks). Raises
    ``ValidationFailed``, ``ConflictError``, ``StorageParseError``, ``SchemaLoadError``,
    ``UnknownProvider``, ``SecretStoreUnavailable``, ``SaveFailed``."""
    home = Path(home)
    clear = list(clear)
    _entry, schema = resolve_entry(home=home, name=name)
    with save_locks(home, schema):
        plan = _plan_locked(
            home=home,
            name=name,
            values=values,
            clear=clear,
            secret_store=secret_store,
            expected_fingerprint=expected_fingerprint,
        )
        return _commit_locked(plan, plan)

"""Read one provider's settings: every field's value, source, location and warnings (selectors)."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from memory_core.caching import per_file_version
from memory_core.safe_paths import LINK_PROBLEM
from provider_schemas.config_schema import (
    KIND_BOOL,
    KIND_SELECT,
    STORAGE_ENV_FILE,
    STORAGE_HONCHO_HOST_BLOCK,
    ProviderConfigSchema,
    ProviderField,
)
from provider_schemas.errors import SchemaLoadError, UnknownProvider, link_banner
from provider_schemas.loading.discovery import ProviderEntry, get_provider
from provider_schemas.loading.names import normalise_active_provider
from provider_schemas.messages import message as coded
from provider_schemas.model import (
    SOURCE_ALIAS,
    SOURCE_DEFAULT,
    SOURCE_ENV_FALLBACK,
    SOURCE_ENV_OVERRIDE,
    SOURCE_SEED_ENV,
    SOURCE_STORED,
    Model,
    Resolution,
)
from provider_schemas.reading.traps import placeholder, provider_warnings
from provider_schemas.secret_stores import ENV_FILE
from provider_schemas.storage.yaml_doc import read_yaml_doc
from provider_schemas.values import to_edit_string, when_matches

NO_ENV_KEY_NOTE = "This secret has no env_key; the panel cannot store it."
SYNTHETIC_DESCRIPTION = "Stored value not offered by this schema"


@dataclass(frozen=True)
class Notice:
    code: str
    message: str

    def as_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


@dataclass
class FieldState:
    field: ProviderField
    value: str
    is_set: bool
    source: str | None
    stored_key: str | None
    fallback_location: str | None
    location: dict[str, Any]
    env_key: str | None
    required: bool
    visible: bool
    placeholder: str
    options: list[dict[str, Any]]
    warnings: list[Notice] = field(default_factory=list)
    stores: list[str] | None = None
    set_at: str | None = None
    read_only_reason: str | None = None
    missing: bool = False  # required and not set

    key = property(lambda self: self.field.key)
    label = property(lambda self: self.field.label)
    kind = property(lambda self: self.field.kind)
    description = property(lambda self: self.field.description)
    info = property(lambda self: self.field.info)
    inline = property(lambda self: self.field.inline)
    group = property(lambda self: self.field.group)
    default = property(lambda self: self.field.default)
    when = property(lambda self: self.field.when)

    @property
    def is_secret(self) -> bool:
        return self.field.is_secret

    @property
    def source_badge(self) -> str:
        """The UI badge of docs/agent_formats.md §What the provider pages show."""
        if self.source == SOURCE_STORED:
            return "stored"
        if self.source == SOURCE_ALIAS:
            return f"legacy key {self.stored_key}"
        if self.source in (SOURCE_ENV_FALLBACK, SOURCE_SEED_ENV):
            return f"from .env {self._variable}"
        if self.source == SOURCE_ENV_OVERRIDE:
            return f"overridden by .env {self._variable}"
        return "default" if self.source == SOURCE_DEFAULT else ""

    _variable: str | None = None


@dataclass(frozen=True)
class StorageInfo:
    kind: str
    file: str | None  # display name of the file (None for config_yaml: see path)
    path: str | None  # config_yaml dotted path
    exists: bool
    error: str | None  # the banner text of docs/agent_formats.md §Provider storage

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        if self.path is not None:
            out["file"] = self.file
            out["path"] = self.path
        else:
            out["file"] = self.file
        out["exists"] = self.exists
        out["error"] = self.error
        return out


@dataclass(frozen=True)
class HonchoHost:
    key: str
    reason: str
    file: str
    shared: str | None

    def as_dict(self) -> dict[str, Any]:
        return {"key": self.key, "reason": self.reason, "file": self.file}


@dataclass
class ProviderState:
    entry: ProviderEntry
    schema: ProviderConfigSchema | None
    schema_error: SchemaLoadError | None
    fields: list[FieldState]
    storage: StorageInfo | None
    warnings: list[Notice]
    host: HonchoHost | None
    active: bool
    missing_secrets: list[dict[str, Any]]
    fingerprint: str
    model: Model | None = field(default=None, repr=False)

    name = property(lambda self: self.entry.name)
    description = property(lambda self: self.entry.description)
    origin = property(lambda self: self.entry.origin)

    @property
    def label(self) -> str:
        return self.schema.label if self.schema is not None else self.entry.label

    @property
    def docs_url(self) -> str:
        return self.schema.docs_url if self.schema is not None else ""

    @property
    def path(self) -> str | None:
        """The schema file for user plugins (``plugins/<name>/config_schema.py``), None if bundled."""
        if self.entry.origin != "user" or self.entry.schema_path is None:
            return None
        return f"{self.entry.path}/config_schema.py"

    @property
    def visible_fields(self) -> list[FieldState]:
        return [f for f in self.fields if f.visible]

    @property
    def hidden_fields(self) -> list[FieldState]:
        return [f for f in self.fields if not f.visible]

    @property
    def status(self) -> str:
        if self.schema_error is not None:
            return "schema_error"
        return "needs_config" if self.missing_secrets else "ready"

    @property
    def can_save(self) -> bool:
        return self.schema is not None and (self.storage is None or self.storage.error is None)

    def hidden_summary(self) -> list[dict[str, Any]]:
        return [{"key": f.key, "label": f.label, "when": f.when, "is_set": f.is_set} for f in self.hidden_fields]


# --- helpers -----------------------------------------------------------------------------------


def active_provider(*, home: Path) -> str:
    """``memory.provider`` of ``config.yaml``, normalised (``""``: built-in only or unreadable).
    Parsed once per version of the file (every page and API call asks)."""
    return per_file_version("active_provider", Path(home) / "config.yaml", _read_active_provider)


def _read_active_provider(path: Path) -> str:
    doc = read_yaml_doc(path, home=Path(path).parent)
    memory = doc.data.get("memory") if doc.error is None else None
    if not isinstance(memory, Mapping):
        return ""
    return normalise_active_provider(memory.get("provider"))


def _options(f: ProviderField, value: str, res: Resolution | None) -> tuple[list[dict[str, Any]], str]:
    options: list[dict[str, Any]] = [
        {"value": o.value, "label": o.label, "description": o.description} for o in f.options
    ]
    if f.kind != KIND_SELECT or value in f.allowed_values():
        return options, value
    if res is None or res.source == SOURCE_DEFAULT:
        return options, f.default
    options.append({"value": value, "label": value, "description": SYNTHETIC_DESCRIPTION, "disabled": True})
    return options, value


def _digest(obj: Any) -> str:
    # repr of plain lists/strings/bools is deterministic and much cheaper than JSON here.
    return hashlib.blake2b(repr(obj).encode("utf-8"), digest_size=6).hexdigest()


@functools.lru_cache(maxsize=4096)
def _quoted_key(key: str) -> str:
    # Field keys repeat on every read of a provider; quoting them is a pure function.
    return quote(key, safe="")


def make_fingerprint(parts: Mapping[str, Any]) -> str:
    """A token of per-item digests (``v1;key=digest;...``) so a later check can say what changed."""
    return "v1;" + ";".join(f"{_quoted_key(k)}={_digest(v)}" for k, v in parts.items())


def fingerprint_changes(expected: str, current: str, labels: Mapping[str, str]) -> list[str]:
    """Human-readable items that differ between two fingerprints (empty: nothing changed)."""
    if expected == current:
        return []

    def parse(token: str) -> dict[str, str] | None:
        if not token.startswith("v1;"):
            return None
        out: dict[str, str] = {}
        for item in token[3:].split(";"):
            if not item:
                continue
            key, sep, digest = item.rpartition("=")
            if not sep:
                return None
            out[unquote(key)] = digest
        return out

    old, new = parse(expected), parse(current)
    if old is None or new is None:
        return [coded("form_out_of_date")]
    items = []
    for key in list(dict.fromkeys([*new, *old])):
        if old.get(key) != new.get(key):
            items.append(coded("changed_since_loaded", item=labels.get(key, key)))
    return items


def fingerprint_parts(states: list[FieldState], storage: StorageInfo | None) -> dict[str, Any]:
    parts: dict[str, Any] = {}
    if storage is not None:
        parts["__storage__"] = [storage.file, storage.exists, storage.error]
    for s in states:
        if s.is_secret:
            # Presence and place only: a secret's value never feeds a token sent to the browser.
            parts[s.key] = [s.is_set, s.stores]
        else:
            parts[s.key] = [s.value, s.source, s.stored_key, s.fallback_location, s.is_set]
    return parts


def fingerprint_labels(schema: ProviderConfigSchema | None) -> dict[str, str]:
    labels = {"__storage__": coded("storage_file")}
    if schema is not None:
        labels.update({f.key: f"{f.label or f.key} ({f.key})" for f in schema.fields})
    return labels


def storage_info(model: Model) -> StorageInfo:
    schema = model.schema
    error = None
    if model.primary_error == LINK_PROBLEM:
        error = link_banner(model.primary_label)
    elif model.primary_error is not None:
        fmt = "YAML" if model.primary_label == "config.yaml" else "JSON"
        error = coded("storage_unparsable_banner", file=model.primary_label, format=fmt, problem=model.primary_error)
    elif model.env.encoding_error == LINK_PROBLEM and schema.storage == STORAGE_ENV_FILE:
        error = link_banner(".env")
    elif model.env.encoding_error is not None and schema.storage == STORAGE_ENV_FILE:
        error = coded("storage_unparsable_banner", file=".env", format="UTF-8 text", problem=model.env.encoding_error)
    if schema.storage == "config_yaml":
        return StorageInfo(schema.storage, "config.yaml", schema.storage_path, model.primary_exists, error)
    exists = model.primary_exists
    return StorageInfo(schema.storage, model.primary_label, None, exists, error)


# --- field states ------------------------------------------------------------------------------


def field_states(model: Model, *, set_at: Mapping[str, str] | None = None) -> list[FieldState]:
    """Every field of the schema resolved over ``model`` (visibility on effective values)."""
    schema = model.schema
    set_at = set_at or {}
    effective: dict[str, str] = {}
    resolutions: dict[str, Any] = {}
    shown_options: dict[str, tuple[list[dict[str, Any]], str]] = {}
    for f in schema.fields:
        if f.is_secret:
            resolutions[f.key] = model.secret(f)
            effective[f.key] = ""
        else:
            res = model.resolve(f)
            resolutions[f.key] = res
            shown_options[f.key] = _options(f, to_edit_string(f, res.value), res)
            effective[f.key] = shown_options[f.key][1]
    states: list[FieldState] = []
    for f in schema.fields:
        visible = when_matches(f.when, effective)
        location = model.location(f)
        ph = placeholder(model, f)
        if f.is_secret:
            sec = resolutions[f.key]
            state = FieldState(
                field=f,
                value="",
                is_set=sec.is_set,
                source=None,
                stored_key=None,
                fallback_location=None,
                location=location,
                env_key=f.env_key,
                required=False,
                visible=visible,
                placeholder=ph,
                options=[],
                stores=list(sec.stores),
                set_at=set_at.get(f.env_key) if f.env_key else None,
                read_only_reason=None if f.env_key else NO_ENV_KEY_NOTE,
            )
            state.warnings.extend(_secret_warnings(model, f, sec))
        else:
            res = resolutions[f.key]
            options, shown = shown_options[f.key]
            # is_set is storage presence, whichever source wins (an env override does not unset it).
            is_set = res.is_set or (res.source == SOURCE_ENV_OVERRIDE and model.resolve_stored(f).is_set)
            state = FieldState(
                field=f,
                value=shown,
                is_set=is_set,
                source=res.source,
                stored_key=res.stored_key,
                fallback_location=res.fallback_location,
                location=location,
                env_key=f.env_key if (f.env_key and model.field_storage(f) == STORAGE_ENV_FILE) else None,
                required=False,
                visible=visible,
                placeholder=ph,
                options=options,
            )
            state._variable = res.variable
            state.warnings.extend(_value_warnings(model, f, res))
        states.append(state)
    by_key = {s.key: s for s in states}
    for s in states:
        s.required = _is_required(s, effective, by_key)
        if s.required:
            s.missing = not s.is_set if s.is_secret else (s.value == "")
    return states


def _is_required(s: FieldState, effective: Mapping[str, str], by_key: Mapping[str, FieldState]) -> bool:
    f = s.field
    if not f.required or not s.visible:
        return False
    if f.required_when is not None and not when_matches(f.required_when, effective):
        return False
    for other in f.required_unless:
        o = by_key.get(other)
        if o is None:
            continue
        if (o.is_secret and o.is_set) or (not o.is_secret and o.source != SOURCE_DEFAULT):
            return False
    return True


def _value_warnings(model: Model, f: ProviderField, res: Resolution) -> list[Notice]:
    out: list[Notice] = []
    if f.kind == KIND_BOOL and res.is_set and isinstance(res.value, str) and model.field_storage(f) != STORAGE_ENV_FILE:
        out.append(
            Notice(
                "string_bool",
                coded("notice_string_bool", value=repr(res.value)),
            )
        )
    if res.source == SOURCE_ENV_OVERRIDE:
        underneath = model.resolve_stored(f)
        if underneath.is_set:
            out.append(
                Notice(
                    "env_override_shadows_value",
                    coded("notice_env_override", variable=res.variable,
                          value=repr(to_edit_string(f, underneath.value))),
                )
            )
    if res.is_set and res.slot == "root" and model.kind == STORAGE_HONCHO_HOST_BLOCK and f.scope == "host":
        out.append(
            Notice(
                "root_value",
                coded("notice_root_value", file=model.primary_label),
            )
        )
    return out


def _secret_warnings(model: Model, f: ProviderField, sec: Any) -> list[Notice]:
    out: list[Notice] = []
    for slot in sec.file_slots:
        file_and_path = slot.label[len("file:") :].replace("#", " ", 1)
        if slot.oauth:
            out.append(
                Notice(
                    "oauth_token",
                    coded("notice_oauth_token", where=file_and_path),
                )
            )
            continue
        if model.kind == STORAGE_HONCHO_HOST_BLOCK and slot.where == "host" and model.secret_store == ENV_FILE:
            env_value = model.env_non_empty(f.env_key) if f.env_key else None
            if env_value is not None and model.slot_secret_value(f, slot) == env_value:
                continue  # the mirror copy 0.19.0 also writes: same value, no shadowing
        out.append(
            Notice(
                "file_slot_shadows_secret",
                coded("notice_file_slot_secret", where=file_and_path),
            )
        )
    if sec.env_value_present and sec.keyring_value_present:
        out.append(
            Notice(
                "secret_in_env_and_keyring",
                coded("notice_env_and_keyring", variable=str(f.env_key)),
            )
        )
    if sec.fallback_variable:
        out.append(Notice("secret_from_fallback", coded("notice_secret_fallback", fallback=sec.fallback_variable,
                                                         variable=str(f.env_key))))
    return out


def model_warnings(model: Model) -> list[Notice]:
    out: list[Notice] = []
    schema = model.schema
    if model.primary_bom:
        out.append(Notice("bom", coded("notice_bom", file=model.primary_label)))
    if model.keyring_error is not None:
        out.append(
            Notice(
                "keyring_unavailable",
                coded("notice_keyring_unreadable", problem=str(model.keyring_error)),
            )
        )
    if model.env.encoding_error == LINK_PROBLEM and schema.storage != STORAGE_ENV_FILE:
        out.append(Notice("env_linked", link_banner(".env")))
    elif model.env.encoding_error is not None and schema.storage != STORAGE_ENV_FILE:
        out.append(
            Notice(
                "env_not_utf8",
                coded("notice_env_not_utf8", problem=model.env.encoding_error),
            )
        )
    if model.env.bom:
        out.append(
            Notice("bom", coded("notice_env_bom"))
        )
    for entry, problem in model.fallback_notes:
        out.append(Notice("fallback_unreadable", coded("notice_fallback_skipped", entry=entry, problem=problem)))
    if model.primary_error is None and not model.primary_exists and model.fallback_entry:
        out.append(
            Notice(
                "legacy_file_will_be_hidden",
                coded("notice_legacy_hidden", file=_primary_text(model), legacy=model.fallback_entry),
            )
        )
    elif model.primary_error is None and model.seeding_applies:
        seeded = [n for f in schema.fields for n in f.seed_env if model.env_non_empty(n)]
        if seeded:
            out.append(
                Notice(
                    "seed_env_will_be_frozen",
                    coded("notice_seed_frozen", file=_primary_text(model),
                          variables=", ".join(dict.fromkeys(seeded))),
                )
            )
    out.extend(Notice(code, message) for code, message in provider_warnings(model))
    return out


def _primary_text(model: Model) -> str:
    if model.kind == "config_yaml":
        return f"config.yaml section {model.schema.storage_path}"
    return model.primary_label


# --- public ------------------------------------------------------------------------------------


def state_from_model(
    entry: ProviderEntry, model: Model, *, active: bool, set_at: Mapping[str, str] | None = None
) -> ProviderState:
    states = field_states(model, set_at=set_at)
    storage = storage_info(model)
    if storage.error is not None:
        # The values cannot be trusted while the file does not parse: shown as unknown.
        for s in states:
            if not s.is_secret and s.location.get("store") not in ("env_file",):
                s.value, s.source, s.stored_key, s.is_set = "", None, None, False
    host = None
    if model.honcho is not None:
        host = HonchoHost(model.honcho.host, model.honcho.reason, model.honcho.label, model.honcho.shared)
    missing = [{"key": s.key, "label": s.label, "env_key": s.env_key} for s in states if s.missing]
    fingerprint = make_fingerprint(fingerprint_parts(states, storage))
    return ProviderState(
        entry=entry,
        schema=model.schema,
        schema_error=None,
        fields=states,
        storage=storage,
        warnings=model_warnings(model),
        host=host,
        active=active,
        missing_secrets=missing,
        fingerprint=fingerprint,
        model=model,
    )


def empty_state(entry: ProviderEntry, *, active: bool) -> ProviderState:
    """A provider without settings (no schema) or whose schema failed to load."""
    return ProviderState(
        entry=entry,
        schema=None,
        schema_error=entry.load_error,
        fields=[],
        storage=None,
        warnings=[],
        host=None,
        active=active,
        missing_secrets=[],
        fingerprint=make_fingerprint({"__schema__": entry.load_error.as_dict() if entry.load_error else None}),
    )


def read_provider(
    *,
    home: Path,
    name: str,
    secret_store: str = ENV_FILE,
    set_at: Mapping[str, str] | None = None,
) -> ProviderState:
    """The full read state of provider ``name``. Raises ``InvalidProviderName`` (guard),
    ``UnknownProvider`` (not discovered). A schema error, an unparseable storage file or an
    unavailable keyring is reported in the state."""
    home = Path(home)
    entry = get_provider(home=home, name=name)
    if entry is None:
        raise UnknownProvider(name)
    return answer_state(entry, home=home, secret_store=secret_store, set_at=set_at)


def answer_state(
    entry: ProviderEntry, *, home: Path, secret_store: str = ENV_FILE, set_at: Mapping[str, str] | None = None
) -> ProviderState:
    """``read_provider`` for an entry already discovered."""
    name = entry.name
    active = active_provider(home=home) == name
    if entry.schema is None:
        return empty_state(entry, active=active)
    model = load_model(home=home, schema=entry.schema, secret_store=secret_store)
    return state_from_model(entry, model, active=active, set_at=set_at)


def load_model(*, home: Path, schema: ProviderConfigSchema, secret_store: str) -> Model:
    """Read every location of ``schema`` for display (honcho under its file lock). An unavailable
    keyring becomes the warning ``keyring_unavailable`` instead of an error."""
    if schema.storage == STORAGE_HONCHO_HOST_BLOCK:
        from provider_schemas.storage import honcho as honcho_storage

        path, _shared = honcho_storage.choose_file(home)
        with honcho_storage.file_lock(path, create=False):
            return Model.load(home=home, schema=schema, secret_store=secret_store, keyring_strict=False,
                              reuse_env=True)
    return Model.load(home=home, schema=schema, secret_store=secret_store, keyring_strict=False, reuse_env=True)

"""The model of every location one provider reads, and value resolution over it.

``Model.load`` reads ``.env``, the keyring (when selected) and the provider's storage once; reading
(``state``) resolves fields over it, saving (``planning``) edits a copy of it and renders the
new file contents. Nothing here writes to disk.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memory_core.caching import per_file_version
from provider_schemas.config_schema import (
    STORAGE_CONFIG_YAML,
    STORAGE_ENV_FILE,
    STORAGE_FLAT_JSON,
    STORAGE_HONCHO_HOST_BLOCK,
    STORAGE_JSON_FILE,
    ProviderConfigSchema,
    ProviderField,
)
from provider_schemas.errors import SecretStoreUnavailable
from provider_schemas.homes import display_path, expand_location
from provider_schemas.secret_stores import KEYRING, SECRET_STORES
from provider_schemas.secret_stores.keyring_store import KeyringStore
from provider_schemas.storage import honcho as honcho_storage
from provider_schemas.storage.env_file import EnvDoc, read_env
from provider_schemas.storage.json_doc import JsonDoc, read_json_doc
from provider_schemas.storage.yaml_doc import YamlDoc, read_yaml_doc, section_of, split_path
from provider_schemas.values import to_edit_string

SOURCE_ENV_OVERRIDE = "env_override"
SOURCE_STORED = "stored"
SOURCE_ALIAS = "alias"
SOURCE_ENV_FALLBACK = "env_fallback"
SOURCE_SEED_ENV = "seed_env"
SOURCE_DEFAULT = "default"
OAUTH_PREFIX = "hch-at-"

JSON_KINDS = (STORAGE_FLAT_JSON, STORAGE_JSON_FILE)
MAPPING_KINDS = (STORAGE_FLAT_JSON, STORAGE_JSON_FILE, STORAGE_CONFIG_YAML, STORAGE_HONCHO_HOST_BLOCK)


@dataclass(frozen=True)
class Resolution:
    """Where a non-secret field's effective value comes from (docs/agent_formats.md §Reading provider values)."""

    value: Any  # native value found (None: the default applies)
    source: str
    stored_key: str | None = None
    fallback_location: str | None = None
    slot: str | None = None  # honcho: "host" or "root"; env_file: "env"
    variable: str | None = None  # the env variable an env source came from

    @property
    def is_set(self) -> bool:
        return self.source in (SOURCE_STORED, SOURCE_ALIAS)


@dataclass(frozen=True)
class FileSlot:
    """A secret value found in the provider's own storage."""

    label: str  # "file:<file>#<path>"
    key: str
    where: str  # "primary", "host", "root" or a fallback entry
    oauth: bool


@dataclass(frozen=True)
class SecretResolution:
    stores: tuple[str, ...]
    file_slots: tuple[FileSlot, ...]
    env_value_present: bool
    keyring_value_present: bool
    fallback_variable: str | None  # an env_fallbacks variable that is set, if env_key is not

    @property
    def is_set(self) -> bool:
        return bool(self.stores)


@dataclass
class Model:
    home: Path
    schema: ProviderConfigSchema
    secret_store: str
    env: EnvDoc
    keyring_values: dict[str, str]
    keyring: KeyringStore | None
    kind: str
    primary_path: Path | None = None
    primary_label: str = ""
    primary_exists: bool = False
    primary_error: str | None = None
    primary_bom: bool = False
    primary_raw: bytes | None = None
    original: dict[str, Any] | None = None  # primary content as read (None: absent)
    data: dict[str, Any] = field(default_factory=dict)  # working copy
    fallback_entry: str | None = None  # storage_fallbacks entry being read (primary absent)
    fallback_notes: list[tuple[str, str]] = field(default_factory=list)  # (entry, problem)
    yaml: YamlDoc | None = None
    yaml_parts: list[str] = field(default_factory=list)
    honcho: honcho_storage.HonchoTarget | None = None
    block: str = ""
    keyring_error: str | None = None  # set when a read tolerated an unavailable keyring
    env_over: dict[str, str | None] = field(default_factory=dict)
    keyring_over: dict[str, str | None] = field(default_factory=dict, repr=False)

    # --- construction --------------------------------------------------------------------------

    @classmethod
    def load(
        cls,
        *,
        home: Path,
        schema: ProviderConfigSchema,
        secret_store: str,
        keyring_strict: bool = True,
        reuse_env: bool = False,
    ) -> Model:
        """Read everything. With ``keyring_strict=False`` (display only) an unavailable keyring is
        recorded in ``keyring_error`` instead of raising ``SecretStoreUnavailable``. With
        ``reuse_env`` (display only) ``.env`` is parsed once per version of the file and shared
        by every read (a save always reads it afresh)."""
        if secret_store not in SECRET_STORES:
            raise ValueError(f"unknown secret store {secret_store!r}")
        home = Path(home)
        env = per_file_version("env", home / ".env", read_env) if reuse_env else read_env(home / ".env")
        keyring = KeyringStore(home) if secret_store == KEYRING else None
        names = secret_variables(schema)
        keyring_values: dict[str, str] = {}
        keyring_error = None
        if keyring is not None and names:
            try:
                keyring_values = keyring.get_many(names)
            except SecretStoreUnavailable as exc:
                if keyring_strict:
                    raise
                # The backend's own words; the full diagnosis is the settings page's and the save's.
                keyring_error = exc.check.detail if exc.check is not None and exc.check.detail else exc.reason
        model = cls(home, schema, secret_store, env, keyring_values, keyring, schema.storage)
        model.keyring_error = keyring_error
        if schema.storage in JSON_KINDS:
            model._load_json()
        elif schema.storage == STORAGE_CONFIG_YAML:
            model._load_yaml()
        elif schema.storage == STORAGE_HONCHO_HOST_BLOCK:
            model._load_honcho()
        else:
            model.primary_label = ".env"
            model.primary_path = home / ".env"
            model.primary_exists = env.exists
        return model

    def _load_json(self) -> None:
        schema = self.schema
        rel = f"{schema.name}/config.json" if schema.storage == STORAGE_FLAT_JSON else schema.storage_path
        self.primary_path = self.home / rel
        self.primary_label = display_path(self.primary_path, home=self.home)
        doc = read_json_doc(self.primary_path, label=self.primary_label, home=self.home)
        self._take_primary(doc)
        if not doc.exists:
            for entry in schema.storage_fallbacks:
                fb = read_json_doc(expand_location(entry, home=self.home), label=entry, home=self.home)
                if not fb.exists:
                    continue
                if fb.error is not None:
                    self.fallback_notes.append((entry, fb.error))
                    continue
                self.fallback_entry = entry
                self.data = fb.copy_data()
                if fb.bom:
                    self.fallback_notes.append((entry, "starts with a byte-order mark"))
                break

    def _take_primary(self, doc: JsonDoc) -> None:
        self.primary_exists = doc.exists
        self.primary_error = doc.error
        self.primary_bom = doc.bom
        self.primary_raw = doc.raw
        if doc.data is not None:
            self.original = copy.deepcopy(doc.data)
            self.data = doc.copy_data()

    def _load_yaml(self) -> None:
        self.primary_path = self.home / "config.yaml"
        self.primary_label = "config.yaml"
        self.yaml = read_yaml_doc(self.primary_path, home=self.home)
        self.yaml_parts = split_path(self.schema.storage_path)
        self.primary_raw = self.yaml.raw
        self.primary_bom = self.yaml.bom
        if self.yaml.error is not None:
            self.primary_error = self.yaml.error
            return
        section, problem = section_of(self.yaml.data, self.schema.storage_path)
        if problem is not None:
            self.primary_error = problem
            return
        if section is not None:
            self.original = copy.deepcopy(section)
            self.data = section
        # An empty section counts as absent: the plugins fall back from it.
        self.primary_exists = bool(section)
        if self.primary_exists:
            return
        for entry in self.schema.storage_fallbacks:
            if entry.startswith("~/") or "/" in entry:
                fb = read_json_doc(expand_location(entry, home=self.home), label=entry, home=self.home)
                if fb.exists and fb.error is None:
                    self.fallback_entry, self.data = entry, fb.copy_data()
                    break
                continue
            fb_section, fb_problem = section_of(self.yaml.data, entry)
            if fb_section is not None and fb_problem is None:
                self.fallback_entry, self.data = entry, fb_section
                break

    def _load_honcho(self) -> None:
        target, doc = honcho_storage.resolve_target(self.home, env_host=self.env.non_empty("HERMES_HONCHO_HOST"))
        self.honcho = target
        self.primary_path = target.path
        self.primary_label = target.label
        self._take_primary(doc)
        self.block = honcho_storage.block_key(self.data, target.host)

    def clone(self) -> Model:
        twin = copy.copy(self)
        twin.data = copy.deepcopy(self.data)
        twin.env_over = dict(self.env_over)
        twin.keyring_over = dict(self.keyring_over)
        return twin

    # --- lookups -------------------------------------------------------------------------------

    @property
    def fallback_exists(self) -> bool:
        return self.fallback_entry is not None

    @property
    def seeding_applies(self) -> bool:
        """seed_env is read only while neither the storage file nor a fallback location exists."""
        return self.kind in MAPPING_KINDS and not self.primary_exists and not self.fallback_exists

    def env_get(self, name: str) -> str | None:
        if name in self.env_over:
            return self.env_over[name]
        return self.env.get(name)

    def env_non_empty(self, name: str) -> str | None:
        value = self.env_get(name)
        return value if value else None

    def keyring_get(self, name: str) -> str | None:
        if name in self.keyring_over:
            return self.keyring_over[name]
        return self.keyring_values.get(name)

    def field_storage(self, f: ProviderField) -> str:
        return f.storage or self.kind

    def read_maps(self, f: ProviderField) -> list[tuple[str, Mapping[str, Any]]]:
        """The mappings a field's value is read from, in the plugin's order."""
        if self.kind == STORAGE_HONCHO_HOST_BLOCK:
            root = {k: v for k, v in self.data.items() if k != "hosts"}
            if f.scope == "root":
                return [("root", root)]
            return [("host", honcho_storage.host_block(self.data, self.block)), ("root", root)]
        return [("primary", self.data)]

    def write_map(self, f: ProviderField) -> dict[str, Any]:
        if self.kind == STORAGE_HONCHO_HOST_BLOCK and f.scope != "root":
            return honcho_storage.writable_block(self.data, self.block)
        return self.data

    def existing_write_map(self, f: ProviderField) -> Mapping[str, Any]:
        """Like ``write_map`` without creating anything."""
        if self.kind == STORAGE_HONCHO_HOST_BLOCK and f.scope != "root":
            return honcho_storage.host_block(self.data, self.block)
        return self.data

    def key_path(self, f: ProviderField, key: str, slot: str | None = None) -> str:
        """Where ``key`` of this field lives, as shown to users."""
        if self.kind == STORAGE_CONFIG_YAML:
            return f"{self.schema.storage_path}.{key}"
        if self.kind == STORAGE_HONCHO_HOST_BLOCK and (slot or ("root" if f.scope == "root" else "host")) == "host":
            return f"hosts.{self.block}.{key}"
        return key

    def location(self, f: ProviderField) -> dict[str, Any]:
        """docs/api.md §Reading a provider's config ``location``: where a save of this field writes."""
        if f.is_secret:
            return {"store": "secret", "variable": f.env_key}
        storage = self.field_storage(f)
        if storage == STORAGE_ENV_FILE:
            return {"store": "env_file", "file": ".env", "variable": f.env_key}
        if storage == STORAGE_CONFIG_YAML:
            return {"store": "config_yaml", "file": "config.yaml", "path": self.key_path(f, f.key)}
        if storage == STORAGE_HONCHO_HOST_BLOCK:
            return {"store": "honcho_host_block", "file": self.primary_label, "path": self.key_path(f, f.key)}
        return {"store": storage, "file": self.primary_label, "key": f.key}

    # --- resolution ----------------------------------------------------------------------------

    def resolve(self, f: ProviderField) -> Resolution:
        """docs/agent_formats.md §Reading provider values for a non-secret field."""
        for name in f.env_overrides:
            value = self.env_non_empty(name)
            if value is not None:
                return Resolution(value, SOURCE_ENV_OVERRIDE, variable=name)
        return self.resolve_stored(f)

    def resolve_stored(self, f: ProviderField) -> Resolution:
        """Resolution from step 2 on (what applies once no env override is set)."""
        if self.field_storage(f) == STORAGE_ENV_FILE:
            if f.env_key:
                value = self.env_get(f.env_key)
                if value is not None:
                    return Resolution(value, SOURCE_STORED, f.env_key, slot="env", variable=f.env_key)
        else:
            fallback = None if self.primary_exists else self.fallback_entry
            for slot, mapping in self.read_maps(f):
                for index, key in enumerate((f.key, *f.aliases)):
                    if key in mapping and mapping[key] is not None:
                        source = SOURCE_STORED if index == 0 else SOURCE_ALIAS
                        return Resolution(mapping[key], source, key, fallback, slot)
        for name in f.env_fallbacks:
            value = self.env_non_empty(name)
            if value is not None:
                return Resolution(value, SOURCE_ENV_FALLBACK, variable=name)
        if self.seeding_applies:
            for name in f.seed_env:
                value = self.env_non_empty(name)
                if value is not None:
                    return Resolution(value, SOURCE_SEED_ENV, variable=name)
        return Resolution(None, SOURCE_DEFAULT)

    def edit_string(self, f: ProviderField) -> str:
        if f.is_secret:
            return ""
        return to_edit_string(f, self.resolve(f).value)

    def secret(self, f: ProviderField) -> SecretResolution:
        """docs/agent_formats.md §Provider secrets for a secret field."""
        stores: list[str] = []
        names = [n for n in (f.env_key, *f.env_fallbacks) if n]
        env_hit = any(self.env_non_empty(n) for n in names)
        ring_hit = any(self.keyring_get(n) for n in names) if self.keyring is not None else False
        if env_hit:
            stores.append("env_file")
        if ring_hit:
            stores.append("keyring")
        fallback_var = None
        if f.env_key and not (self.env_non_empty(f.env_key) or self.keyring_get(f.env_key)):
            fallback_var = next((n for n in f.env_fallbacks if self.env_non_empty(n) or self.keyring_get(n)), None)
        slots: list[FileSlot] = []
        if self.field_storage(f) != STORAGE_ENV_FILE and self.kind in MAPPING_KINDS:
            file_label = self.primary_label if self.primary_exists or not self.fallback_entry else self.fallback_entry
            for slot, mapping in self.read_maps(f):
                for key in (f.key, *f.aliases):
                    value = mapping.get(key)
                    if value and (not isinstance(value, str) or value.strip()):
                        path = self.key_path(f, key, slot)
                        oauth = isinstance(value, str) and value.startswith(OAUTH_PREFIX)
                        where = slot if self.kind == STORAGE_HONCHO_HOST_BLOCK else (self.fallback_entry or "primary")
                        slots.append(FileSlot(f"file:{file_label}#{path}", key, where, oauth))
        for s in slots:
            stores.append(s.label)
        return SecretResolution(tuple(stores), tuple(slots), env_hit, ring_hit, fallback_var)

    def slot_secret_value(self, f: ProviderField, slot: FileSlot) -> Any:
        """The value of a file slot (never leaves the process; used to compare with the env)."""
        for where, mapping in self.read_maps(f):
            if slot.where in ("host", "root") and where != slot.where:
                continue
            if slot.key in mapping:
                return mapping[slot.key]
        return None


def secret_variables(schema: ProviderConfigSchema) -> list[str]:
    """Every variable a secret of ``schema`` may be stored under."""
    names: list[str] = []
    for f in schema.fields:
        if f.is_secret:
            names.extend(n for n in (f.env_key, *f.env_fallbacks) if n)
    return list(dict.fromkeys(names))

"""Which providers exist for a HERMES_HOME (docs/agent_formats.md §Provider discovery).

Bundled providers are the eight folders shipped inside this package (``<name>/config_schema.py``
plus ``<name>/provider.json`` with ``description`` and ``setup``). User providers are the
directories of ``HERMES_HOME/plugins/`` that pass hermes-agent's marker test. A bundled name always
wins; a user directory it hides is reported as shadowed. Nothing here imports plugin code.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from memory_core.caching import per_file_version
from provider_schemas.config_schema import ProviderConfigSchema
from provider_schemas.errors import SchemaLoadError
from provider_schemas.homes import display_path
from provider_schemas.loading.loader import load_schema
from provider_schemas.loading.names import check_provider_name, is_provider_name

PACKAGE_DIR = Path(__file__).resolve().parent.parent  # provider_schemas/
# The eight providers shipped with the panel, one folder each (config_schema.py, provider.json).
BUNDLED_DIR = PACKAGE_DIR / "bundled"
BUNDLED_PROVIDERS = (
    "byterover",
    "hindsight",
    "holographic",
    "honcho",
    "mem0",
    "openviking",
    "retaindb",
    "supermemory",
)
BUILTIN_NAME = "builtin"
BUILTIN_LABEL = "Built-in memory"
BUILTIN_DESCRIPTION = "MEMORY.md and USER.md in the agent's home; always on alongside any provider."
SCHEMA_FILE = "config_schema.py"
MARKERS = ("register_memory_provider", "MemoryProvider")
MARKER_WINDOW = 8192
UNADDRESSABLE = "name cannot be addressed"


def empty_setup() -> dict[str, Any]:
    return {"pip_dependencies": [], "external_dependencies": [], "required_env": [], "dependencies_installed": None}


@dataclass(frozen=True)
class ProviderEntry:
    """One discovered provider.

    ``origin`` is ``"bundled"``, ``"user"`` or ``"builtin"``. Exactly one of ``schema`` /
    ``load_error`` is set when ``schema_path`` is not None; both are None for "no schema".
    ``path`` is the provider directory as shown to users (``plugins/<name>``; None when bundled).
    """

    name: str
    label: str
    description: str
    origin: str
    directory: Path | None
    schema_path: Path | None
    schema: ProviderConfigSchema | None = None
    load_error: SchemaLoadError | None = None
    setup: dict[str, Any] = field(default_factory=empty_setup)
    path: str | None = None

    @property
    def has_schema(self) -> bool:
        return self.schema_path is not None

    @property
    def schema_state(self) -> str:
        """``"ok"``, ``"error"`` or ``"none"``."""
        if self.schema is not None:
            return "ok"
        if self.load_error is not None:
            return "error"
        return "none"


@dataclass(frozen=True)
class ShadowedPlugin:
    name: str
    path: str  # "plugins/<name>"
    shadowed_by: str  # "bundled" (or "builtin" for a directory named like the built-in row)
    has_schema: bool

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "path": self.path, "shadowed_by": self.shadowed_by}


@dataclass(frozen=True)
class UnaddressablePlugin:
    name: str
    path: str
    error: str = UNADDRESSABLE


@dataclass(frozen=True)
class Discovery:
    providers: list[ProviderEntry]  # builtin first, then sorted by name
    shadowed: list[ShadowedPlugin]
    unaddressable: list[UnaddressablePlugin]

    def get(self, name: str) -> ProviderEntry | None:
        return next((p for p in self.providers if p.name == name), None)


# --- helpers -----------------------------------------------------------------------------------


def _read_text(path: Path, limit: int | None = None) -> str | None:
    try:
        with open(path, encoding="utf-8-sig", errors="replace") as handle:
            return handle.read(limit) if limit is not None else handle.read()
    except OSError:
        return None


def _has_marker(init_file: Path) -> bool:
    text = _read_text(init_file, MARKER_WINDOW)
    return text is not None and any(marker in text for marker in MARKERS)


def passes_marker_test(directory: Path) -> bool:
    """hermes-agent's test: ``__init__.py`` names the provider API in its first 8192 characters."""
    return per_file_version("marker", directory / "__init__.py", _has_marker)


def _string_list(value: object) -> list[Any]:
    if isinstance(value, (list, tuple)):
        return [v for v in value if isinstance(v, (str, dict))]
    return []


def _setup_from(data: dict[str, Any], *, required_env_key: str) -> dict[str, Any]:
    setup = empty_setup()
    setup["pip_dependencies"] = [v for v in _string_list(data.get("pip_dependencies")) if isinstance(v, str)]
    setup["external_dependencies"] = [
        {"name": str(d.get("name", "")), "install": str(d.get("install", "")), "check": str(d.get("check", ""))}
        for d in _string_list(data.get("external_dependencies"))
        if isinstance(d, dict)
    ]
    setup["required_env"] = [v for v in _string_list(data.get(required_env_key)) if isinstance(v, str)]
    return setup


def _copy_setup(setup: dict[str, Any]) -> dict[str, Any]:
    """A copy a caller may change without changing the cached one."""
    out = dict(setup)
    out["pip_dependencies"] = list(setup["pip_dependencies"])
    out["external_dependencies"] = [dict(d) for d in setup["external_dependencies"]]
    out["required_env"] = list(setup["required_env"])
    return out


def _bundled_metadata(directory: Path) -> tuple[str, dict[str, Any]]:
    description, setup = per_file_version("provider.json", directory / "provider.json", _read_bundled_metadata)
    return description, _copy_setup(setup)


def _user_metadata(directory: Path) -> tuple[str, dict[str, Any]]:
    description, setup = per_file_version("plugin.yaml", directory / "plugin.yaml", _read_user_metadata)
    return description, _copy_setup(setup)


def _read_bundled_metadata(path: Path) -> tuple[str, dict[str, Any]]:
    text = _read_text(path)
    try:
        data = json.loads(text) if text else {}
    except ValueError:
        data = {}
    if not isinstance(data, dict):
        data = {}
    description = data.get("description") if isinstance(data.get("description"), str) else ""
    setup_raw = data.get("setup") if isinstance(data.get("setup"), dict) else {}
    return description, _setup_from(setup_raw, required_env_key="required_env")


def _read_user_metadata(path: Path) -> tuple[str, dict[str, Any]]:
    text = _read_text(path)
    try:
        data = yaml.safe_load(text) if text else {}
    except yaml.YAMLError:
        data = {}
    if not isinstance(data, dict):
        data = {}
    description = data.get("description") if isinstance(data.get("description"), str) else ""
    return description, _setup_from(data, required_env_key="requires_env")


def _load(schema_path: Path, *, name: str, display: str) -> tuple[ProviderConfigSchema | None, SchemaLoadError | None]:
    try:
        return load_schema(schema_path, name=name, display_path=display), None
    except SchemaLoadError as exc:
        return None, exc


def builtin_entry() -> ProviderEntry:
    return ProviderEntry(
        name=BUILTIN_NAME,
        label=BUILTIN_LABEL,
        description=BUILTIN_DESCRIPTION,
        origin="builtin",
        directory=None,
        schema_path=None,
    )


def _bundled_entry(name: str) -> ProviderEntry:
    directory = BUNDLED_DIR / name
    description, setup = _bundled_metadata(directory)
    schema_file = directory / SCHEMA_FILE
    if not schema_file.is_file():
        return ProviderEntry(name, name, description, "bundled", directory, None, setup=setup)
    schema, error = _load(schema_file, name=name, display=f"{name}/{SCHEMA_FILE} (bundled)")
    label = schema.label if schema is not None and schema.label else name
    return ProviderEntry(name, label, description, "bundled", directory, schema_file, schema, error, setup)


def _user_entry(home: Path, directory: Path) -> ProviderEntry:
    name = directory.name
    description, setup = _user_metadata(directory)
    rel = f"plugins/{name}"
    schema_file = directory / SCHEMA_FILE
    if not schema_file.is_file():
        return ProviderEntry(name, name, description, "user", directory, None, setup=setup, path=rel)
    schema, error = _load(schema_file, name=name, display=display_path(schema_file, home=home))
    label = schema.label if schema is not None and schema.label else name
    return ProviderEntry(name, label, description, "user", directory, schema_file, schema, error, setup, rel)


def _user_dirs(home: Path) -> list[Path]:
    plugins = Path(home) / "plugins"
    try:
        children = sorted(plugins.iterdir(), key=lambda p: p.name)
    except OSError:
        return []
    return [d for d in children if not d.name.startswith(("_", ".")) and d.is_dir()]


# --- public ------------------------------------------------------------------------------------


def discover(*, home: Path) -> Discovery:
    """Every provider of ``home``: the built-in row, bundled ones, then user plugins (by name)."""
    home = Path(home)
    reserved = {*BUNDLED_PROVIDERS, BUILTIN_NAME}
    entries = [_bundled_entry(name) for name in BUNDLED_PROVIDERS]
    shadowed: list[ShadowedPlugin] = []
    unaddressable: list[UnaddressablePlugin] = []
    for directory in _user_dirs(home):
        name = directory.name
        marker = passes_marker_test(directory)
        if name in reserved:
            has_schema = (directory / SCHEMA_FILE).is_file()
            if marker or has_schema:
                by = "builtin" if name == BUILTIN_NAME else "bundled"
                shadowed.append(ShadowedPlugin(name, f"plugins/{name}", by, has_schema))
            continue
        if not marker:
            continue  # another kind of hermes plugin
        if not is_provider_name(name):
            unaddressable.append(UnaddressablePlugin(name, f"plugins/{name}"))
            continue
        entries.append(_user_entry(home, directory))
    entries.sort(key=lambda e: e.name)
    return Discovery([builtin_entry(), *entries], shadowed, unaddressable)


def get_provider(*, home: Path, name: str) -> ProviderEntry | None:
    """Resolve one name (guard first: raises ``InvalidProviderName``); None if not discovered."""
    check_provider_name(name)
    if name == BUILTIN_NAME:
        return builtin_entry()
    if name in BUNDLED_PROVIDERS:
        return _bundled_entry(name)
    directory = Path(home) / "plugins" / name
    if directory.is_dir() and passes_marker_test(directory):
        return _user_entry(Path(home), directory)
    return None


def get_provider_config_schema(name: str, *, home: Path) -> ProviderConfigSchema | SchemaLoadError | None:
    """docs/agent_formats.md §Loading declarations: the schema, the load error (returned, not raised), or None (no
    schema
    or not discovered). Raises ``InvalidProviderName`` before any file access."""
    entry = get_provider(home=home, name=name)
    if entry is None:
        return None
    return entry.schema if entry.schema is not None else entry.load_error

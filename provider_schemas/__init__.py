"""provider_schemas: declare a provider's settings as data; load, discover, read, validate and save them.

Pure Python (no Django). Every service takes the agent home explicitly (``home: Path``).
The public API is re-exported here; docs/provider_schemas.md describes it.
"""

from __future__ import annotations

from provider_schemas.errors import (
    BodyError,
    ConflictError,
    InvalidProviderName,
    NotReady,
    SaveFailed,
    SchemaLoadError,
    SecretStoreUnavailable,
    StorageParseError,
    UnknownProvider,
    ValidationFailed,
)
from provider_schemas.homes import display_path, profile_home, profile_name, root_home
from provider_schemas.loading.checks import check_schema, declaration_problems
from provider_schemas.loading.discovery import (
    BUILTIN_NAME,
    BUNDLED_PROVIDERS,
    Discovery,
    ProviderEntry,
    ShadowedPlugin,
    UnaddressablePlugin,
    discover,
    get_provider,
    get_provider_config_schema,
)
from provider_schemas.loading.lint import LintFinding, has_errors, lint
from provider_schemas.loading.loader import clear_schema_cache, load_schema
from provider_schemas.loading.names import check_provider_name, is_provider_name, normalise_active_provider
from provider_schemas.payload import (
    field_payload,
    no_schema_payload,
    parse_put_body,
    provider_config_payload,
    provider_list_payload,
    provider_states,
    save_result_payload,
    schema_error_payload,
    validation_error_payload,
)
from provider_schemas.reading.answer_cache import clear_answers, config_answer
from provider_schemas.reading.secret_values import keyring_environment
from provider_schemas.reading.state import (
    FieldState,
    Notice,
    ProviderState,
    StorageInfo,
    active_provider,
    read_provider,
)
from provider_schemas.saving.memory_settings import (
    MEMORY_KEYS,
    MemorySettings,
    activate,
    check_ready,
    deactivate,
    read_memory_settings,
    save_memory_settings,
)
from provider_schemas.saving.planning import (
    Change,
    SavePlan,
    SaveResult,
    commit_save,
    plan_save,
    prospective_visibility,
    save_provider,
)
from provider_schemas.secret_stores import SECRET_STORES, keyring_service

__all__ = [
    "BUILTIN_NAME",
    "BUNDLED_PROVIDERS",
    "MEMORY_KEYS",
    "SECRET_STORES",
    "BodyError",
    "Change",
    "ConflictError",
    "Discovery",
    "FieldState",
    "InvalidProviderName",
    "LintFinding",
    "MemorySettings",
    "NotReady",
    "Notice",
    "ProviderEntry",
    "ProviderState",
    "SaveFailed",
    "SavePlan",
    "SaveResult",
    "SchemaLoadError",
    "SecretStoreUnavailable",
    "ShadowedPlugin",
    "StorageInfo",
    "StorageParseError",
    "UnaddressablePlugin",
    "UnknownProvider",
    "ValidationFailed",
    "activate",
    "active_provider",
    "check_provider_name",
    "check_ready",
    "check_schema",
    "clear_answers",
    "clear_schema_cache",
    "commit_save",
    "config_answer",
    "deactivate",
    "declaration_problems",
    "discover",
    "display_path",
    "field_payload",
    "get_provider",
    "get_provider_config_schema",
    "has_errors",
    "is_provider_name",
    "keyring_environment",
    "keyring_service",
    "lint",
    "load_schema",
    "no_schema_payload",
    "normalise_active_provider",
    "parse_put_body",
    "plan_save",
    "profile_home",
    "profile_name",
    "prospective_visibility",
    "provider_config_payload",
    "provider_list_payload",
    "provider_states",
    "read_memory_settings",
    "read_provider",
    "root_home",
    "save_memory_settings",
    "save_provider",
    "save_result_payload",
    "schema_error_payload",
    "validation_error_payload",
]

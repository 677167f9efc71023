"""JSON payloads of docs/api.md, as plain dicts in 0.19.0's key order (pure functions)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from provider_schemas.errors import BodyError, SchemaLoadError, ValidationFailed
from provider_schemas.loading.discovery import BUILTIN_NAME, Discovery, discover, empty_setup
from provider_schemas.reading.state import (
    FieldState,
    ProviderState,
    active_provider,
    empty_state,
    load_model,
    state_from_model,
)
from provider_schemas.saving.planning import SaveResult
from provider_schemas.secret_stores import ENV_FILE

MISSING_DESCRIPTION = "Configured provider was not found."


def no_schema_payload(name: str) -> dict[str, Any]:
    """docs/api.md §Reading a provider's config: a provider (or name) without a schema."""
    return {"name": name, "label": name, "docs_url": "", "fields": []}


def schema_error_payload(name: str, error: SchemaLoadError) -> dict[str, Any]:
    return {**no_schema_payload(name), "schema_error": error.as_dict()}


def field_payload(s: FieldState) -> dict[str, Any]:
    out: dict[str, Any] = {
        "key": s.key,
        "label": s.label,
        "kind": s.kind,
        "description": s.description,
        "info": s.info,
        "placeholder": s.placeholder,
        "inline": s.inline,
        "group": s.group,
        "options": [dict(o) for o in s.options],
        "value": s.value,
        "is_set": s.is_set,
        "default": s.default,
        "source": s.source,
        "stored_key": s.stored_key,
        "fallback_location": s.fallback_location,
        "location": dict(s.location),
        "env_key": s.env_key,
        "required": s.required,
        "when": dict(s.when) if s.when is not None else None,
        "warnings": [w.as_dict() for w in s.warnings],
    }
    if s.is_secret:
        out["stores"] = list(s.stores or [])
        out["set_at"] = s.set_at
    return out


def provider_config_payload(state: ProviderState) -> dict[str, Any]:
    """docs/api.md §Reading a provider's config for one provider state."""
    if state.schema is None:
        if state.schema_error is not None:
            return schema_error_payload(state.name, state.schema_error)
        return no_schema_payload(state.name)
    out: dict[str, Any] = {
        "name": state.name,
        "label": state.label,
        "docs_url": state.docs_url,
        "origin": state.origin,
        "path": state.path,
        "active": state.active,
        "storage": state.storage.as_dict() if state.storage is not None else None,
        "missing_secrets": [dict(m) for m in state.missing_secrets],
        "fields": [field_payload(s) for s in state.visible_fields],
        "hidden_fields": state.hidden_summary(),
        "warnings": [w.as_dict() for w in state.warnings],
    }
    if state.host is not None:
        out["host"] = state.host.as_dict()
    return out


def _row(state: ProviderState) -> dict[str, Any]:
    entry = state.entry
    ready = state.status == "ready"
    return {
        "name": entry.name,
        "label": state.label,
        "description": entry.description,
        "origin": entry.origin,
        "path": entry.path,
        "available": ready,
        "configured": ready,
        "status": state.status,
        "active": state.active,
        "missing_secrets": [dict(m) for m in state.missing_secrets],
        "schema_error": state.schema_error.as_dict() if state.schema_error is not None else None,
        "setup": dict(entry.setup),
    }


def _file_size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def provider_states(
    *, home: Path, secret_store: str = ENV_FILE, discovery: Discovery | None = None
) -> list[ProviderState]:
    """The state of every discovered provider except the built-in row. ``discovery``: a
    ``discover(home=home)`` result the caller already has (discovery is most of the cost)."""
    home = Path(home)
    active = active_provider(home=home)
    if discovery is None:
        discovery = discover(home=home)
    states = []
    for entry in discovery.providers:
        if entry.name == BUILTIN_NAME:
            continue
        if entry.schema is None:
            states.append(empty_state(entry, active=entry.name == active))
        else:
            model = load_model(home=home, schema=entry.schema, secret_store=secret_store)
            states.append(state_from_model(entry, model, active=entry.name == active))
    return states


def provider_list_payload(
    *, home: Path, secret_store: str = ENV_FILE, discovery: Discovery | None = None
) -> dict[str, Any]:
    """docs/api.md §Provider list. ``discovery``: as for :func:`provider_states` (one discovery serves both)."""
    home = Path(home)
    if discovery is None:
        discovery = discover(home=home)
    active = active_provider(home=home)
    rows = [_row(s) for s in provider_states(home=home, secret_store=secret_store, discovery=discovery)]
    if active and all(r["name"] != active for r in rows):
        rows.append(
            {
                "name": active,
                "label": active,
                "description": MISSING_DESCRIPTION,
                "origin": None,
                "path": None,
                "available": False,
                "configured": False,
                "status": "missing",
                "active": True,
                "missing_secrets": [],
                "schema_error": None,
                "setup": empty_setup(),
            }
        )
    rows.sort(key=lambda r: r["name"])
    memories = home / "memories"
    return {
        "active": active,
        "providers": rows,
        "shadowed": [s.as_dict() for s in discovery.shadowed],
        "builtin_files": {"memory": _file_size(memories / "MEMORY.md"), "user": _file_size(memories / "USER.md")},
    }


def parse_put_body(obj: Any) -> tuple[dict[str, Any], list[str]]:
    """docs/api.md §Saving a provider's config body → (values, clear). Raises ``BodyError`` with the 422 text."""
    if not isinstance(obj, Mapping):
        raise BodyError("Request body must be a JSON object")
    values = obj.get("values", {})
    if values is None:
        values = {}
    if not isinstance(values, Mapping) or not all(isinstance(k, str) for k in values):
        raise BodyError("'values' must be an object")
    clear = obj.get("clear", [])
    if clear is None:
        clear = []
    if not isinstance(clear, list) or not all(isinstance(k, str) for k in clear):
        raise BodyError("'clear' must be a list of strings")
    return dict(values), list(clear)


def save_result_payload(result: SaveResult) -> dict[str, Any]:
    return {
        "ok": True,
        "written": list(result.written),
        "ignored": {k: list(v) for k, v in result.ignored.items()},
        "active": result.active,
    }


def validation_error_payload(exc: ValidationFailed) -> dict[str, Any]:
    payload: dict[str, Any] = {"detail": exc.detail, "errors": dict(exc.errors)}
    if exc.details:
        # Ours: per failed constraint, the message for people and what was declared (the
        # ``errors`` strings keep the 0.19.0 wording that clients match on).
        payload["field_errors"] = {key: exc.details[key].as_dict() for key in exc.errors if key in exc.details}
    return payload

"""Declaration checks (docs/agent_formats.md §Provider declarations): what makes a ``CONFIG_SCHEMA`` loadable.

``declaration_problems`` collects every problem (the linter shows them all);
``check_schema`` raises the first one as the loader's error.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass

from provider_schemas.config_schema import (
    FORMATS,
    JSON_SHAPE_KEYWORDS,
    KIND_BOOL,
    KIND_JSON,
    KIND_NUMBER,
    KIND_SELECT,
    KIND_TEXT,
    KINDS,
    STORAGE_CONFIG_YAML,
    STORAGE_ENV_FILE,
    STORAGE_JSON_FILE,
    STORAGES,
    ProviderConfigSchema,
    ProviderField,
    ProviderFieldOption,
)
from provider_schemas.messages import message as coded

ENV_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

# Variables hermes-agent 0.19.0 refuses to write to .env; the panel never writes them either.
ENV_WRITE_DENYLIST = frozenset(
    {
        "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "LD_DEBUG", "DYLD_INSERT_LIBRARIES",
        "DYLD_LIBRARY_PATH", "DYLD_FRAMEWORK_PATH", "DYLD_FALLBACK_LIBRARY_PATH",
        "DYLD_FALLBACK_FRAMEWORK_PATH", "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP",
        "PYTHONUSERBASE", "PYTHONEXECUTABLE", "PYTHONNOUSERSITE", "NODE_OPTIONS", "NODE_PATH",
        "PATH", "SHELL", "BROWSER", "EDITOR", "VISUAL", "PAGER", "GIT_SSH_COMMAND",
        "GIT_EXEC_PATH", "GIT_SHELL", "HERMES_HOME", "HERMES_PROFILE", "HERMES_CONFIG", "HERMES_ENV",
    }
)  # fmt: skip

FIELD_STORAGES = ("", STORAGE_ENV_FILE)
SCOPES = ("host", "root")


@dataclass(frozen=True)
class Problem:
    """One failed declaration check. ``exc_type`` is ``"TypeError"`` or ``"ValueError"``."""

    key: str | None
    message: str
    exc_type: str = "ValueError"


def is_number_text(text: str) -> bool:
    """A finite number written the way the coercion of docs/agent_formats.md §Saving provider values accepts it."""
    from provider_schemas.values import parse_number

    return parse_number(text) is not None


def json_default_ok(text: str) -> bool:
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        return False
    return isinstance(value, (dict, list))


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not JSON")


def _is_str_map(value: object) -> bool:
    return isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())


def _str_tuple(value: object) -> bool:
    return isinstance(value, (tuple, list)) and all(isinstance(v, str) for v in value)


def _field_problems(f: ProviderField, earlier: set[str], all_keys: set[str], schema_storage: str) -> list[Problem]:
    where = f"field {f.key!r}"
    out: list[Problem] = []

    def bad(code: str, exc_type: str = "ValueError", **params: str) -> None:
        # Every field problem reads "field 'key': ..."; the code's English starts so too.
        out.append(Problem(f.key, coded(code, key=repr(f.key), **params), exc_type))

    if not isinstance(f.label, str):
        bad("check_label_type", "TypeError")
    if f.kind not in KINDS:
        bad("check_unknown_kind", kind=repr(f.kind), choices=", ".join(KINDS))
    if f.scope not in SCOPES:
        bad("check_scope", value=repr(f.scope))
    if f.storage not in FIELD_STORAGES:
        bad("check_field_storage", value=repr(f.storage))
    if not isinstance(f.default, str):
        bad("check_default_type", "TypeError", type=type(f.default).__name__)
        return out
    for attr in ("aliases", "env_fallbacks", "env_overrides", "seed_env", "required_unless"):
        if not _str_tuple(getattr(f, attr)):
            bad("check_tuple_of_strings", "TypeError", attr=attr)
    if not isinstance(f.options, (tuple, list)) or not all(isinstance(o, ProviderFieldOption) for o in f.options):
        bad("check_options_type", "TypeError")
        return out
    if f.env_key is not None and not isinstance(f.env_key, str):
        bad("check_env_key_type", "TypeError")
        return out
    if out:
        return out

    if f.kind == KIND_SELECT:
        values = [o.value for o in f.options]
        if not values:
            bad("check_select_no_options")
        elif len(set(values)) != len(values):
            dupes = sorted({v for v in values if values.count(v) > 1})
            bad("check_duplicate_option", value=repr(dupes[0]))
        if f.default and values and f.default not in values:
            bad("check_default_not_option", value=repr(f.default))
    elif f.kind == KIND_BOOL:
        if f.default not in ("", "true", "false"):
            bad("check_bool_default", value=repr(f.default))
    elif f.kind == KIND_NUMBER and f.default and not is_number_text(f.default):
        bad("check_number_default", value=repr(f.default))
    elif f.kind == KIND_JSON and f.default and not json_default_ok(f.default):
        bad("check_json_default", value=repr(f.default))

    effective_storage = f.storage or schema_storage
    if effective_storage == STORAGE_ENV_FILE and not f.is_secret and not f.env_key:
        bad("check_env_file_needs_env_key")

    names: list[tuple[str, str]] = []
    if f.env_key:
        names.append(("env_key", f.env_key))
    for attr in ("env_fallbacks", "env_overrides", "seed_env"):
        names.extend((attr, n) for n in getattr(f, attr))
    for attr, name in names:
        if not ENV_NAME_RE.fullmatch(name):
            bad("check_variable_name", attr=attr, name=repr(name))
    if f.env_key and f.env_key in ENV_WRITE_DENYLIST:
        bad("check_env_key_denied", variable=repr(f.env_key))

    out.extend(Problem(f.key, f"{where}: {message}", exc_type) for message, exc_type in _constraint_problems(f))

    for attr in ("when", "required_when"):
        cond = getattr(f, attr)
        if cond is None:
            continue
        if not _is_str_map(cond):
            bad("check_condition_map", "TypeError", attr=attr)
            continue
        for key in cond:
            if key == f.key:
                bad("check_condition_self", attr=attr)
            elif key not in earlier:
                bad("check_condition_order", attr=attr, other=repr(key))
    for key in f.required_unless:
        if key not in all_keys:
            bad("check_required_unless_unknown", other=repr(key))
    return out


def _is_limit(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _constraint_problems(f: ProviderField) -> list[tuple[str, str]]:
    """The new constraint attributes (docs/field_constraints.md): types, and the kinds they apply to."""
    out: list[tuple[str, str]] = []
    for attr in ("minimum", "maximum"):
        value = getattr(f, attr)
        if value is not None:
            if not _is_limit(value):
                out.append((f"{attr} must be a finite number, got {value!r}", "TypeError"))
            elif f.kind != KIND_NUMBER:
                out.append((f"{attr} applies to number fields only, not {f.kind!r}", "ValueError"))
    if not isinstance(f.integer, bool):
        out.append((f"integer must be True or False, got {f.integer!r}", "TypeError"))
    elif f.integer and f.kind != KIND_NUMBER:
        out.append((f"integer applies to number fields only, not {f.kind!r}", "ValueError"))
    for attr in ("pattern", "pattern_hint", "format", "unit"):
        if not isinstance(getattr(f, attr), str):
            out.append((f"{attr} must be a string", "TypeError"))
    if isinstance(f.pattern, str) and f.pattern:
        if f.kind != KIND_TEXT:
            out.append((f"pattern applies to text fields only, not {f.kind!r}", "ValueError"))
        try:
            re.compile(f.pattern)
        except re.error as exc:
            out.append((f"pattern {f.pattern!r} does not compile: {exc}", "ValueError"))
    if isinstance(f.format, str) and f.format:
        if f.format not in FORMATS:
            out.append((f"unknown format {f.format!r} (expected one of {', '.join(FORMATS)})", "ValueError"))
        elif f.kind != KIND_TEXT:
            out.append((f"format applies to text fields only, not {f.kind!r}", "ValueError"))
    if f.max_length is not None:
        if not isinstance(f.max_length, int) or isinstance(f.max_length, bool) or f.max_length < 1:
            out.append((f"max_length must be a positive whole number, got {f.max_length!r}", "TypeError"))
        elif f.kind != KIND_TEXT:
            out.append((f"max_length applies to text fields only, not {f.kind!r}", "ValueError"))
    for attr in ("keywords", "suggestions"):
        value = getattr(f, attr)
        if not _str_tuple(value):
            out.append((f"{attr} must be a tuple of strings", "TypeError"))
        elif value and f.kind != KIND_TEXT:
            out.append((f"{attr} applies to text fields only, not {f.kind!r}", "ValueError"))
    if f.json_shape is not None:
        if not isinstance(f.json_shape, dict):
            out.append(("json_shape must be a dict", "TypeError"))
        elif f.kind != KIND_JSON and not (f.kind == KIND_TEXT and f.keywords):
            message = f"json_shape applies to json fields (or text fields with keywords), not {f.kind!r}"
            out.append((message, "ValueError"))
        else:
            out.extend((f"json_shape: {m}", "ValueError") for m in shape_problems(f.json_shape))
    return out


JSON_TYPES = ("object", "array", "string", "number", "integer", "boolean", "null")


def shape_problems(shape: object, where: str = "") -> list[str]:
    """Why ``shape`` is outside the documented JSON Schema subset (``JSON_SHAPE_KEYWORDS``)."""
    prefix = f"{where}: " if where else ""
    if not isinstance(shape, dict):
        return [f"{prefix}a shape must be a dict, got {type(shape).__name__}"]
    out: list[str] = []
    for keyword in shape:
        if keyword not in JSON_SHAPE_KEYWORDS:
            out.append(f"{prefix}unknown keyword {keyword!r} (supported: {', '.join(JSON_SHAPE_KEYWORDS)})")
    kind = shape.get("type")
    if kind is not None and kind not in JSON_TYPES:
        out.append(f"{prefix}unknown type {kind!r}")
    if "enum" in shape and (not isinstance(shape["enum"], (list, tuple)) or not shape["enum"]):
        out.append(f"{prefix}enum must be a non-empty list")
    if "minItems" in shape and (not isinstance(shape["minItems"], int) or shape["minItems"] < 0):
        out.append(f"{prefix}minItems must be a whole number >= 0")
    if "pattern" in shape:
        try:
            re.compile(shape["pattern"])
        except (re.error, TypeError):
            out.append(f"{prefix}pattern {shape['pattern']!r} does not compile")
    if "required" in shape and not _str_tuple(shape["required"]):
        out.append(f"{prefix}required must be a list of strings")
    if "items" in shape:
        out.extend(shape_problems(shape["items"], f"{where}items"))
    if "anyOf" in shape:
        choices = shape["anyOf"]
        if not isinstance(choices, (list, tuple)) or len(choices) < 2:
            out.append(f"{prefix}anyOf must be a list of at least two shapes")
        else:
            for index, sub in enumerate(choices):
                out.extend(shape_problems(sub, f"{where}anyOf[{index}]"))
    properties = shape.get("properties", {})
    if not isinstance(properties, dict):
        out.append(f"{prefix}properties must be a dict")
    else:
        for key, sub in properties.items():
            out.extend(shape_problems(sub, f"{where}properties.{key}"))
    extra = shape.get("additionalProperties", True)
    if not isinstance(extra, bool):
        out.extend(shape_problems(extra, f"{where}additionalProperties"))
    return out


def declaration_problems(schema: object, *, expected_name: str | None = None) -> list[Problem]:
    """Every declaration problem of ``schema``, in declaration order."""
    if not isinstance(schema, ProviderConfigSchema):
        return [
            Problem(
                None,
                coded("check_not_a_schema", type=type(schema).__name__),
                "TypeError",
            )
        ]
    out: list[Problem] = []
    if not isinstance(schema.name, str) or not schema.name:
        out.append(Problem(None, coded("check_name_empty"), "TypeError"))
    elif expected_name is not None and schema.name != expected_name:
        out.append(Problem(None, coded("check_name_directory", name=repr(schema.name),
                                           directory=repr(expected_name))))
    if not isinstance(schema.label, str):
        out.append(Problem(None, coded("check_schema_label_type"), "TypeError"))
    if schema.storage not in STORAGES:
        choices = ", ".join(STORAGES)
        out.append(Problem(None, coded("check_unknown_storage", storage=repr(schema.storage), choices=choices)))
    elif schema.storage == STORAGE_JSON_FILE:
        path = schema.storage_path
        parts = path.replace("\\", "/").split("/") if isinstance(path, str) else []
        if not path or path.startswith(("/", "~")) or ".." in parts or re.match(r"^[A-Za-z]:", path):
            out.append(Problem(None, coded("check_json_file_path", path=repr(path))))
    elif schema.storage == STORAGE_CONFIG_YAML:
        path = schema.storage_path
        if not isinstance(path, str) or not path or any(not seg for seg in path.split(".")):
            out.append(Problem(None, coded("check_config_yaml_path", path=repr(path))))
    if not _str_tuple(schema.storage_fallbacks):
        out.append(Problem(None, coded("check_fallbacks_type"), "TypeError"))
    if not isinstance(schema.fields, (tuple, list)):
        out.append(Problem(None, coded("check_fields_type"), "TypeError"))
        return out
    seen: set[str] = set()
    all_keys = {f.key for f in schema.fields if isinstance(f, ProviderField) and isinstance(f.key, str)}
    for index, f in enumerate(schema.fields):
        if not isinstance(f, ProviderField):
            out.append(Problem(None, coded("check_field_type", index=str(index), type=type(f).__name__), "TypeError"))
            continue
        if not isinstance(f.key, str) or not f.key:
            out.append(Problem(None, coded("check_field_key", index=str(index))))
            continue
        if f.key in seen:
            out.append(Problem(f.key, coded("check_duplicate_key", key=repr(f.key))))
            continue
        out.extend(_field_problems(f, seen, all_keys, schema.storage))
        seen.add(f.key)
    return out


def check_schema(schema: object, *, expected_name: str | None = None) -> ProviderConfigSchema:
    """Raise ``TypeError``/``ValueError`` for the first declaration problem, else return the schema."""
    problems = declaration_problems(schema, expected_name=expected_name)
    if problems:
        first = problems[0]
        raise (TypeError if first.exc_type == "TypeError" else ValueError)(first.message)
    assert isinstance(schema, ProviderConfigSchema)
    return schema

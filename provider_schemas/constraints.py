"""Field constraints (docs/field_constraints.md): what a value must look like beyond its kind.

``violation`` checks one coerced value against its field's ``minimum``/``maximum``/``integer``,
``pattern``, ``format``, ``max_length``, ``keywords`` and ``json_shape`` and returns the first
failure as a :class:`Violation`: the name of the failed constraint, the declared limits, a message
for people (one of the English templates below, which the panel translates) and the 0.19.0-style
wording the API keeps in ``detail``. Pure functions; no I/O.
"""

from __future__ import annotations

import ipaddress
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from provider_schemas.config_schema import (
    FORMAT_HOST,
    FORMAT_PATH,
    FORMAT_PORT,
    FORMAT_URL,
    KIND_JSON,
    KIND_NUMBER,
    KIND_TEXT,
    ProviderField,
)
from provider_schemas.messages import message as coded
from provider_schemas.messages import template

_HOST_LABEL = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)")


@dataclass(frozen=True)
class Violation:
    """One failed constraint. ``constraint`` names it (``minimum``, ``pattern``, ``json_shape``…);
    ``limits`` are the field's declared constraint values; ``message`` is for people."""

    constraint: str
    message: str
    compat: str
    limits: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"message": self.compat, "human": self.message, "constraint": self.constraint, "limits": self.limits}


def has_constraints(f: ProviderField) -> bool:
    return bool(
        f.minimum is not None
        or f.maximum is not None
        or f.integer
        or f.pattern
        or f.format
        or f.max_length is not None
        or f.keywords
        or f.json_shape is not None
    )


def show_number(n: int | float) -> str:
    """1 → "1", 0.25 → "0.25", 2.0 → "2": how limits appear in messages and HTML attributes."""
    if isinstance(n, float) and n.is_integer():
        return str(int(n))
    return str(n)


# --- numbers ---------------------------------------------------------------------------------------

def number_message(f: ProviderField) -> str:
    """"Enter a whole number of tokens from 1 to 100000." (one of NUMBER_TEMPLATES, filled in)."""
    template = NUMBER_TEMPLATES[(bool(f.integer), bool(f.unit), _bounds(f))]
    params = {"unit": f.unit}
    if f.minimum is not None:
        params["minimum"] = show_number(f.minimum)
    if f.maximum is not None:
        params["maximum"] = show_number(f.maximum)
    return template % params


def _bounds(f: ProviderField) -> str:
    if f.minimum is not None and f.maximum is not None:
        return "both"
    if f.minimum is not None:
        return "min"
    if f.maximum is not None:
        return "max"
    return "none"


def _number_templates() -> dict[tuple[bool, bool, str], str]:
    """Keyed by (whole number?, unit?, which bounds); the code says the same (``number_whole_unit_both``)."""
    return {
        (integer, unit, bounds): template(f"number{'_whole' * integer}{'_unit' * unit}_{bounds}")
        for integer in (True, False) for unit in (True, False) for bounds in ("both", "min", "max", "none")
    }


NUMBER_TEMPLATES = _number_templates()


def _number_limits(f: ProviderField) -> dict[str, Any]:
    limits: dict[str, Any] = {}
    if f.minimum is not None:
        limits["minimum"] = f.minimum
    if f.maximum is not None:
        limits["maximum"] = f.maximum
    if f.integer:
        limits["integer"] = True
    if f.unit:
        limits["unit"] = f.unit
    return limits


def number_violation(f: ProviderField, value: int | float) -> Violation | None:
    failed = None
    if f.integer and not float(value).is_integer():
        failed = "integer"
    elif f.minimum is not None and value < f.minimum:
        failed = "minimum"
    elif f.maximum is not None and value > f.maximum:
        failed = "maximum"
    if failed is None:
        return None
    return Violation(failed, number_message(f), coded("invalid_number", key=f.key), _number_limits(f))


# --- text ------------------------------------------------------------------------------------------

# The English of each is provider_schemas.messages.ENGLISH["constraint_<name>"].
TEXT_TEMPLATES = {
    name: template(f"constraint_{name}")
    for name in ("pattern_hint", "pattern", "url", "host", "port", "path", "max_length", "keywords", "keywords_json",
                 "keywords_json_problem")
}


def url_ok(text: str) -> bool:
    try:
        parts = urlsplit(text)
        port = parts.port  # raises ValueError for a port that is not a number in range
    except ValueError:
        return False
    del port
    if parts.scheme not in ("http", "https") or any(c.isspace() for c in text):
        return False
    return bool(parts.hostname) and host_ok(parts.hostname)


def host_ok(text: str) -> bool:
    candidate = text[1:-1] if text.startswith("[") and text.endswith("]") else text
    try:
        ipaddress.ip_address(candidate)
        return True
    except ValueError:
        pass
    name = text.rstrip(".")
    return 0 < len(name) <= 253 and all(_HOST_LABEL.fullmatch(label) for label in name.split("."))


def port_ok(text: str) -> bool:
    return text.isascii() and text.isdigit() and 1 <= int(text) <= 65535


def _example_url(f: ProviderField) -> str:
    for word in f.placeholder.split():
        if url_ok(word):
            return word
    return "https://example.com"


def _example_host(f: ProviderField) -> str:
    word = f.placeholder.split()[0] if f.placeholder.split() else ""
    return word if word and host_ok(word) else "localhost"


def text_violation(f: ProviderField, text: str) -> Violation | None:
    compat = coded("invalid_choice", key=f.key)
    limits = {k: v for k, v in (("format", f.format), ("pattern", f.pattern), ("max_length", f.max_length)) if v}
    if f.max_length is not None and len(text) > f.max_length:
        message = TEXT_TEMPLATES["max_length"] % {"max_length": f.max_length, "length": len(text)}
        return Violation("max_length", message, compat, limits)
    if f.keywords:
        if text in f.keywords:
            return None
        shown = ", ".join(f.keywords)
        problem = None
        if f.json_shape is not None and text.lstrip().startswith(("[", "{")):
            try:
                parsed = json.loads(text, parse_constant=_no_constant)
            except (ValueError, RecursionError):
                parsed = _INVALID
            if parsed is not _INVALID:
                problem = shape_problem(f.json_shape, parsed)
                if problem is None:
                    return None
        if problem is not None:  # JSON, but not of the shape: say where it differs
            message = TEXT_TEMPLATES["keywords_json_problem"] % {
                "keywords": shown, "example": shape_example(f.json_shape), "shape_problem": problem}
        elif f.json_shape is not None:
            message = TEXT_TEMPLATES["keywords_json"] % {"keywords": shown, "example": shape_example(f.json_shape)}
        else:
            message = TEXT_TEMPLATES["keywords"] % {"keywords": shown}
        return Violation("keywords", message, compat, {"keywords": list(f.keywords), "json_shape": f.json_shape})
    if f.format == FORMAT_URL and not url_ok(text):
        message = TEXT_TEMPLATES["url"] % {"example": _example_url(f)}
        return Violation("format", message, compat, limits)
    if f.format == FORMAT_HOST and not host_ok(text):
        message = TEXT_TEMPLATES["host"] % {"example": _example_host(f)}
        return Violation("format", message, compat, limits)
    if f.format == FORMAT_PORT and not port_ok(text):
        return Violation("format", TEXT_TEMPLATES["port"], compat, limits)
    if f.format == FORMAT_PATH and ("\n" in text or "\r" in text):
        return Violation("format", TEXT_TEMPLATES["path"], compat, limits)
    if f.pattern and re.fullmatch(f.pattern, text) is None:
        if f.pattern_hint:
            message = TEXT_TEMPLATES["pattern_hint"] % {"hint": f.pattern_hint}
        else:
            message = TEXT_TEMPLATES["pattern"] % {"pattern": f.pattern}
        return Violation("pattern", message, compat, {**limits, "pattern_hint": f.pattern_hint})
    return None


_INVALID = object()


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


# --- JSON shapes -----------------------------------------------------------------------------------

JSON_TEMPLATE = template("constraint_json")
PROBLEM_TEMPLATES = {
    name: template(f"json_{name}") for name in ("type", "any_type", "enum", "min_items", "required", "extra", "pattern")
}
TYPE_NOUNS = {
    name: template(f"json_type_{name}")
    for name in ("object", "array", "string", "number", "integer", "boolean", "null")
}
ROOT_WHERE = template("json_root")


def _type_ok(kind: str, value: Any) -> bool:
    if kind == "object":
        return isinstance(value, dict)
    if kind == "array":
        return isinstance(value, list)
    if kind == "string":
        return isinstance(value, str)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "null":
        return value is None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if kind == "integer":
        return isinstance(value, int) or (math.isfinite(value) and float(value).is_integer())
    return kind == "number"


def _join(path: str, part: str | int) -> str:
    if isinstance(part, int):
        return f"{path}[{part}]" if path else f"[{part}]"
    return f"{path}.{part}" if path else part


def shape_problem(shape: dict[str, Any], value: Any, path: str = "") -> str | None:
    """The first way ``value`` differs from ``shape`` (a problem sentence), or None when it fits."""
    where = path or ROOT_WHERE
    if isinstance(shape.get("anyOf"), (list, tuple)):
        problem = _any_of_problem(shape["anyOf"], value, path)
        if problem is not None:
            return problem
    kind = shape.get("type")
    if isinstance(kind, str) and not _type_ok(kind, value):
        return PROBLEM_TEMPLATES["type"] % {"json_where": where, "json_type": TYPE_NOUNS.get(kind, kind)}
    if "enum" in shape and value not in shape["enum"]:
        values = ", ".join(json.dumps(v, ensure_ascii=False) for v in shape["enum"])
        return PROBLEM_TEMPLATES["enum"] % {"json_where": where, "values": values}
    pattern = shape.get("pattern")
    if isinstance(value, str) and isinstance(pattern, str) and re.fullmatch(pattern, value) is None:
        return PROBLEM_TEMPLATES["pattern"] % {"json_where": where}
    if isinstance(value, list):
        if isinstance(shape.get("minItems"), int) and len(value) < shape["minItems"]:
            return PROBLEM_TEMPLATES["min_items"] % {"json_where": where, "count": shape["minItems"]}
        if isinstance(shape.get("items"), dict):
            for index, item in enumerate(value):
                problem = shape_problem(shape["items"], item, _join(path, index))
                if problem:
                    return problem
    if isinstance(value, dict):
        for key in shape.get("required", ()):
            if key not in value:
                return PROBLEM_TEMPLATES["required"] % {"json_where": where, "key": key}
        properties = shape.get("properties") or {}
        extra = shape.get("additionalProperties", True)
        for key, item in value.items():
            if key in properties:
                problem = shape_problem(properties[key], item, _join(path, key))
            elif extra is False:
                return PROBLEM_TEMPLATES["extra"] % {"json_where": where, "key": key}
            elif isinstance(extra, dict):
                problem = shape_problem(extra, item, _join(path, key))
            else:
                problem = None
            if problem:
                return problem
    return None


def _any_of_problem(choices: list[dict[str, Any]], value: Any, path: str) -> str | None:
    """None when one of the shapes fits. Otherwise the problem inside the shape whose type the value
    has (``[[1]]`` against text-or-list-of-text: "the value[0][0] must be text"), or else which
    types would do."""
    problems = [shape_problem(choice, value, path) for choice in choices]
    if any(problem is None for problem in problems):
        return None
    for choice, problem in zip(choices, problems, strict=True):
        kind = choice.get("type")
        if isinstance(kind, str) and _type_ok(kind, value):
            return problem
    nouns = [TYPE_NOUNS.get(c.get("type"), str(c.get("type"))) for c in choices if isinstance(c.get("type"), str)]
    if len(nouns) < 2:
        return problems[0]
    # One noun before "or" stays a coded message (translated); a list of them is shown as written.
    first = nouns[0] if len(nouns) == 2 else ", ".join(nouns[:-1])
    return PROBLEM_TEMPLATES["any_type"] % {"json_where": path or ROOT_WHERE, "json_type": first,
                                            "json_other_type": nouns[-1]}


def shape_example(shape: dict[str, Any]) -> str:
    return json.dumps(_example(shape, 0), ensure_ascii=False)


def _example(shape: dict[str, Any], depth: int) -> Any:
    if shape.get("enum"):
        return shape["enum"][0]
    if shape.get("anyOf"):
        return _example(shape["anyOf"][-1], depth)
    kind = shape.get("type")
    if depth > 6:
        return None
    if kind == "array":
        item = shape.get("items")
        return [_example(item, depth + 1)] if isinstance(item, dict) else []
    if kind == "object":
        properties = shape.get("properties") or {}
        keys = list(shape.get("required") or ()) or list(properties)[:1]
        extra = shape.get("additionalProperties")
        if not keys and isinstance(extra, dict):
            return {"key": _example(extra, depth + 1)}
        return {k: _example(properties.get(k, {}), depth + 1) for k in keys}
    return {"string": "text", "number": 1.5, "integer": 1, "boolean": True, "null": None}.get(kind or "", "text")


def json_violation(f: ProviderField, value: Any) -> Violation | None:
    if f.json_shape is None:
        return None
    problem = shape_problem(f.json_shape, value)
    if problem is None:
        return None
    message = JSON_TEMPLATE % {"example": shape_example(f.json_shape), "shape_problem": problem}
    return Violation("json_shape", message, coded("invalid_choice", key=f.key), {"json_shape": f.json_shape})


def violation(f: ProviderField, value: Any) -> Violation | None:
    """The first constraint of ``f`` that the coerced native ``value`` fails, or None."""
    if f.kind == KIND_NUMBER and isinstance(value, (int, float)) and not isinstance(value, bool):
        return number_violation(f, value)
    if f.kind == KIND_TEXT and isinstance(value, str):
        return text_violation(f, value)
    if f.kind == KIND_JSON:
        return json_violation(f, value)
    return None


def unparseable_number(f: ProviderField) -> Violation:
    """A number field got text that is not a number: the human message still gives the range."""
    return Violation("number", number_message(f), coded("invalid_number", key=f.key), _number_limits(f))

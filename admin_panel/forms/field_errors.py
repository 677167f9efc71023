"""What a person reads at a field whose value was refused: what to type there, in the reader's
language (docs/field_constraints.md, "What the pages say").

The engines' messages keep 0.19.0's wording for the API ("Invalid number for 'timeout'"), which
names the internal key and says nothing of what would be accepted. The pages show instead a
sentence built here from the message's code and the field's declaration: the range with its unit,
the allowed choices, or an example of valid JSON. A failed declared constraint already carries
such a sentence (its ``Violation``), which is shown as it is.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext as _

from admin_panel.localisation import localise_message, translate
from provider_schemas.constraints import has_constraints, shape_example, shape_problem, show_number

# A JSON value the shape of most JSON settings (a list of tags, scopes, names), when the field
# offers no example of its own.
_JSON_EXAMPLE = '["first", "second"]'


def _join(words: list[str]) -> str:
    return _(", ").join(words)


def _number_text(*, integer: bool, unit: str, minimum: Any, maximum: Any) -> str:
    """"Enter a whole number of turns, at least 0." in the reader's language (the catalogue's
    number sentences, shared with declared constraints)."""
    what = "a whole number" if integer else "a number"
    noun = f"{what} of %(unit)s" if unit else what
    if minimum is not None and maximum is not None:
        template = f"Enter {noun} from %(minimum)s to %(maximum)s."
    elif minimum is not None:
        template = f"Enter {noun}, at least %(minimum)s."
    elif maximum is not None:
        template = f"Enter {noun}, at most %(maximum)s."
    else:
        template = f"Enter {noun}."
    params = {"unit": translate(unit)}
    if minimum is not None:
        params["minimum"] = show_number(minimum)
    if maximum is not None:
        params["maximum"] = show_number(maximum)
    return translate(template) % params


def _json_example(state: Any, shape: Any) -> str:
    """An example of JSON the field takes: its default or placeholder when either is a JSON list
    or object of the declared shape, else one built from the shape, else a list of two words."""
    for candidate in (getattr(state, "default", ""), getattr(state, "placeholder", "")):
        if not isinstance(candidate, str) or not candidate.strip():
            continue
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(value, (dict, list)) and value and (shape is None or shape_problem(shape, value) is None):
            return json.dumps(value, ensure_ascii=False)
    return shape_example(shape) if shape is not None else _JSON_EXAMPLE


def _json_text(state: Any) -> str:
    shape = getattr(getattr(state, "field", None), "json_shape", None)
    example = {"example": _json_example(state, shape)}
    kind = shape.get("type") if isinstance(shape, dict) else None
    if kind == "array":
        return _("Enter a JSON list, such as %(example)s.") % example
    if kind == "object":
        return _("Enter a JSON object, such as %(example)s.") % example
    return _("Enter a JSON list or object, such as %(example)s.") % example


def _number_example(state: Any) -> str:
    default = getattr(state, "default", "")
    if isinstance(default, str) and default.strip():
        try:
            float(default)
        except ValueError:
            pass
        else:
            return default.strip()
    return "10"


def _choices(state: Any) -> str:
    labels = [str(o.get("label") or o.get("value")) for o in (getattr(state, "options", None) or ())
              if not o.get("disabled")]
    return _join(labels)


def _by_code(state: Any, code: str, params: Mapping[str, Any]) -> str | None:
    """The sentence for one engine code at a provider field, or None when the code is not about
    the value typed."""
    kind = getattr(state, "kind", "text")
    declared = getattr(state, "field", None)
    if code == "invalid_number":
        if declared is not None and has_constraints(declared):
            return _number_text(integer=bool(declared.integer), unit=declared.unit or "",
                                minimum=declared.minimum, maximum=declared.maximum)
        return _("Enter a number, such as %(example)s.") % {"example": _number_example(state)}
    if code in ("invalid_json", "json_shape"):
        return _json_text(state)
    if code == "invalid_boolean":
        return _("Choose on or off.")
    if code == "invalid_choice":
        if kind == "select" and getattr(state, "options", None):
            return _("Choose one of: %(choices)s.") % {"choices": _choices(state)}
        return _("Enter one of the values this setting takes.")
    if code == "value_too_long":
        return _("Enter at most %(limit)s characters.") % {"limit": params.get("limit", "")}
    if code == "line_breaks":
        return _("Enter the value on one line, without line breaks.")
    if code == "invisible_characters":
        return _("Remove the invisible characters (%(characters)s): type the value instead of pasting it.") % {
            "characters": params.get("characters", "")}
    if code == "set_and_cleared":
        return _("Either type a new value or reset it to the default, not both.")
    if code == "no_env_key":
        return _("The panel cannot store this secret: its provider does not name where it goes.")
    return None


def field_error(state: Any, message: str, violation: Any = None) -> str:
    """What the page shows at ``state``'s field (a provider_schemas FieldState) for the engine's
    ``message`` (a coded ``Message``, or text the panel wrote itself) and the failed constraint,
    if any."""
    if violation is not None:
        return localise_message(violation.message)
    code = getattr(message, "code", "")
    if code:
        shown = _by_code(state, code, getattr(message, "params", {}))
        if shown is not None:
            return shown
    return localise_message(message)


def setting_error(*, kind: str, unit: str, minimum: Any, message: str) -> str:
    """What the memory Settings page shows at a refused ``memory:`` value: a number setting takes a
    whole number from its minimum up, a switch on or off; other messages (activation) as they are."""
    code = getattr(message, "code", "")
    if kind == "number" and (code == "invalid_number" or not code):
        return _number_text(integer=True, unit=unit, minimum=minimum, maximum=None)
    if kind == "bool" and code == "invalid_boolean":
        return _("Choose on or off.")
    return localise_message(message)

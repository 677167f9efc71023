"""The memory settings form: the ``memory:`` keys of ``config.yaml`` as rows, and posted data back
into the changed values that provider_schemas validates and writes.

As on the provider form, only keys whose value differs from what was rendered are submitted, so a
displayed agent default is never written into the file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.safestring import SafeString
from django.utils.translation import gettext_lazy as _

from admin_panel.forms.declared import settings_form_class
from admin_panel.forms.field_errors import setting_error
from admin_panel.forms.widgets import render_control
from provider_schemas.saving.memory_settings import MEMORY_KEYS


@dataclass(frozen=True)
class SettingSpec:
    key: str
    label: Any
    kind: str  # "bool", "number" or "select"
    help: Any
    unit: str = ""  # a number's unit, as the catalogue words it

    @property
    def minimum(self) -> int | None:
        """The smallest whole number the agent accepts (provider_schemas' MEMORY_KEYS)."""
        return MEMORY_KEYS[self.key][2]


SETTINGS: tuple[SettingSpec, ...] = (
    SettingSpec("memory_enabled", _("Built-in memory"), "bool",
                _("The agent's own notes in memories/MEMORY.md.")),
    SettingSpec("user_profile_enabled", _("User profile"), "bool",
                _("What the agent knows about you, in memories/USER.md.")),
    SettingSpec("write_approval", _("Approve memory writes"), "bool",
                _("Memory writes wait in pending/memory/ until you approve them.")),
    SettingSpec("memory_char_limit", _("Memory size limit (characters)"), "number",
                _("The most characters MEMORY.md may hold."), "characters"),
    SettingSpec("user_char_limit", _("User profile size limit (characters)"), "number",
                _("The most characters USER.md may hold."), "characters"),
    SettingSpec("nudge_interval", _("Nudge interval (turns)"), "number",
                _("Turns between reminders to the agent to save memories. Blank: the agent's default (10)."),
                "turns"),
    SettingSpec("provider", _("External memory provider"), "select",
                _("The one external provider in use besides the built-in memory. Activation rules apply: "
                  "a provider missing required secrets cannot be chosen.")),
)


def edit_string(value: Any) -> str:
    """A native value as the form shows it."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@dataclass
class SettingRow:
    spec: SettingSpec
    value: str
    original: str
    stored: bool
    default: str
    error: str = ""
    disabled: bool = False
    choices: Sequence[Mapping[str, Any]] = ()  # a select's options: {"value", "label"}

    @property
    def key(self) -> str:
        return self.spec.key

    @property
    def dom_id(self) -> str:
        return f"set-{self.spec.key}"

    @property
    def checked(self) -> bool:
        return self.value == "true"

    @property
    def control_html(self) -> SafeString:
        """The control, rendered by the same Django widgets as the provider pages
        (``forms.widgets``)."""
        described = f"{self.dom_id}-help" + (f" {self.dom_id}-error" if self.error else "")
        attrs: dict[str, Any] = {"id": self.dom_id, "aria-describedby": described}
        if self.error:
            attrs["aria-invalid"] = "true"
        if self.disabled:
            attrs["disabled"] = True
        name = f"v:{self.key}"
        if self.spec.kind == "bool":
            return render_control({"widget": "switch", "name": name, "value": self.value, "attrs": attrs})
        if self.spec.kind == "select":
            options = [(c["value"], c["label"], False, "") for c in self.choices]
            return render_control({"widget": "select", "name": name, "value": self.value, "options": options,
                                   "attrs": attrs})
        # A number is typed into a text box: what a person typed is kept as typed (docs/admin_panel.md).
        return render_control({"widget": "text", "name": name, "value": self.value,
                               "attrs": {"inputmode": "numeric", **attrs, "autocomplete": "off"}})


def parse_settings(data: Mapping[str, Any]) -> tuple[dict[str, str], dict[str, str]]:
    """``(changed, edited)``: keys whose posted value differs from the rendered one, and every
    posted value (to show again after an error), through the generated settings form."""
    return settings_form_class(SETTINGS)(data=data).changes()


def build_setting_rows(
    settings_state: Any,
    *,
    edited: Mapping[str, str] | None = None,
    changed: Mapping[str, str] | None = None,
    errors: Mapping[str, str] | None = None,
    disabled: bool = False,
    choices: Sequence[Mapping[str, Any]] = (),
) -> list[SettingRow]:
    """Rows from provider_schemas' MemorySettings. After a conflict only the keys the user changed
    keep the typed value (``changed``); the rest show the file's new value."""
    errors = errors or {}
    rows = []
    for spec in SETTINGS:
        current = edit_string(settings_state.values.get(spec.key))
        value = current
        if edited is not None and spec.key in edited and (changed is None or spec.key in changed):
            value = edited[spec.key]
        rows.append(
            SettingRow(
                spec=spec,
                value=value,
                original=current,
                stored=spec.key in settings_state.stored,
                default=edit_string(settings_state.defaults.get(spec.key)),
                error=setting_error(kind=spec.kind, unit=spec.unit, minimum=spec.minimum, message=errors[spec.key])
                if errors.get(spec.key) else "",
                disabled=disabled,
                choices=choices if spec.kind == "select" else (),
            )
        )
    return rows

"""The memory settings form: the ``memory:`` keys of ``config.yaml`` as a generated Django form
(``forms.declared.settings_form_class``), shown the way the provider form is (docs/admin_panel.md,
"Forms from the declaration"): each field is a ``SettingBoundField`` rendering
``admin_panel/fields/setting.html`` around its control.

As on the provider form, only keys whose value differs from what was rendered are submitted
(Django's ``changed_data`` against the hidden initial ``o:<key>``), so a displayed agent default is
never written into the file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.utils.safestring import SafeString
from django.utils.translation import gettext_lazy as _

from admin_panel.forms.declared import DeclaredBoundField, SettingsForm, settings_form_class
from admin_panel.forms.field_errors import setting_error
from admin_panel.forms.widgets import TextControl
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


SPECS: dict[str, SettingSpec] = {spec.key: spec for spec in SETTINGS}

# The generated form of the memory settings: it reads a post (``changes``) and, unbound, is the page.
MemorySettingsForm: type[SettingsForm] = settings_form_class(SETTINGS)


@dataclass
class SettingsPage:
    """What one rendering of the settings form knows besides the declaration (``settings_form``)."""

    stored: frozenset[str]  # keys the file holds (the others show the agent's default)
    defaults: dict[str, str]  # key -> the agent's default, as the form shows it
    choices: Sequence[Mapping[str, Any]] = ()  # the provider choice's options: {"value", "label"}
    shown: dict[str, str] = field(default_factory=dict)  # key -> the value as typed
    errors: dict[str, str] = field(default_factory=dict)  # key -> what the page says


class SettingBoundField(DeclaredBoundField):
    """One ``memory:`` setting as the page shows it: its label and help (the form field's), whether
    the file holds it, the agent's default, and its control (``forms.widgets``).
    ``{{ field.as_field_group }}`` renders ``admin_panel/fields/setting.html``."""

    template_name = "admin_panel/fields/setting.html"

    def __init__(self, form: SettingsForm, field: Any, name: str) -> None:
        super().__init__(form, field, name)
        self.spec = SPECS[name]

    @property
    def kind(self) -> str:
        return self.spec.kind

    @property
    def dom_id(self) -> str:
        return f"set-{self.name}"

    @property
    def describedby(self) -> str:
        # This page has always named the help first, then the error (the provider form: error first).
        return f"{self.help_id} {self.error_id}" if self.error else self.help_id

    @property
    def stored(self) -> bool:
        return self.name in self.page.stored

    @property
    def default(self) -> str:
        return self.page.defaults.get(self.name, "")

    def choice_options(self) -> tuple[list[tuple[str, str, bool, str]], str]:
        return [(c["value"], c["label"], False, "") for c in self.page.choices], ""

    def typed_control(self) -> SafeString:
        """A number, typed into a text box: what a person typed is kept as typed (docs/admin_panel.md)."""
        return self.as_widget(TextControl(), {"inputmode": "numeric", **self._where_attrs(), "autocomplete": "off"})


def settings_form(
    settings_state: Any,
    *,
    edited: Mapping[str, str] | None = None,
    changed: Mapping[str, str] | None = None,
    errors: Mapping[str, str] | None = None,
    disabled: bool = False,
    choices: Sequence[Mapping[str, Any]] = (),
) -> SettingsForm:
    """The settings form over provider_schemas' MemorySettings, unbound, its initial values the
    file's (``o:<key>``), ready to render: ``form.field_groups`` are its ``SettingBoundField``s in
    declaration order. ``edited`` holds what the user typed; after a conflict only the keys the
    user changed keep it (``changed``), the rest show the file's new value. ``errors`` are the
    engine's messages, shown as what to type (``forms.field_errors.setting_error``)."""
    edited, errors = edited or {}, errors or {}
    page = SettingsPage(
        stored=frozenset(key for key in SPECS if key in settings_state.stored),
        defaults={key: edit_string(settings_state.defaults.get(key)) for key in SPECS},
        choices=choices,
        shown={key: value for key, value in edited.items()
               if key in SPECS and (changed is None or key in changed)},
        errors={spec.key: setting_error(kind=spec.kind, unit=spec.unit, minimum=spec.minimum,
                                        message=errors[spec.key])
                for spec in SETTINGS if errors.get(spec.key)},
    )
    form = MemorySettingsForm(initial={key: edit_string(settings_state.values.get(key)) for key in SPECS},
                              bound_field_class=SettingBoundField)
    form.page = page
    for each in form.fields.values():
        each.disabled = disabled
    form.field_groups = [form[key] for key in SPECS]
    return form

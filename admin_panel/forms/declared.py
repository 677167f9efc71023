"""Django forms generated from a declaration: a provider's fields (``provider_form_class``) and
the ``memory:`` settings (``settings_form_class``), in the style of ``modelform_factory``.

One form field class per kind of declared field; the posted names are the ones the pages have
always used (docs/admin_panel.md, "Forms from the declaration"):

``v:<key>`` the value · ``o:<key>`` the value as rendered (Django's hidden initial, so
``changed_data`` is exactly "differs from what was shown") · ``reset:<key>`` reset to default ·
``secret:<key>`` + ``new:<key>`` the secret's keep / replace / clear and its new value, read as one
widget.

Each field knows its declared ``ProviderField`` and checks a changed value with provider_schemas'
own per-kind rules (``coerce``: numbers, JSON, choices, constraints); the API's JSON and the HTML
post go through the same form (``api_form``). What depends on other fields (``when``,
``set_and_cleared``, a select's stored value) stays with the planner, which words the answer: a
value the form refuses is still planned, so the API's ``detail`` and ``errors`` are 0.19.0's.
The form's own errors are about its controls ("Replace" chosen with an empty box).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django import forms
from django.forms import BoundField
from django.utils.safestring import SafeString
from django.utils.translation import gettext_lazy as _

from admin_panel.forms.widgets import (
    ChoiceControl,
    HiddenInitial,
    SecretControl,
    SwitchControl,
    TextareaControl,
    TextControl,
    declared_attrs,
)
from memory_core.caching import MISSING, KeyedCache
from provider_schemas.values import FieldError, coerce, normalise_input

SECRET_ACTIONS = ("keep", "replace", "clear")


# --- fields: one class per kind -------------------------------------------------------------------


class DeclaredValue(forms.Field):
    """A declared non-secret value, as typed (never stripped: the engine decides what blank means).

    ``o:<key>`` is the hidden initial; a value posted without it (the review page re-posts only
    the changed values) counts as changed."""

    widget = TextControl
    hidden_widget = HiddenInitial

    def __init__(self, *, kind: str, declared: Any = None, storage: str = "", **kwargs: Any) -> None:
        self.kind = kind
        self.declared = declared  # the provider_schemas ProviderField (None: the memory settings)
        self.storage = storage  # the field's effective storage kind
        super().__init__(required=False, show_hidden_initial=True, **kwargs)

    def value_error(self, raw: Any) -> FieldError | None:
        """provider_schemas' verdict on ``raw`` by this field's own rules, or None when it passes
        them or depends on other fields (``when``: the planner decides whether it is saved)."""
        return _value_error(self.declared, raw, self.storage)

    def widget_attrs(self, widget: forms.Widget) -> dict[str, Any]:
        return {**super().widget_attrs(widget), **declared_attrs(self.kind, getattr(self, "declared", None))}

    def to_python(self, value: Any) -> str | None:
        return None if value is None else normalise_input(value)

    def has_changed(self, initial: Any, data: Any) -> bool:
        if data is None:
            return False
        return initial is None or initial != data


class DeclaredBool(DeclaredValue):
    widget = SwitchControl


class DeclaredChoice(DeclaredValue):
    widget = ChoiceControl


class DeclaredJson(DeclaredValue):
    widget = TextareaControl


class SecretChoice(forms.Field):
    """The secret's action and new value: ``(action, new)``. Typing a new value means "replace"
    (without JavaScript the box is always there)."""

    widget = SecretControl
    default_error_messages = {
        "missing_new": _("Enter the new value, or choose “Keep current value”."),
    }

    def __init__(self, *, declared: Any = None, storage: str = "", **kwargs: Any) -> None:
        self.declared = declared
        self.storage = storage
        super().__init__(required=False, **kwargs)

    def value_error(self, raw: Any) -> FieldError | None:
        return _value_error(self.declared, raw, self.storage)

    def to_python(self, value: Any) -> tuple[str, str]:
        action, new = [*list(value or ()), None, None][:2]
        action = action if action in SECRET_ACTIONS else "keep"
        new = new or ""
        if action == "keep" and new.strip():
            action = "replace"
        return action, new

    def validate(self, value: tuple[str, str]) -> None:
        action, new = value
        if action == "replace" and not new.strip():
            raise forms.ValidationError(self.error_messages["missing_new"], code="missing_new")


def _value_error(declared: Any, raw: Any, storage: str) -> FieldError | None:
    if declared is None or declared.when:
        return None
    try:
        coerce(declared, raw, storage=storage)
    except FieldError as exc:
        return exc
    return None


FIELD_CLASSES: dict[str, type[DeclaredValue]] = {
    "bool": DeclaredBool,
    "select": DeclaredChoice,
    "json": DeclaredJson,
    "text": DeclaredValue,
    "number": DeclaredValue,
}


# --- a generated field as a page shows it --------------------------------------------------------


class DeclaredBoundField(BoundField):
    """What every page that shows a generated form does with a field: Django's bound field, told by
    the form's ``page`` (set before the first field is accessed) what this rendering adds to the
    files' values: ``page.shown`` (a value as the user typed it, when the page comes back to them)
    and ``page.errors`` (what the page says at a field). Subclasses name the field's ``dom_id`` and
    ``kind``, say how a choice's options read (``choice_options``) and render the kinds besides a
    switch and a choice (``typed_control``); their ``template_name`` is the field group
    (``{{ field.as_field_group }}``, docs/admin_panel.md "Forms from the declaration")."""

    dom_id: str
    kind: str

    def __init__(self, form: forms.Form, field: forms.Field, name: str) -> None:
        super().__init__(form, field, name)
        self.page: Any = form.page

    @property
    def key(self) -> str:
        return self.name

    @property
    def error(self) -> str:
        return self.page.errors.get(self.name, "")

    def value(self) -> Any:
        """What the control shows: the files' value (the form's initial), or what the user typed
        when the page comes back to them."""
        return self.page.shown.get(self.name, self.initial)

    @property
    def help_id(self) -> str:
        return f"{self.dom_id}-help"

    @property
    def error_id(self) -> str:
        return f"{self.dom_id}-error"

    @property
    def describedby(self) -> str:
        return f"{self.error_id} {self.help_id}" if self.error else self.help_id

    def _where_attrs(self) -> dict[str, Any]:
        """The attributes that place a control on its page: its id, what describes it, whether it
        is refused, whether it can be changed."""
        attrs: dict[str, Any] = {"id": self.dom_id, "aria-describedby": self.describedby}
        if self.error:
            attrs["aria-invalid"] = "true"
        if self.field.disabled:
            attrs["disabled"] = True
        return attrs

    @property
    def control(self) -> SafeString:
        """The control, rendered by the kind's widget (``forms.widgets``) through Django's
        ``as_widget``: the name is the form's (``v:<key>``), the value that of ``value()``."""
        if self.kind == "bool":
            return self.as_widget(SwitchControl(), self._where_attrs())
        if self.kind == "select":
            options, blank_label = self.choice_options()
            return self.as_widget(ChoiceControl(options=options, blank_label=blank_label), self._where_attrs())
        return self.typed_control()

    def choice_options(self) -> tuple[list[tuple[str, str, bool, str]], str]:
        """A choice's ``(value, label, disabled, note)`` options and the label of its blank option
        ("" for none)."""
        raise NotImplementedError

    def typed_control(self) -> SafeString:
        """The control of any kind besides a switch and a choice."""
        raise NotImplementedError


# --- the provider form ----------------------------------------------------------------------------


@dataclass
class Submission:
    """What the user asked for, field by field (what provider_schemas plans and saves)."""

    values: dict[str, Any] = field(default_factory=dict)  # changed non-secrets and new secrets
    clear: list[str] = field(default_factory=list)
    edited: dict[str, str] = field(default_factory=dict)  # every non-secret value as typed
    secret_actions: dict[str, str] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)  # form-control problems (not value rules)
    value_errors: dict[str, Any] = field(default_factory=dict)  # key -> FieldError by the field's own rules

    @property
    def secret_values(self) -> dict[str, str]:
        return {k: v for k, v in self.values.items() if self.secret_actions.get(k) == "replace"}

    @property
    def plain_values(self) -> dict[str, Any]:
        return {k: v for k, v in self.values.items() if k not in self.secret_actions}

    @property
    def is_empty(self) -> bool:
        return not self.values and not self.clear


class DeclaredForm(forms.Form):
    """Base of the generated forms: field ``<key>`` posts as ``v:<key>`` with ``o:<key>`` as its
    hidden initial; secrets and the reset boxes post under their own names."""

    value_prefix = "v:"
    initial_prefix = "o:"

    def add_prefix(self, field_name: str) -> str:
        if isinstance(self.fields.get(field_name), DeclaredValue):
            return f"{self.value_prefix}{field_name}"
        return field_name

    def add_initial_prefix(self, field_name: str) -> str:
        return f"{self.initial_prefix}{field_name}"


class ProviderForm(DeclaredForm):
    secret_keys: tuple[str, ...] = ()
    value_keys: tuple[str, ...] = ()

    def submission(self) -> Submission:
        """The form's reading, for provider_schemas: changed values, cleared keys, secret actions,
        and the form's own errors (the planner checks the values)."""
        self.is_valid()
        sub = Submission()
        for key in self.secret_keys:
            bound = self[key]
            action, new = bound.field.to_python(bound.data)
            sub.secret_actions[key] = action
            if key in self.errors:
                sub.errors[key] = str(self.errors[key][0])
            elif action == "replace":
                sub.values[key] = new
                _note_value_error(sub, key, bound.field.value_error(new))
            elif action == "clear":
                sub.clear.append(key)
        changed = set(self.changed_data)
        for key in self.value_keys:
            value = self[key].data
            if value is None:
                continue  # not part of this post (or a disabled control)
            sub.edited[key] = value
            if self.cleaned_data.get(f"reset:{key}"):
                sub.clear.append(key)
            elif key in changed:
                sub.values[key] = value
                _note_value_error(sub, key, self.fields[key].value_error(value))
        return sub

    @classmethod
    def value_errors(cls, values: Mapping[str, Any]) -> dict[str, FieldError]:
        """The API's values judged by each declared field's own rules (unknown keys are the
        planner's: it reports them as ignored). A class method: the fields only read, so the
        per-instance deep copy of every field a bound form makes is not needed."""
        found = {}
        for key, declared in cls.base_fields.items():  # declaration order, as the planner reports
            check = getattr(declared, "value_error", None)
            problem = check(values[key]) if check is not None and key in values else None
            if problem is not None:
                found[key] = problem
        return found


def _note_value_error(sub: Submission, key: str, problem: FieldError | None) -> None:
    if problem is not None:
        sub.value_errors[key] = problem


def _build_form_class(fields: Sequence[Any], storage: str) -> type[ProviderForm]:
    """``fields``: ProviderFields, or FieldStates (their ``field`` is the declaration, if any)."""
    attrs: dict[str, Any] = {}
    secret_keys: list[str] = []
    value_keys: list[str] = []
    for each in fields:
        key, kind = each.key, each.kind
        declared = getattr(each, "field", each)
        declared = declared if hasattr(declared, "when") else None
        where = (getattr(declared, "storage", "") or storage) if declared is not None else storage
        if kind == "secret":
            attrs[key] = SecretChoice(declared=declared, storage=where)
            secret_keys.append(key)
            continue
        attrs[key] = FIELD_CLASSES.get(kind, DeclaredValue)(kind=kind, declared=declared, storage=where)
        attrs[f"reset:{key}"] = forms.BooleanField(required=False)
        value_keys.append(key)
    attrs["secret_keys"] = tuple(secret_keys)
    attrs["value_keys"] = tuple(value_keys)
    return type("ProviderForm", (ProviderForm,), attrs)


# Generated classes, one per declaration (and set of read-only fields), in the one cache mechanism
# (docs/caching.md): a schema object is reused by provider_schemas' loader while its file is
# unchanged, so a warm page or PUT builds no class. The entry holds the schema, so its id cannot be
# taken by another object while it is cached.
_form_classes = KeyedCache("generated form classes", size=256)


def _cached_form_class(schema: Any, fields: Sequence[Any], read_only: tuple[str, ...]) -> type[ProviderForm]:
    key = (id(schema), read_only)
    hit = _form_classes.get(key, key)
    if hit is not MISSING and hit[0] is schema:
        return hit[1]
    made = _build_form_class([f for f in fields if f.key not in read_only], schema.storage)
    _form_classes.put(key, key, (schema, made))
    return made


def provider_form_class(field_states: Sequence[Any], schema: Any = None, *,
                        with_read_only: bool = False) -> type[ProviderForm]:
    """A form class for a provider's editable fields (provider_schemas FieldStates, declaration
    order); read-only fields are not part of it unless ``with_read_only`` (the page shows them,
    disabled: ``forms.provider.provider_form``). With the ``schema`` the states come from, the
    class is built once per declaration."""
    read_only = () if with_read_only else tuple(s.key for s in field_states if getattr(s, "read_only_reason", None))
    if getattr(schema, "fields", None) is None or [f.key for f in schema.fields] != [s.key for s in field_states]:
        return _build_form_class([s for s in field_states if s.key not in read_only], "")
    return _cached_form_class(schema, schema.fields, read_only)


def api_form(schema: Any) -> type[ProviderForm]:
    """The form class of ``schema`` (a ProviderConfigSchema) for the API's values: every declared
    field (``value_errors`` judges them)."""
    return _cached_form_class(schema, schema.fields, ())


def parse_submission(field_states: Sequence[Any], data: Mapping[str, Any], schema: Any = None) -> Submission:
    """Posted data as a submission, through the provider's generated form (``schema``: the
    declaration the states come from, as loaded, so its class is reused)."""
    return provider_form_class(field_states, schema)(data=data).submission()


# --- the memory settings form ---------------------------------------------------------------------


class SettingsForm(DeclaredForm):
    def changes(self) -> tuple[dict[str, str], dict[str, str]]:
        """``(changed, edited)``: keys whose posted value differs from the rendered one, and every
        posted value (to show again after an error)."""
        self.is_valid()
        edited = {key: self[key].data for key in self.fields if self[key].data is not None}
        changed = {key: edited[key] for key in self.changed_data if key in edited}
        return changed, edited


def settings_form_class(specs: Iterable[Any]) -> type[SettingsForm]:
    """A form class for the ``memory:`` settings (``forms.settings.SETTINGS``)."""
    attrs = {spec.key: FIELD_CLASSES.get(spec.kind, DeclaredValue)(kind=spec.kind, label=spec.label,
                                                                   help_text=spec.help)
             for spec in specs}
    return type("SettingsForm", (SettingsForm,), attrs)

"""The controls of the declared forms, as Django widgets with their own templates
(``admin_panel/templates/admin_panel/widgets/``): one per kind of field, the secret's
keep / replace / clear and new value as one. Each both reads its value from the post
(``value_from_datadict``: the generated forms of ``forms.declared`` use them as their fields'
widgets) and draws the control.

A widget gets its HTML attributes the Django way: the form field's ``widget_attrs`` adds what
the declaration says (``declared_attrs``: pattern, maxlength, inputmode), the bound field
(``forms.declared.DeclaredBoundField``: the provider form's and the memory settings') adds where
it sits on the page (id, aria-describedby, aria-invalid, disabled, placeholder) through Django's
``BoundField.as_widget``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django import forms


def last_value(data: Mapping[str, Any], name: str) -> str | None:
    """The last value posted under ``name`` (a checkbox after its hidden "false" twin)."""
    getlist = getattr(data, "getlist", None)
    if getlist is not None:
        items = getlist(name)
        return items[-1] if items else None
    value = data.get(name)
    if isinstance(value, list):
        return value[-1] if value else None
    return value


class PostedValue(forms.Widget):
    """Reads the last value posted under the name, or None when the control was not posted
    (disabled, or not on this page: such a field is left alone)."""

    def value_from_datadict(self, data: Any, files: Any, name: str) -> Any:
        return last_value(data, name)

    def value_omitted_from_data(self, data: Any, files: Any, name: str) -> bool:
        return last_value(data, name) is None


class HiddenInitial(PostedValue, forms.HiddenInput):
    """Reads a field's value as it was rendered (``o:<key>``, Django's hidden initial)."""


class TextControl(PostedValue, forms.TextInput):
    """A one-line value: text or a number (typed as text: a browser's number box would drop what
    it cannot parse), with its unit beside it and the words offered while typing."""

    template_name = "admin_panel/widgets/text.html"

    def __init__(self, *, unit: str = "", suggestions: Sequence[str] = (), datalist_id: str = "",
                 attrs: Mapping[str, Any] | None = None) -> None:
        super().__init__(attrs=dict(attrs or {}))
        self.unit, self.suggestions, self.datalist_id = unit, list(suggestions), datalist_id

    def format_value(self, value: Any) -> str:
        return "" if value is None else str(value)  # shown exactly as typed, blank included

    def get_context(self, name: str, value: Any, attrs: dict[str, Any] | None) -> dict[str, Any]:
        context = super().get_context(name, value, attrs)
        context["widget"].update(unit=self.unit, suggestions=self.suggestions, datalist_id=self.datalist_id)
        return context


class TextareaControl(PostedValue, forms.Textarea):
    """JSON, or a text that already holds line breaks."""

    template_name = "admin_panel/widgets/textarea.html"

    def __init__(self, attrs: Mapping[str, Any] | None = None) -> None:
        super().__init__(attrs=dict(attrs or {}))  # no cols: the stylesheet sizes it

    def format_value(self, value: Any) -> str:
        return "" if value is None else str(value)


class ChoiceControl(PostedValue, forms.Select):
    """A choice among the declared options; ``blank_label`` offers "not set" when there is no
    default. ``options``: ``(value, label, disabled, note)``."""

    template_name = "admin_panel/widgets/select.html"

    def __init__(self, *, options: Sequence[tuple[str, str, bool, str]] = (), blank_label: str = "",
                 attrs: Mapping[str, Any] | None = None) -> None:
        super().__init__(attrs=dict(attrs or {}))
        self.options, self.blank_label = list(options), blank_label

    def get_context(self, name: str, value: Any, attrs: dict[str, Any] | None) -> dict[str, Any]:
        context = forms.Widget.get_context(self, name, value, attrs)
        shown = "" if value is None else str(value)
        context["widget"].update(
            value=shown,
            blank_label=self.blank_label,
            items=[(v, label, v == shown, disabled, note) for v, label, disabled, note in self.options],
        )
        return context


class SwitchControl(PostedValue, forms.CheckboxInput):
    """On / off: a checkbox that posts "true", after a hidden "false" twin (the last one posted is
    the value; none when the switch was disabled)."""

    template_name = "admin_panel/widgets/switch.html"

    def __init__(self, attrs: Mapping[str, Any] | None = None) -> None:
        super().__init__(attrs=dict(attrs or {}), check_test=lambda value: value == "true")

    def get_context(self, name: str, value: Any, attrs: dict[str, Any] | None) -> dict[str, Any]:
        context = super().get_context(name, value, attrs)
        context["widget"]["checked"] = value == "true"
        context["widget"]["attrs"].pop("checked", None)
        return context


class SecretControl(forms.Widget):
    """Keep / replace / clear and the new value. It reads both (``secret:<key>``, ``new:<key>``)
    as ``[action, new]``; it draws the chosen action only: a stored secret is never put into the
    page."""

    template_name = "admin_panel/widgets/secret.html"

    def __init__(self, *, key: str = "", actions: Sequence[tuple[str, str]] = (),
                 texts: Mapping[str, str] | None = None, disabled: bool = False,
                 attrs: Mapping[str, Any] | None = None) -> None:
        super().__init__(attrs=dict(attrs or {}))
        self.key, self.actions, self.texts, self.disabled = key, list(actions), dict(texts or {}), disabled

    def value_from_datadict(self, data: Any, files: Any, name: str) -> list[str | None]:
        return [last_value(data, f"secret:{name}"), last_value(data, f"new:{name}")]

    def value_omitted_from_data(self, data: Any, files: Any, name: str) -> bool:
        return False

    def get_context(self, name: str, value: Any, attrs: dict[str, Any] | None) -> dict[str, Any]:
        context = super().get_context(name, None, attrs)
        context["widget"].update(key=self.key, action=value, actions=self.actions, disabled=self.disabled,
                                 **self.texts)
        return context


def declared_attrs(kind: str, declared: Any) -> dict[str, str]:
    """The HTML attributes a declaration's constraints become, for the ones HTML knows (the server
    checks them all anyway). A number is typed into a text box with a numeric keyboard: a
    browser's number box drops what it cannot parse ("abc12" becomes "12", "1e" nothing), and
    what a person typed is never changed silently; the server refuses it and says the range."""
    attrs: dict[str, str] = {}
    if kind == "number":
        attrs["inputmode"] = "numeric" if getattr(declared, "integer", False) else "decimal"
    if kind != "text" or declared is None:
        return attrs
    inputmode = {"url": "url", "port": "numeric"}.get(getattr(declared, "format", ""), "")
    if inputmode:
        attrs["inputmode"] = inputmode
    if getattr(declared, "pattern", "") and not getattr(declared, "keywords", ()):
        attrs["pattern"] = declared.pattern
    if getattr(declared, "max_length", None):
        attrs["maxlength"] = str(declared.max_length)
    return attrs

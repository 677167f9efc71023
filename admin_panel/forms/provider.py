"""The generic provider form as a page shows it: the generated Django form
(``admin_panel.forms.declared``) over every field of a provider, whose bound fields
(``ProviderBoundField``) carry what provider_schemas read for each field (docs/admin_panel.md,
"Forms from the declaration"). Posted data is read by the same generated form.

Nothing here is provider-specific and nothing here validates values: every rule and message comes
from provider_schemas (the only additions are about the form controls themselves, such as
"Replace" chosen with an empty box). Only fields whose value differs from what was rendered are
submitted, so a displayed default is never written.

Besides the form's names (``admin_panel.forms.declared``), each field with a ``when`` posts
``vis:<key>``: whether it was shown (lets the per-field endpoint re-render only fields whose
visibility flipped).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import quote

from django import forms
from django.utils import translation
from django.utils.functional import cached_property
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from admin_panel.cjk_text import tidy_cjk_spaces
from admin_panel.forms.declared import DeclaredBoundField, ProviderForm, Submission, provider_form_class
from admin_panel.forms.field_errors import field_error
from admin_panel.forms.widgets import SecretControl, TextareaControl, TextControl, declared_attrs
from admin_panel.localisation import localise_message
from admin_panel.templatetags.dates import when
from memory_core.caching import MISSING, KeyedCache
from provider_schemas import prospective_visibility as planned_visibility
from provider_schemas.constraints import TEXT_TEMPLATES


def prospective_visibility(state: Any, sub: Submission | None) -> dict[str, bool]:
    """Which fields show while the user edits: exactly the fields a save of this form's submission
    would treat as visible (docs/agent_formats.md §Saving provider values step 3, computed by provider_schemas' planner
    over ``state``, a ProviderState). Without a submission, the state's own visibility."""
    if sub is None or sub.is_empty:
        return {field_state.key: field_state.visible for field_state in state.fields}
    return planned_visibility(state, values=sub.values, clear=sub.clear)


# --- the words of a field ----------------------------------------------------------------------------


def ui_texts() -> dict[str, str]:
    """Every word of a provider field in the active language, translated once per language and
    process (the catalogs are loaded once per process; gettext through Django's per-thread
    machinery costs more than the rest of a field's preparation). The dict is shared: read only."""
    language = translation.get_language() or ""
    texts = _ui_texts_by_language.get(language)
    if texts is None:
        texts = _ui_texts_by_language[language] = _translate_ui_texts()
    return texts


_ui_texts_by_language: dict[str, dict[str, str]] = {}


def _translate_ui_texts() -> dict[str, str]:
    return {
        "required": _("required"),
        "set": _("Set"),
        "not_set": _("Not set"),
        "clear": _("Clear (remove it)"),
        "typing_replaces": _("Typing here replaces the stored value; leave blank to keep it."),
        "source_title": _("Where the current value comes from"),
        "blank_option": _("(not set: plugin default)"),
        "reset": _("Reset to default (remove the stored value)"),
        "keep_placeholder": _("Leave blank to keep current value"),
        "keep": _("Keep current value"),
        "leave_unset": _("Leave unset"),
        "replace": _("Replace"),
        "set_value": _("Set a value"),
        "blank": _("(blank)"),
        "about": _("About %(label)s"),
        "status": _("Status: %(status)s."),
        "set_at": _("Last written by the panel: %(when)s."),
        "group": _("What to do with %(label)s"),
        "new": _("New %(label)s"),
        "stored_as": _("Stored as %(variable)s in the %(store)s"),
        "stored_in": _("Stored in: %(where)s"),
        "default": _("Default: %(default)s"),
        "source_stored": _("stored"),
        "source_fallback": _("stored in %(location)s"),
        "source_alias": _("stored under an older name"),
        "source_alias_title": _("Where the current value comes from: the older key %(key)s"),
        "source_env": _("from .env %(variable)s"),
        "source_override": _("overridden by .env %(variable)s"),
        "source_default": _("default"),
        "not_set_status": _("not set"),
        "in_env": _("set in .env"),
        "in_keyring": _("set in keyring"),
        "in_file_key": _("set in %(file)s (key %(key)s)"),
        "in_file": _("set in %(file)s"),
        "secret_store": _("secret store · %(variable)s"),
        "list_sep": _(", "),
        "shared": _("Shared by every host in %(file)s"),
        "on": _("on"),
        "off": _("off"),
    }


def _source_text(state: Any, ui: Mapping[str, str]) -> str:
    """The source badge of docs/agent_formats.md §What the provider pages show."""
    source = state.source
    variable = getattr(state, "_variable", None) or ""
    if source == "stored":
        if state.fallback_location:
            return _fill(ui["source_fallback"], {"location": state.fallback_location})
        return ui["source_stored"]
    if source == "alias":
        return ui["source_alias"]
    if source in ("env_fallback", "seed_env"):
        return _fill(ui["source_env"], {"variable": variable})
    if source == "env_override":
        return _fill(ui["source_override"], {"variable": variable})
    return ui["source_default"] if source == "default" else ""


_SOURCE_CLASSES = {
    "stored": "badge--ok",
    "alias": "badge--warn",
    "env_fallback": "badge--info",
    "seed_env": "badge--info",
    "env_override": "badge--warn",
}


def _store_text(store: str, ui: Mapping[str, str]) -> str:
    if store == "env_file":
        return ui["in_env"]
    if store == "keyring":
        return ui["in_keyring"]
    if store.startswith("file:"):
        path, _sep, key = store[len("file:"):].partition("#")
        return _fill(ui["in_file_key"], {"file": path, "key": key}) if key else _fill(ui["in_file"], {"file": path})
    return store


def secret_status_text(state: Any, ui: Mapping[str, str]) -> str:
    """"set in .env", "set in keyring, set in hindsight/config.json (key apiKey)" or "not set"."""
    stores = list(getattr(state, "stores", None) or [])
    if not stores:
        return ui["not_set_status"]
    return ui["list_sep"].join(_store_text(store, ui) for store in stores)


def location_text(location: Mapping[str, Any] | None, ui: Mapping[str, str]) -> str:
    """Where a save writes a field, as one line: ``hindsight/config.json · mode``."""
    if not location:
        return ""
    if location.get("store") == "secret":
        return _fill(ui["secret_store"], {"variable": location.get("variable", "")})
    where = location.get("file") or ""
    detail = location.get("key") or location.get("path") or location.get("variable") or ""
    return f"{where} · {detail}" if detail else where


def _set_at_html(text: str, set_at: str | None) -> SafeString | str:
    """"Last written by the panel: …" with the moment as every page shows one (``{% when %}``);
    ``set_at`` is the API's UTC stamp (docs/api.md)."""
    if not set_at:
        return ""
    try:
        moment = datetime.fromisoformat(set_at.replace("Z", "+00:00"))
    except ValueError:
        return text % {"when": set_at}
    return mark_safe(tidy_cjk_spaces(escape(text) % {"when": when(moment)}))  # noqa: S308 - escaped text, built element


def _fill(text: str, values: Mapping[str, Any]) -> str:
    """A translated text with its placeholders filled, without the spaces the English order puts
    between pieces that are both Chinese (docs/admin_panel.md §Chinese text)."""
    return tidy_cjk_spaces(text % values)


class ProviderBoundField(DeclaredBoundField):
    """One field of the provider form as the page shows it: Django's bound field with what
    provider_schemas read from the files (status, source, where it is stored, the ``when`` note)
    and what this page adds (the error, whether it is shown, whether it can be changed) as its
    properties. ``{{ field.as_field_group }}`` renders ``admin_panel/fields/provider.html``
    around the control, which the kind's widget renders (``forms.widgets``).

    Everything about the page comes from the form's ``page`` (``FormPage``, set by
    ``provider_form``): the bound field is made on first access, after it is set.
    """

    template_name = "admin_panel/fields/provider.html"

    def __init__(self, form: ProviderForm, field: forms.Field, name: str) -> None:
        super().__init__(form, field, name)
        self.state = self.page.states[name]  # provider_schemas FieldState
        self.label = self.state.label  # translated (admin_panel.localisation)
        self.ui = self.page.ui

    # --- what the page holds for this field --------------------------------------------------

    @property
    def kind(self) -> str:
        return self.state.kind

    @property
    def is_secret(self) -> bool:
        return self.state.kind == "secret"

    @property
    def has_when(self) -> bool:
        return bool(self.state.when)

    @property
    def visible(self) -> bool:
        return self.page.visibility.get(self.name, True)

    @property
    def reset(self) -> bool:
        return self.name in self.page.resets

    @property
    def read_only_reason(self) -> str:
        return getattr(self.state, "read_only_reason", None) or ""

    def value(self) -> str:
        """For a secret, the chosen action (never a stored value)."""
        if self.is_secret:
            return self.page.secret_actions.get(self.name, "keep")
        return super().value()

    # --- texts --------------------------------------------------------------------------------

    @cached_property
    def dom_id(self) -> str:
        return f"fld-{self.page.index[self.name]}-" + re.sub(r"[^A-Za-z0-9_-]", "_", self.name)[:40]

    @property
    def row_id(self) -> str:
        return "row-" + self.dom_id

    @property
    def classes(self) -> str:
        classes = ["field", f"field--{self.kind}"]
        if not self.visible:
            classes.append("field--off")
        if self.error:
            classes.append("field--invalid")
        return " ".join(classes)

    @property
    def live_url(self) -> str:
        """Where htmx sends the row when it changes (secrets and unchangeable rows: nowhere)."""
        if self.page.validate_url and not self.is_secret and not self.field.disabled:
            return f"{self.page.validate_url}?key={quote(self.name, safe='')}"
        return ""

    @property
    def about(self) -> str:
        return _fill(self.ui["about"], {"label": self.label})

    @property
    def when_note(self) -> str:
        return when_note(self.state, self.page.states)

    @property
    def warnings(self) -> list[str]:
        return [localise_message(w.message) for w in self.state.warnings]

    @property
    def status_line(self) -> SafeString:
        """A secret's "Status: set in .env. Last written by the panel: …" (never its value)."""
        status = _fill(self.ui["status"], {"status": secret_status_text(self.state, self.ui)})
        set_at = _set_at_html(self.ui["set_at"], self.state.set_at)
        return mark_safe(tidy_cjk_spaces(f"{escape(status)} {set_at}".strip()))  # noqa: S308 - escaped text and a built element

    @property
    def stored_text(self) -> str:
        state, ui = self.state, self.ui
        if self.is_secret and self.page.secret_store_label:
            return _fill(ui["stored_as"], {"variable": state.env_key or "", "store": self.page.secret_store_label})
        return _fill(ui["stored_in"], {"where": location_text(state.location, ui)})

    @property
    def shared_note(self) -> str:
        """Honcho root keys sit outside the host block: every host of the file reads them."""
        state = self.state
        if state.location.get("store") == "honcho_host_block" and getattr(state.field, "scope", "host") == "root":
            return _fill(self.ui["shared"], {"file": state.location.get("file", "")})
        return ""

    @property
    def source_text(self) -> str:
        return _source_text(self.state, self.ui)

    @property
    def source_class(self) -> str:
        return _SOURCE_CLASSES.get(self.state.source or "", "badge--muted")

    @property
    def source_title(self) -> str:
        """The badge says it in words; the older key itself is for whoever hovers (or edits YAML)."""
        if self.state.source == "alias":
            return _fill(self.ui["source_alias_title"], {"key": self.state.stored_key or ""})
        return self.ui["source_title"]

    @property
    def default_text(self) -> str:
        state = self.state
        shown_default = state.default
        if self.kind == "select":
            # The choice list shows labels, so the default line names the same label.
            labels = {o.get("value"): o.get("label") for o in state.options}
            shown_default = labels.get(state.default) or state.default
        elif self.kind == "bool" and state.default in ("true", "false"):
            # A switch shows on/off, not the stored word.
            shown_default = self.ui["on"] if state.default == "true" else self.ui["off"]
        return _fill(self.ui["default"], {"default": shown_default or self.ui["blank"]})

    @property
    def show_reset(self) -> bool:
        return bool(self.state.is_set) and not self.field.disabled

    @property
    def option_help(self) -> list[tuple[str, str]]:
        return [(o.get("label"), o.get("description")) for o in self.state.options
                if o.get("description") and not o.get("disabled")]

    # --- the control --------------------------------------------------------------------------

    def choice_options(self) -> tuple[list[tuple[str, str, bool, str]], str]:
        """The declared options (one not on offer says why), "not set" first when there is no
        default."""
        state = self.state
        options = [(o.get("value"), o.get("label"), bool(o.get("disabled")),
                    o.get("description", "") if o.get("disabled") else "") for o in state.options]
        return options, self.ui["blank_option"] if not state.default else ""

    def typed_control(self) -> SafeString:
        """A secret's keep / replace / clear, a text box or a multi-line box."""
        if self.is_secret:
            return self._secret_control()
        state, kind = self.state, self.kind
        value = self.value()
        if kind == "json" or (kind == "text" and ("\n" in value or "\r" in value)):
            attrs = {"id": self.dom_id, "rows": "4"}
            if kind == "json":
                attrs.update({"class": "mono", "spellcheck": "false"})
            attrs["placeholder"] = state.placeholder
            return self.as_widget(TextareaControl(), {**attrs, **self._where_attrs()})
        declared = getattr(state, "field", None)
        attrs = declared_attrs(kind, declared)
        if attrs.get("pattern") and getattr(declared, "pattern_hint", ""):
            # Without JavaScript the browser shows this beside its own "match the format" note.
            attrs["title"] = localise_message(TEXT_TEMPLATES["pattern_hint"] % {"hint": declared.pattern_hint})
        words = []
        if kind == "text":
            words = list(getattr(declared, "suggestions", ()) or getattr(declared, "keywords", ()))
        datalist_id = ""
        if words:
            datalist_id = attrs["list"] = f"{self.dom_id}-suggestions"
        unit = getattr(declared, "unit", "") if declared is not None else ""
        attrs.update({"placeholder": state.placeholder, "autocomplete": "off"})
        if kind != "number":
            attrs["spellcheck"] = "false"
        widget = TextControl(unit=localise_message(unit) if unit else "", suggestions=words, datalist_id=datalist_id)
        return self.as_widget(widget, {**attrs, **self._where_attrs()})

    def _secret_control(self) -> SafeString:
        """Keep / replace / clear and the new value (``forms.widgets.SecretControl``)."""
        ui, is_set = self.ui, bool(self.state.is_set)
        actions = [("keep", ui["keep"] if is_set else ui["leave_unset"]),
                   ("replace", ui["replace"] if is_set else ui["set_value"])]
        if is_set:
            actions.append(("clear", ui["clear"]))
        attrs: dict[str, Any] = {"id": self.dom_id, "autocomplete": "new-password", "spellcheck": "false",
                                 "placeholder": ui["keep_placeholder"] if is_set else self.state.placeholder}
        if self.error:
            attrs.update({"aria-invalid": "true", "aria-describedby": self.error_id})
        if self.field.disabled:
            attrs["disabled"] = True
        texts = {"group_label": _fill(ui["group"], {"label": self.label}),
                 "new_label": _fill(ui["new"], {"label": self.label}),
                 "typing_replaces": ui["typing_replaces"]}
        widget = SecretControl(key=self.name, actions=actions, texts=texts, disabled=self.field.disabled)
        return self.as_widget(widget, attrs)

    # --- rendering, reused while nothing it reads has changed --------------------------------

    def as_field_group(self) -> SafeString:
        return self._rendered(oob=False)

    def as_oob_field_group(self) -> SafeString:
        """The field group as an htmx out-of-band swap (a field whose visibility flipped)."""
        return self._rendered(oob=True)

    def _rendered(self, *, oob: bool) -> SafeString:
        if self.state.set_at:  # "Last written by the panel: 3 minutes ago" ages: never kept
            return self.render(context={"field": self, "oob": oob})
        key, inputs = (self.page.provider, self.page.validate_url, self.name, oob), self._inputs()
        hit = _field_groups.get(key, inputs)
        if hit is not MISSING:
            return hit
        return _field_groups.put(key, inputs, self.render(context={"field": self, "oob": oob}))

    def _inputs(self) -> tuple[Any, ...]:
        """Everything the field group's HTML is made from besides code and templates: the field's
        provider_schemas state (its value, source, stores, location, the declaration in the
        reader's language; compared by equality), what this page adds, and the language. The
        ``when`` note also reads the fields it names."""
        return (translation.get_language(), self.state, self.page.index[self.name], self.visible, self.error,
                self.value(), self.reset, self.field.disabled, self.page.secret_store_label, self.when_note)


# Rendered field groups in the one cache mechanism (docs/caching.md): a warm provider page costs a
# comparison per field instead of a template render. The key says where the field is shown; the
# fingerprint (``ProviderBoundField._inputs``) holds every input of its HTML.
_field_groups = KeyedCache("rendered provider field groups", size=2048)


@dataclass
class FormPage:
    """What one rendering of the provider form knows besides the declaration (``provider_form``)."""

    ui: dict[str, str]
    states: dict[str, Any]  # key -> provider_schemas FieldState, declaration order
    index: dict[str, int]
    visibility: dict[str, bool]
    shown: dict[str, str] = field(default_factory=dict)  # key -> the value as typed
    resets: set[str] = field(default_factory=set)
    secret_actions: dict[str, str] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)  # key -> what the page says
    validate_url: str = ""
    secret_store_label: str = ""
    provider: str = ""  # the provider's name (with validate_url, where the form is shown)


def when_conditions(state: Any, by_key: Mapping[str, Any]) -> list[str]:
    """["Mode is Local Embedded", ...] for a field's ``when`` (labels, not raw values, where known)."""
    parts = []
    for key, expected in (state.when or {}).items():
        controller = by_key.get(key)
        label = controller.label if controller is not None else key
        shown = expected
        if controller is not None:
            for option in controller.options:
                if option.get("value") == expected:
                    shown = option.get("label") or expected
            if controller.kind == "bool":
                shown = _("on") if expected == "true" else _("off")
        parts.append(_fill(_("%(label)s is %(value)s"), {"label": label, "value": shown}))
    return parts


def when_note(state: Any, by_key: Mapping[str, Any]) -> str:
    """"Only used when Mode is Local Embedded"."""
    if not state.when:
        return ""
    return _fill(_("Only used when %(conditions)s."), {"conditions": _(" and ").join(when_conditions(state, by_key))})


def provider_form(
    provider_state: Any,
    *,
    sub: Submission | None = None,
    errors: Mapping[str, str] | None = None,
    details: Mapping[str, Any] | None = None,
    disabled: bool = False,
    validate_url: str = "",
    fresh_values: bool = False,
    secret_store_label: str = "",
) -> ProviderForm:
    """The provider's generated form (``forms.declared``) over every field of ``provider_state``
    (a ProviderState), unbound, its initial values the files' (``o:<key>``), ready to render:
    ``form.field_groups`` are its ``ProviderBoundField``s in declaration order. With ``sub`` (the
    user's submission) the controls show what the user typed; ``errors`` are the engine's
    messages (or the panel's own) and ``details`` the failed constraints, shown as what to type
    (``forms.field_errors``). A read-only field, or every field when ``disabled``, is a disabled
    field of the form.

    ``fresh_values``: after a conflict, fields the user did not change show the files' new value,
    so a later submit cannot quietly revert someone else's change.
    """
    errors = errors or {}
    details = details or {}
    states = provider_state.fields
    entry = getattr(provider_state, "entry", None)
    form_class = provider_form_class(states, getattr(entry, "schema", None), with_read_only=True)
    page = FormPage(
        ui=ui_texts(),
        states={state.key: state for state in states},
        index={state.key: index for index, state in enumerate(states)},
        visibility=prospective_visibility(provider_state, sub),
        validate_url=validate_url,
        secret_store_label=secret_store_label,
        provider=getattr(provider_state, "name", ""),
    )
    if sub is not None:
        page.secret_actions = sub.secret_actions
        for key, typed in sub.edited.items():
            changed = key in sub.values or key in sub.clear
            if not (fresh_values and not changed):
                page.shown[key] = typed
        page.resets = {key for key in sub.clear if key in sub.edited}
    for state in states:
        message = errors.get(state.key, "")
        if message:
            page.errors[state.key] = field_error(state, message, details.get(state.key))
    form = form_class(initial={state.key: state.value for state in states},
                      bound_field_class=ProviderBoundField)
    form.page = page
    for state in states:
        if disabled or getattr(state, "read_only_reason", None):
            form.fields[state.key].disabled = True
    form.field_groups = [form[state.key] for state in states]
    return form


def visibility_flipped(fields: Iterable[ProviderBoundField], *, key: str, data: Mapping[str, Any]) -> list[Any]:
    """The fields besides ``key`` whose visibility differs from what the page showed (each field
    with a ``when`` posts ``vis:<key>``): htmx swaps them out of band."""
    return [each for each in fields
            if each.key != key and each.has_when and data.get(f"vis:{each.key}") != ("1" if each.visible else "0")]


@dataclass
class Section:
    title: str
    fields: list[ProviderBoundField]
    is_compact: bool = False

    @property
    def has_error(self) -> bool:
        return any(field.error for field in self.fields)

    @property
    def slug(self) -> str:
        return "sec-" + (re.sub(r"[^a-z0-9]+", "-", self.title.lower()).strip("-") or "other")


def sections(fields: Iterable[ProviderBoundField]) -> list[Section]:
    """Inline fields first (the compact panel), then each group in order of first appearance."""
    fields = list(fields)
    result: list[Section] = []
    compact = [each for each in fields if each.state.inline]
    if compact:
        result.append(Section(title=_("Essentials"), fields=compact, is_compact=True))
    groups: dict[str, list[ProviderBoundField]] = {}
    for each in fields:
        if each.state.inline:
            continue
        groups.setdefault(each.state.group or "", []).append(each)
    for title, members in groups.items():
        result.append(Section(title=title or _("Other"), fields=members))
    return result


def hidden_summary(fields: Sequence[ProviderBoundField]) -> str:
    """"N settings hidden (shown when Mode is Local Embedded). Their stored values are kept." """
    hidden = [each for each in fields if not each.visible]
    if not hidden:
        return ""
    by_key = {each.state.key: each.state for each in fields}
    conditions: list[str] = []
    for each in hidden:
        for text in when_conditions(each.state, by_key):
            if text not in conditions:
                conditions.append(text)
    return _fill(ngettext(
        "%(count)s setting hidden (shown when %(conditions)s). Its stored value is kept.",
        "%(count)s settings hidden (shown when %(conditions)s). Their stored values are kept.",
        len(hidden),
    ), {"count": len(hidden), "conditions": _(", ").join(conditions)})

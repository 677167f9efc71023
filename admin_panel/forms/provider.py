"""The generic provider form's rows: what ``providers/partials/_field.html`` shows for each of
provider_schemas' field states. Posted data is read by the generated Django form
(``admin_panel.forms.declared``).

Nothing here is provider-specific and nothing here validates values: every rule and message comes
from provider_schemas (the only additions are about the form controls themselves, such as
"Replace" chosen with an empty box). Only fields whose value differs from what was rendered are
submitted, so a displayed default is never written.

Besides the form's names (``admin_panel.forms.declared``), each row posts ``vis:<key>``: whether
it was shown (lets the per-field endpoint re-render only rows whose visibility flipped).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import quote

from django.utils import translation
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from admin_panel.cjk_text import tidy_cjk_spaces
from admin_panel.forms.declared import Submission, declared_attrs
from admin_panel.forms.field_errors import field_error
from admin_panel.forms.widgets import render_control
from admin_panel.localisation import localise_message
from admin_panel.templatetags.dates import when
from provider_schemas import prospective_visibility as planned_visibility
from provider_schemas.constraints import TEXT_TEMPLATES


def _dom_id(index: int, key: str) -> str:
    return f"fld-{index}-" + re.sub(r"[^A-Za-z0-9_-]", "_", key)[:40]


def prospective_visibility(state: Any, sub: Submission | None) -> dict[str, bool]:
    """Which rows show while the user edits: exactly the fields a save of this form's submission
    would treat as visible (docs/agent_formats.md §Saving provider values step 3, computed by provider_schemas' planner
    over ``state``, a ProviderState). Without a submission, the state's own visibility."""
    if sub is None or sub.is_empty:
        return {field_state.key: field_state.visible for field_state in state.fields}
    return planned_visibility(state, values=sub.values, clear=sub.clear)


# --- rows for the template ------------------------------------------------------------------------


def ui_texts() -> dict[str, str]:
    """Every word of the field row in the active language, translated once per language and
    process (the catalogs are loaded once per process; gettext through Django's per-thread
    machinery costs more than the rest of a row's preparation). The dict is shared: read only."""
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


@dataclass
class FieldRow:
    """Everything ``providers/partials/_field.html`` needs for one field, as ready-made values.

    The partial is rendered for every field of every provider page, so it only reads plain
    attributes: all text (translated) and choices are worked out here, once.
    """

    state: Any  # provider_schemas FieldState
    index: int
    value: str  # what the control shows
    original: str  # what was rendered from the files (compared on submit)
    visible: bool
    when_note: str
    ui: dict[str, str]
    error: str = ""
    reset: bool = False
    secret_action: str = "keep"  # noqa: S105 - a choice, not a secret
    disabled: bool = False
    validate_url: str = ""
    secret_store_label: str = ""

    def __post_init__(self) -> None:
        state, ui = self.state, self.ui
        self.key = state.key
        self.kind = state.kind
        self.label = state.label
        self.description = state.description
        self.info = state.info
        self.placeholder = state.placeholder
        self.has_when = bool(state.when)
        self.warnings = [localise_message(w.message) for w in state.warnings]
        self.dom_id = _dom_id(self.index, self.key)
        self.row_id = "row-" + self.dom_id
        self.is_secret = self.kind == "secret"
        self.read_only_reason = getattr(state, "read_only_reason", None) or ""
        self.about = _fill(ui["about"], {"label": self.label})
        classes = ["field", f"field--{self.kind}"]
        if not self.visible:
            classes.append("field--off")
        if self.error:
            classes.append("field--invalid")
        self.classes = " ".join(classes)
        self.help_id = f"{self.dom_id}-help"
        self.error_id = f"{self.dom_id}-error"
        self.describedby = f"{self.error_id} {self.help_id}" if self.error else self.help_id
        self.live_url = ""
        if self.validate_url and not self.is_secret and not self.disabled:
            self.live_url = f"{self.validate_url}?key={quote(self.key, safe='')}"
        if self.is_secret:
            self.is_set = bool(state.is_set)
            self.required = bool(state.required)
            self.status_text = _fill(ui["status"], {"status": secret_status_text(state, ui)})
            self.set_at_text = _set_at_html(ui["set_at"], state.set_at)
            self.status_line = mark_safe(tidy_cjk_spaces(  # noqa: S308 - escaped text and a built element
                f"{escape(self.status_text)} {self.set_at_text}".strip()))
            if self.secret_store_label:
                self.stored_text = _fill(ui["stored_as"],
                                         {"variable": state.env_key or "", "store": self.secret_store_label})
            else:
                self.stored_text = _fill(ui["stored_in"], {"where": location_text(state.location, ui)})
            self.control = self._secret_control()
            return
        # Honcho root keys sit outside the host block: every host of the file reads them.
        self.shared_note = ""
        if state.location.get("store") == "honcho_host_block" and getattr(state.field, "scope", "host") == "root":
            self.shared_note = _fill(ui["shared"], {"file": state.location.get("file", "")})
        self.source_text = _source_text(state, ui)
        self.source_class = _SOURCE_CLASSES.get(state.source or "", "badge--muted")
        # The badge says it in words; the older key itself is for whoever hovers (or edits YAML).
        self.source_title = (_fill(ui["source_alias_title"], {"key": state.stored_key or ""})
                             if state.source == "alias" else ui["source_title"])
        shown_default = state.default
        if self.kind == "select":
            # The choice list shows labels, so the default line names the same label.
            labels = {o.get("value"): o.get("label") for o in state.options}
            shown_default = labels.get(state.default) or state.default
        elif self.kind == "bool" and state.default in ("true", "false"):
            # A switch shows on/off, not the stored word.
            shown_default = ui["on"] if state.default == "true" else ui["off"]
        self.default_text = _fill(ui["default"], {"default": shown_default or ui["blank"]})
        self.stored_text = _fill(ui["stored_in"], {"where": location_text(state.location, ui)})
        self.show_reset = bool(state.is_set) and not self.disabled
        self.option_help = [
            (o.get("label"), o.get("description"))
            for o in state.options
            if o.get("description") and not o.get("disabled")
        ]
        self.control = self._value_control()

    def _where_attrs(self, *, described: bool = True) -> dict[str, Any]:
        """The attributes that place a control on this page: its id, what describes it, whether
        it is refused, whether it can be changed."""
        attrs: dict[str, Any] = {"id": self.dom_id}
        if described:
            attrs["aria-describedby"] = self.describedby
        if self.error:
            attrs["aria-invalid"] = "true"
        if self.disabled:
            attrs["disabled"] = True
        return attrs

    def _value_control(self) -> dict[str, Any]:
        """The widget (``forms.widgets``) that edits this value, as plain data."""
        state, kind, name = self.state, self.kind, f"v:{self.key}"
        if kind == "bool":
            return {"widget": "switch", "name": name, "value": self.value, "attrs": self._where_attrs()}
        if kind == "select":
            options = [(o.get("value"), o.get("label"), bool(o.get("disabled")),
                        o.get("description", "") if o.get("disabled") else "") for o in state.options]
            return {"widget": "select", "name": name, "value": self.value, "options": options,
                    "blank_label": self.ui["blank_option"] if not state.default else "", "attrs": self._where_attrs()}
        multiline = kind == "text" and ("\n" in self.value or "\r" in self.value)
        if kind == "json" or multiline:
            attrs = {"id": self.dom_id, "rows": "4"}
            if kind == "json":
                attrs.update({"class": "mono", "spellcheck": "false"})
            attrs["placeholder"] = self.placeholder
            attrs.update(self._where_attrs())
            return {"widget": "textarea", "name": name, "value": self.value, "attrs": attrs}
        declared = getattr(state, "field", None)
        attrs = declared_attrs(kind, declared)
        if attrs.get("pattern") and getattr(declared, "pattern_hint", ""):
            # Without JavaScript the browser shows this beside its own "match the format" note.
            attrs["title"] = localise_message(TEXT_TEMPLATES["pattern_hint"] % {"hint": declared.pattern_hint})
        control: dict[str, Any] = {"widget": "text", "name": name, "value": self.value}
        words = []
        if kind == "text":
            words = list(getattr(declared, "suggestions", ()) or getattr(declared, "keywords", ()))
        if words:
            control["suggestions"] = words
            control["datalist_id"] = attrs["list"] = f"{self.dom_id}-suggestions"
        unit = getattr(declared, "unit", "") if declared is not None else ""
        if unit:
            control["unit"] = localise_message(unit)
        attrs.update({"placeholder": self.placeholder, "autocomplete": "off"})
        if kind != "number":
            attrs["spellcheck"] = "false"
        control["attrs"] = {**attrs, **self._where_attrs()}
        return control

    def _secret_control(self) -> dict[str, Any]:
        """Keep / replace / clear and the new value (``forms.widgets.SecretControl``)."""
        ui, is_set = self.ui, self.is_set
        actions = [("keep", ui["keep"] if is_set else ui["leave_unset"]),
                   ("replace", ui["replace"] if is_set else ui["set_value"])]
        if is_set:
            actions.append(("clear", ui["clear"]))
        attrs: dict[str, Any] = {"id": self.dom_id, "autocomplete": "new-password", "spellcheck": "false",
                                 "placeholder": ui["keep_placeholder"] if is_set else self.placeholder}
        if self.error:
            attrs.update({"aria-invalid": "true", "aria-describedby": self.error_id})
        if self.disabled:
            attrs["disabled"] = True
        texts = {"group_label": _fill(ui["group"], {"label": self.label}),
                 "new_label": _fill(ui["new"], {"label": self.label}),
                 "typing_replaces": ui["typing_replaces"]}
        return {"widget": "secret", "name": f"new:{self.key}", "value": self.secret_action, "key": self.key,
                "actions": actions, "texts": texts, "disabled": self.disabled, "attrs": attrs}

    @property
    def control_html(self) -> SafeString:
        """The control, rendered by its Django widget (only when the row's HTML is not reused)."""
        return render_control(self.control)


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


def build_rows(
    provider_state: Any,
    *,
    data: Mapping[str, Any] | None = None,
    sub: Submission | None = None,
    errors: Mapping[str, str] | None = None,
    details: Mapping[str, Any] | None = None,
    disabled: bool = False,
    validate_url: str = "",
    fresh_values: bool = False,
    secret_store_label: str = "",
) -> list[FieldRow]:
    """One row per field of ``provider_state`` (a ProviderState). With ``data`` the controls show
    what the user submitted; ``errors`` are the engine's messages (or the panel's own) and
    ``details`` the failed constraints, shown as what to type (``forms.field_errors``).

    ``fresh_values``: after a conflict, rows the user did not change show the files' new value, so
    a later submit cannot quietly revert someone else's change.
    """
    errors = errors or {}
    details = details or {}
    ui = ui_texts()
    fields = provider_state.fields
    by_key = {state.key: state for state in fields}
    visibility = prospective_visibility(provider_state, sub)
    rows: list[FieldRow] = []
    for index, state in enumerate(fields):
        value = state.value
        reset = False
        action = "keep"
        if data is not None and sub is not None:
            if state.kind == "secret":
                action = sub.secret_actions.get(state.key, "keep")
            elif state.key in sub.edited:
                changed = state.key in sub.values or state.key in sub.clear
                if not (fresh_values and not changed):
                    value = sub.edited[state.key]
                reset = state.key in sub.clear
        message = errors.get(state.key, "")
        if message:
            message = field_error(state, message, details.get(state.key))
        rows.append(
            FieldRow(
                state=state,
                index=index,
                value=value,
                original=state.value,
                visible=visibility.get(state.key, True),
                when_note=when_note(state, by_key),
                error=message,
                reset=reset,
                secret_action=action,
                disabled=disabled or bool(getattr(state, "read_only_reason", None)),
                validate_url=validate_url,
                ui=ui,
                secret_store_label=secret_store_label,
            )
        )
    return rows


@dataclass
class Section:
    title: str
    rows: list[FieldRow]
    is_compact: bool = False

    @property
    def hidden_rows(self) -> list[FieldRow]:
        return [row for row in self.rows if not row.visible]

    @property
    def has_error(self) -> bool:
        return any(row.error for row in self.rows)

    @property
    def slug(self) -> str:
        return "sec-" + (re.sub(r"[^a-z0-9]+", "-", self.title.lower()).strip("-") or "other")


def sections(rows: Iterable[FieldRow]) -> list[Section]:
    """Inline fields first (the compact panel), then each group in order of first appearance."""
    rows = list(rows)
    result: list[Section] = []
    compact = [row for row in rows if row.state.inline]
    if compact:
        result.append(Section(title=_("Essentials"), rows=compact, is_compact=True))
    groups: dict[str, list[FieldRow]] = {}
    for row in rows:
        if row.state.inline:
            continue
        groups.setdefault(row.state.group or "", []).append(row)
    for title, members in groups.items():
        result.append(Section(title=title or _("Other"), rows=members))
    return result


def hidden_summary(rows: Sequence[FieldRow]) -> str:
    """"N settings hidden (shown when Mode is Local Embedded). Their stored values are kept." """
    hidden = [row for row in rows if not row.visible]
    if not hidden:
        return ""
    by_key = {row.state.key: row.state for row in rows}
    conditions: list[str] = []
    for row in hidden:
        for text in when_conditions(row.state, by_key):
            if text not in conditions:
                conditions.append(text)
    return _fill(ngettext(
        "%(count)s setting hidden (shown when %(conditions)s). Its stored value is kept.",
        "%(count)s settings hidden (shown when %(conditions)s). Their stored values are kept.",
        len(hidden),
    ), {"count": len(hidden), "conditions": _(", ").join(conditions)})

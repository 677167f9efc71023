"""Texts that come from outside the templates, in the reader's language.

Three sources, in this order, for a provider's labels, descriptions, info texts, placeholders and
option texts: the provider's own ``translations.json`` (``provider_schemas.loading.translations``), then
the panel's gettext catalog (the bundled providers' texts are listed in
``admin_panel/i18n_strings.py``), then the original text. The threat scanner's plain-language
explanations are English constants in ``memory_core``; they are translated here through the same
catalog. The engines' messages are coded (docs/admin_panel.md, "Errors as codes") and worded here
from ``admin_panel.messages`` by their codes. Nothing in this module changes a key, a value or
anything that is saved.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from django.conf import settings
from django.utils import translation

from admin_panel.cjk_text import tidy_cjk_spaces
from admin_panel.messages import DECLARED_PARAMS, MESSAGES
from memory_core.coded import Message
from provider_schemas.config_schema import ProviderField, ProviderFieldOption
from provider_schemas.loading.translations import FieldText, LanguageTable, load_translations


def active_language() -> str:
    return translation.get_language() or settings.LANGUAGE_CODE


def translate(text: str | None) -> str:
    """``text`` through the catalog; an empty text stays empty (gettext("") is the catalog header)."""
    if not text:
        return text or ""
    return translation.gettext(text)


def provider_table(directory: Path | None, language: str | None = None) -> LanguageTable | None:
    """The provider's own table for the active (or given) language, if it ships a usable one."""
    loaded = load_translations(directory)
    if loaded.translations is None:
        return None
    return loaded.translations.for_language(language or active_language())


def _pick(own: str | None, original: str) -> str:
    return own if own else translate(original)


def localise_option(option: ProviderFieldOption, text: FieldText | None) -> ProviderFieldOption:
    own = text.options.get(option.value) if text is not None else None
    return dataclasses.replace(
        option,
        label=_pick(own.label if own else None, option.label),
        description=_pick(own.description if own else None, option.description),
    )


# Fields and language tables are the loaders' cached objects, the same while their files are
# unchanged; a page localises the same fields on every request. Keyed on identity (a field holding
# a ``when`` dict is unhashable); each entry keeps both objects alive, so an id is never reused
# while its entry lives.
_LOCALISED_FIELDS_MAX = 4096
_localised_fields: dict[tuple[int, int, str], tuple[ProviderField, LanguageTable | None, ProviderField]] = {}
_localised_fields_lock = threading.Lock()


def localise_field(field: ProviderField, table: LanguageTable | None) -> ProviderField:
    """A copy of ``field`` whose visible texts are in the reader's language (key, kind, values kept)."""
    key = (id(field), id(table), active_language())
    hit = _localised_fields.get(key)
    if hit is not None and hit[0] is field and hit[1] is table:
        return hit[2]
    localised = _localise_field(field, table)
    with _localised_fields_lock:
        if len(_localised_fields) >= _LOCALISED_FIELDS_MAX:
            _localised_fields.clear()
        _localised_fields[key] = (field, table, localised)
    return localised


def _localise_field(field: ProviderField, table: LanguageTable | None) -> ProviderField:
    text = table.fields.get(field.key) if table is not None else None
    group = field.group
    if group:
        group = (table.groups.get(group) if table is not None else None) or translate(group)
    return dataclasses.replace(
        field,
        label=_pick(text.label if text else None, field.label),
        description=_pick(text.description if text else None, field.description),
        info=_pick(text.info if text else None, field.info),
        placeholder=_pick(text.placeholder if text else None, field.placeholder),
        group=group,
        options=tuple(localise_option(option, text) for option in field.options),
    )


def _localise_option_dicts(
    options: Iterable[Mapping[str, Any]], original: ProviderField, localised: ProviderField
) -> list[dict[str, Any]]:
    by_value = {o.value: o for o in localised.options}
    declared = {o.value for o in original.options}
    out = []
    for option in options:
        copy = dict(option)
        match = by_value.get(copy.get("value")) if copy.get("value") in declared else None
        if match is not None:
            copy["label"], copy["description"] = match.label, match.description
        else:
            # A stored value the schema does not offer: its label is the value itself.
            copy["description"] = translate(copy.get("description", ""))
        out.append(copy)
    return out


def localise_field_state(state: Any, table: LanguageTable | None) -> Any:
    """A copy of a ``provider_schemas.reading.state.FieldState`` with its texts in the reader's language."""
    original: ProviderField = state.field
    localised = localise_field(original, table)
    # The state's placeholder may be computed per home (a honcho host name); only the declared
    # one is a text to translate.
    placeholder = localised.placeholder if state.placeholder == original.placeholder else state.placeholder
    changes: dict[str, Any] = {
        "field": localised,
        "placeholder": placeholder,
        "options": _localise_option_dicts(state.options, original, localised),
    }
    if getattr(state, "read_only_reason", None):
        changes["read_only_reason"] = translate(state.read_only_reason)
    return dataclasses.replace(state, **changes)


def localise_provider_state(state: Any) -> Any:
    """A copy of a ``provider_schemas.reading.state.ProviderState`` for display in the reader's language.

    Only texts change: keys, values, sources, visibility and the fingerprint are the same, so the
    copy can also be handed to the save path.
    """
    directory = getattr(state.entry, "directory", None)
    table = provider_table(directory)
    changes: dict[str, Any] = {"fields": [localise_field_state(s, table) for s in state.fields]}
    if state.schema is not None:
        changes["schema"] = dataclasses.replace(
            state.schema,
            label=_pick(table.label if table else None, state.schema.label),
            fields=tuple(s.field for s in changes["fields"]),
        )
    changes["entry"] = localise_entry(state.entry, table=table)
    labels = {s.key: s.label for s in changes["fields"]}
    changes["missing_secrets"] = localise_missing_secrets(state.missing_secrets, labels)
    return dataclasses.replace(state, **changes)


def localise_missing_secrets(
    missing: Iterable[Mapping[str, Any]], labels: Mapping[str, str] | None = None
) -> list[dict[str, Any]]:
    """``missing_secrets`` rows (docs/api.md shape) with each ``label`` in the reader's language."""
    labels = labels or {}
    out = []
    for row in missing:
        copy = dict(row)
        copy["label"] = labels.get(copy.get("key", "")) or translate(copy.get("label", ""))
        out.append(copy)
    return out


def not_ready_message(exc: Any) -> str:
    """``provider_schemas.NotReady`` (activation refused) in the reader's language; in English it
    reads exactly as the engine's own message."""
    statuses = {
        "needs_config": translation.gettext("needs config"),
        "schema_error": translation.gettext("schema error"),
    }
    status = statuses.get(exc.status, str(exc.status).replace("_", " "))
    return translation.gettext(
        "Memory provider '%(name)s' is not ready (%(status)s). Configure it in the dashboard first."
    ) % {"name": exc.name, "status": status}


def localise_entry(entry: Any, *, table: LanguageTable | None = None) -> Any:
    """A copy of a ``provider_schemas.loading.discovery.ProviderEntry`` with label and description translated."""
    if table is None:
        table = provider_table(getattr(entry, "directory", None))
    label = _pick(table.label if table else None, entry.label)
    description = _pick(table.description if table else None, entry.description)
    return dataclasses.replace(entry, label=label, description=description)


def localise_provider_row(row: Mapping[str, Any], *, directory: Path | None) -> dict[str, Any]:
    """A providers-list row (docs/api.md §Provider list shape) with ``label``, ``description`` and the labels of
    ``missing_secrets`` for display."""
    table = provider_table(directory)
    out = dict(row)
    out["label"] = _pick(table.label if table else None, row.get("label") or "")
    out["description"] = _pick(table.description if table else None, row.get("description") or "")
    if row.get("missing_secrets"):
        own = {key: text.label for key, text in table.fields.items() if text.label} if table else {}
        out["missing_secrets"] = localise_missing_secrets(row["missing_secrets"], own)
    return out


def provider_directory(*, home: Path, name: str, origin: str | None) -> Path | None:
    """Where a provider's files (and its translations.json) live, from its listing row."""
    from provider_schemas.loading.discovery import BUNDLED_DIR

    if origin == "bundled":
        return BUNDLED_DIR / name
    if origin == "user":
        return Path(home) / "plugins" / name
    return None


def localise_overview(overview: Any, *, home: Path) -> Any:
    """A copy of ``admin_panel.selectors.providers.ProvidersOverview`` for display."""
    cards = []
    active_label = overview.active_label
    for card in overview.cards:
        row = card.row
        directory = provider_directory(home=home, name=row.get("name", ""), origin=row.get("origin"))
        localised = localise_provider_row(row, directory=directory)
        if row.get("name") == overview.active and row.get("label") == overview.active_label:
            active_label = localised["label"]
        cards.append(dataclasses.replace(card, row=localised))
    return dataclasses.replace(overview, cards=cards, active_label=active_label)


# --- the threat scanner's findings ---------------------------------------------------------------


def finding_explanation(finding: Any) -> str:
    """The plain-language explanation of a ``memory_core.threats.ThreatFinding``, translated."""
    return translate(finding.explanation)


def finding_category(finding: Any) -> str:
    return translate(finding.category_label)


# --- the engines' messages ------------------------------------------------------------------------


def localise_message(text: str | None) -> str:
    """An engine's message in the reader's language.

    A coded message (``memory_core.coded.Message``) is worded from its code's text in
    ``admin_panel.messages`` with its parameters inserted; any other text is looked up whole in the
    catalogue (a fixed text such as a JSON decoder's reason) and otherwise shown as it is. The
    English is never read back: a code the table lacks is shown as the engine wrote it.
    """
    if not text:
        return text or ""
    if isinstance(text, Message):
        return _coded_message(text)
    return translate(str(text))


def _coded_message(message: Message) -> str:
    template = MESSAGES.get(message.code)
    if template is None:
        return str(message)
    params = {name: _parameter(name, value) for name, value in message.params.items()}
    return translation.gettext(template) % params if params else translation.gettext(template)


def _parameter(name: str, value: Any) -> Any:
    if isinstance(value, Message):
        return _coded_message(value)
    if name in DECLARED_PARAMS and isinstance(value, str):
        return translate(value)
    return value


def keyring_check_message(check: Any, *, with_detail: bool = True) -> str:
    """A failed ``provider_schemas.secret_stores.probe.KeyringCheck`` in the reader's language:
    which backend, what is wrong, and what to do on this platform. ``with_detail=False`` leaves
    out the backend's own (English) words, for a page that shows them apart as code."""
    from provider_schemas.secret_stores import probe

    gettext = translation.gettext
    problems = {
        probe.NO_BACKEND: gettext("no keyring backend is installed"),
        probe.FAIL_BACKEND: gettext("no keyring service was found on this machine"),
        probe.NULL_BACKEND: gettext("the keyring set up on this machine is one that stores nothing"),
        probe.NO_SERVICE: gettext("the backend cannot reach its keyring service or open its collection"),
        probe.LOCKED: gettext("the keyring is locked"),
        probe.ROUND_TRIP: gettext("a test entry did not read back as written"),
        probe.ERROR: gettext("the keyring reported an error"),
    }
    advice = {
        probe.LINUX: gettext("Run a Secret Service such as gnome-keyring or KWallet and unlock it in this session."),
        probe.HEADLESS: gettext("This machine has no desktop session: keep the .env file store, or start a Secret "
                                "Service as the README's “Where secrets live” explains."),
        probe.MACOS: gettext("Use the macOS keychain of the account that runs the panel, unlocked."),
        probe.WINDOWS: gettext("Use the Windows Credential Manager of the account that runs the panel."),
    }
    # In sentences only: the backend's class name and its own (English) words are for the log and
    # the `secrets` command (KeyringCheck.english), or shown apart as code (with_detail=False pages).
    text = gettext("The system keyring cannot be used: %(problem)s.") % {
        "problem": problems.get(check.problem, problems[probe.ERROR])}
    return tidy_cjk_spaces(f"{text} {advice.get(check.platform, advice[probe.LINUX])}")


def secret_store_error_message(exc: Any) -> str:
    """``SecretStoreUnavailable`` for a page: the keyring diagnosis when known, else its reason."""
    if getattr(exc, "check", None) is not None:
        return keyring_check_message(exc.check)
    return translation.gettext("The secret store is unavailable: %(reason)s") % {"reason": exc.reason}

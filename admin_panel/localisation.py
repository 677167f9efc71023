"""Texts that come from outside the templates, in the reader's language.

Three sources, in this order, for a provider's labels, descriptions, info texts, placeholders and
option texts: the provider's own ``translations.json`` (``provider_schemas.loading.translations``), then
the panel's gettext catalog (the bundled providers' texts are listed in
``admin_panel/i18n_strings.py``), then the original text. The threat scanner's plain-language
explanations are English constants in ``memory_core``; they are translated here through the same
catalog. Nothing in this module changes a key, a value or anything that is saved.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext_noop

from admin_panel.messages import MESSAGES
from provider_schemas.config_schema import ProviderField, ProviderFieldOption
from provider_schemas.loading.translations import FieldText, LanguageTable, load_translations
from provider_schemas.messages import Message


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


# --- provider_schemas' diagnostics for schema authors (the schema preview) -----------------------

# Every message the declaration checks (provider_schemas.loading.checks), the linter (provider_schemas.loading.lint),
# the static evaluator (provider_schemas.loading.static_eval) and the loader (provider_schemas.loading.loader) write,
# plus the most common messages of Python itself that they pass on (a syntax error, a call of
# ProviderField with a wrong argument). Values are code: keys as repr() writes them, type names,
# variable names, line numbers; they are inserted unchanged. Order matters where one template is
# a more general form of another: the specific one comes first.
SCHEMA_DIAGNOSTIC_TEMPLATES = (
    # lint advice
    gettext_noop("field %(key)s: empty label"),
    gettext_noop("field %(key)s: a secret without env_key cannot be stored by the panel"),
    gettext_noop(
        "field %(key)s: the key looks like a credential but the kind is %(kind)s; "
        "use kind 'secret' so the value is never shown"
    ),
    gettext_noop("field %(key)s: %(attr)s expects %(control)s to be %(value)s, a value that field cannot take"),
    gettext_noop("field %(key)s: %(attr)s expects number field %(control)s to be %(value)s"),
    gettext_noop("field %(key)s: env var %(variable)s is also the env_key of field %(other)s"),
    gettext_noop("field %(key)s: env var %(variable)s is also read by field %(other)s"),
    gettext_noop("field %(key)s: env var %(variable)s is the env_key of field %(other)s"),
    # declaration checks of one field
    gettext_noop("field %(key)s: label must be a string"),
    gettext_noop("field %(key)s: unknown kind %(kind)s (expected one of %(choices)s)"),
    gettext_noop("field %(key)s: scope must be 'host' or 'root', got %(value)s"),
    gettext_noop("field %(key)s: field storage must be '' or 'env_file', got %(value)s"),
    gettext_noop("field %(key)s: default must be a string, got %(type)s"),
    gettext_noop("field %(key)s: options must be a tuple of ProviderFieldOption"),
    gettext_noop("field %(key)s: %(attr)s must be a tuple of strings"),
    gettext_noop("field %(key)s: env_key must be a string or None"),
    gettext_noop("field %(key)s: a select needs at least one option"),
    gettext_noop("field %(key)s: duplicate option value %(value)s"),
    gettext_noop("field %(key)s: default %(value)s is not one of the options"),
    gettext_noop("field %(key)s: default %(value)s must be '', 'true' or 'false'"),
    gettext_noop("field %(key)s: default %(value)s is not a finite number"),
    gettext_noop("field %(key)s: default %(value)s is not a JSON object or array"),
    gettext_noop("field %(key)s: a field stored in .env needs env_key"),
    gettext_noop("field %(key)s: env_key %(variable)s is a variable the panel must never write"),
    gettext_noop("field %(key)s: %(attr)s %(name)s is not a valid variable name"),
    gettext_noop("field %(key)s: %(attr)s must map field keys to strings"),
    gettext_noop("field %(key)s: %(attr)s cannot refer to the field itself"),
    gettext_noop("field %(key)s: required_unless refers to unknown field %(other)s"),
    gettext_noop("field %(key)s: %(attr)s refers to %(other)s, which is not a field declared earlier"),
    gettext_noop("field %(key)s: duplicate key"),
    # declaration checks of the schema
    gettext_noop("CONFIG_SCHEMA must be a ProviderConfigSchema, got %(type)s"),
    gettext_noop("name must be a non-empty string"),
    gettext_noop("name %(name)s does not match the provider directory %(directory)s"),
    gettext_noop("label must be a string"),
    gettext_noop("unknown storage %(storage)s (expected one of %(choices)s)"),
    gettext_noop("json_file storage needs a relative storage_path without '..', got %(path)s"),
    gettext_noop("config_yaml storage needs a dotted storage_path, got %(path)s"),
    gettext_noop("storage_fallbacks must be a tuple of strings"),
    gettext_noop("fields must be a tuple of ProviderField"),
    gettext_noop("fields[%(index)s] must be a ProviderField, got %(type)s"),
    gettext_noop("fields[%(index)s]: key must be a non-empty string"),
    # the static evaluator (pasted text, "check as pure data")
    gettext_noop(
        "decorators are not allowed: a schema file may only import from the declaration module, assign names, "
        "and call ProviderField, ProviderFieldOption and ProviderConfigSchema"
    ),
    gettext_noop(
        "a bare expression has no effect here: a schema file may only import from the declaration module, "
        "assign names, and call ProviderField, ProviderFieldOption and ProviderConfigSchema"
    ),
    gettext_noop(
        "calling %(callee)s is not allowed: a schema file may only import from the declaration module, "
        "assign names, and call ProviderField, ProviderFieldOption and ProviderConfigSchema"
    ),
    gettext_noop(
        "%(construct)s are not allowed: a schema file may only import from the declaration module, assign "
        "names, and call ProviderField, ProviderFieldOption and ProviderConfigSchema"
    ),
    gettext_noop("sets are not allowed: use a tuple"),
    gettext_noop("evaluation took longer than %(seconds)s s"),
    gettext_noop("an annotation without a value binds nothing"),
    gettext_noop("only a plain name can be annotated"),
    gettext_noop("relative imports are not allowed: import the declaration module by name"),
    gettext_noop("only 'from __future__ import annotations' is allowed"),
    gettext_noop("'import *' is not allowed: import the names you use"),
    gettext_noop("the declaration module has no public name %(name)s"),
    gettext_noop("%(module)s has no public name %(name)s"),
    gettext_noop("only config_schema may be imported from %(module)s"),
    gettext_noop(
        "importing from %(module)s is not allowed: only plugins.memory.config_schema or "
        "provider_schemas.config_schema"
    ),
    gettext_noop(
        "importing %(module)s is not allowed: only plugins.memory.config_schema or provider_schemas.config_schema"
    ),
    gettext_noop("cannot unpack a %(type)s into several names"),
    gettext_noop("%(names)s names but %(values)s values to unpack"),
    gettext_noop("only names can be assigned (no attributes, no subscripts)"),
    gettext_noop("more than %(count)s names"),
    gettext_noop("dunder names such as %(name)s are not allowed"),
    gettext_noop("a module cannot be used as a value"),
    gettext_noop("expression nested more than %(depth)s levels deep"),
    gettext_noop("annotation nested more than %(depth)s levels deep"),
    gettext_noop("annotations may only be names, generics or strings"),
    gettext_noop("string longer than %(count)s characters"),
    gettext_noop("numbers must be finite"),
    gettext_noop("bytes literals are not allowed: use a string"),
    gettext_noop("'...' is not allowed as a value"),
    gettext_noop("%(type)s literals are not allowed"),
    gettext_noop("integer too large (at most %(digits)s digits)"),
    gettext_noop("more than %(count)s items in one container"),
    gettext_noop("the file builds more than %(count)s container items in total"),
    gettext_noop("the file builds more than %(count)s characters in total"),
    gettext_noop(
        "name %(name)s is not defined: only names imported from the declaration module or assigned earlier in "
        "the file can be used"
    ),
    gettext_noop("%(package)s has no attribute %(name)s a schema may use"),
    gettext_noop("attribute access is only allowed on the declaration module (such as cs.KIND_TEXT)"),
    gettext_noop("'**' unpacking is not allowed in a dict"),
    gettext_noop("a dict key must be a string or a number, not %(type)s"),
    gettext_noop("the operator %(operator)s is not allowed (only '+' joins strings or tuples)"),
    gettext_noop("the operator %(operator)s is not allowed"),
    gettext_noop("unary minus and plus only apply to numbers"),
    gettext_noop("'+' only joins two strings, two tuples or two lists, not %(left)s and %(right)s"),
    gettext_noop("'*args' in a call is not allowed: write the arguments out"),
    gettext_noop("'**kwargs' in a call is not allowed: write the arguments out"),
    gettext_noop("keyword argument %(name)s repeated"),
    gettext_noop("schema source must be text, got %(type)s"),
    gettext_noop("schema source is larger than %(kb)s KB"),
    gettext_noop("invalid syntax: %(message)s"),
    gettext_noop("cannot parse: %(message)s"),
    gettext_noop("source is nested too deeply"),
    gettext_noop("schema source has more than %(count)s syntax nodes"),
    gettext_noop("CONFIG_SCHEMA is not defined"),
    # the rejected constructs the evaluator names (the %(construct)s above)
    gettext_noop("'%(name)s' nodes"),
    gettext_noop("function definitions ('def')"),
    gettext_noop("function definitions ('async def')"),
    gettext_noop("class definitions"),
    gettext_noop("lambdas"),
    gettext_noop("comprehensions"),
    gettext_noop("generator expressions"),
    gettext_noop("f-strings"),
    gettext_noop("assignment expressions (':=')"),
    gettext_noop("subscripts (x[...])"),
    gettext_noop("slices"),
    gettext_noop("conditional expressions"),
    gettext_noop("'and'/'or' expressions"),
    gettext_noop("comparisons"),
    gettext_noop("'*' unpacking"),
    gettext_noop("'if' statements"),
    gettext_noop("loops"),
    gettext_noop("'with' statements"),
    gettext_noop("'try' statements"),
    gettext_noop("augmented assignments ('+=')"),
    gettext_noop("'match' statements"),
    # the loader
    gettext_noop("the file is larger than %(kb)s KB; a schema never needs that much"),
    gettext_noop("loading took longer than %(seconds)s seconds (an endless loop?)"),
    # str() of a SyntaxError the loader reports: Python's message, then where
    gettext_noop("%(message)s (%(file)s, line %(line)s)"),
    # Python's own messages, passed on by the loader and the evaluator
    gettext_noop("invalid syntax"),
    gettext_noop("invalid syntax. Perhaps you forgot a comma?"),
    gettext_noop("%(bracket)s was never closed"),
    gettext_noop("unmatched %(bracket)s"),
    gettext_noop("closing parenthesis %(closing)s does not match opening parenthesis %(opening)s"),
    gettext_noop("unterminated string literal (detected at line %(line)s)"),
    gettext_noop("unterminated triple-quoted string literal (detected at line %(line)s)"),
    gettext_noop("unexpected indent"),
    gettext_noop("unindent does not match any outer indentation level"),
    gettext_noop("expected ':'"),
    gettext_noop("source code string cannot contain null bytes"),
    gettext_noop("%(callable)s got an unexpected keyword argument %(name)s"),
    gettext_noop("%(callable)s got multiple values for argument %(name)s"),
    gettext_noop("%(callable)s missing %(count)s required positional argument: %(names)s"),
    gettext_noop("%(callable)s missing %(count)s required positional arguments: %(names)s"),
    gettext_noop("%(callable)s takes from %(min)s to %(max)s positional arguments but %(count)s were given"),
    gettext_noop("name %(name)s is not defined"),
    gettext_noop("No module named %(module)s"),
    gettext_noop("cannot import name %(name)s from %(module)s (%(path)s)"),
    gettext_noop("No such file or directory"),
    gettext_noop("Permission denied"),
)

# --- messages written by the engines --------------------------------------------------------------

# provider_schemas writes its messages in English with values inside (a key, a file name). Each
# template below is the engine's wording with %(name)s for the variable parts: an engine message
# that matches one is shown through the catalog with the same values; any other text is shown as
# it is. Most specific first.
# provider_schemas.constraints: messages for people when a declared constraint fails (issue 14).
# Bounded number messages come before the bare ones, and the pattern-hint one comes last: a bare
# template would otherwise take the range or the whole message into its placeholder.
CONSTRAINT_TEMPLATES = (
    gettext_noop('Enter a whole number of %(unit)s from %(minimum)s to %(maximum)s.'),
    gettext_noop('Enter a whole number of %(unit)s, at least %(minimum)s.'),
    gettext_noop('Enter a whole number of %(unit)s, at most %(maximum)s.'),
    gettext_noop('Enter a whole number from %(minimum)s to %(maximum)s.'),
    gettext_noop('Enter a whole number, at least %(minimum)s.'),
    gettext_noop('Enter a whole number, at most %(maximum)s.'),
    gettext_noop('Enter a number of %(unit)s from %(minimum)s to %(maximum)s.'),
    gettext_noop('Enter a number of %(unit)s, at least %(minimum)s.'),
    gettext_noop('Enter a number of %(unit)s, at most %(maximum)s.'),
    gettext_noop('Enter a number from %(minimum)s to %(maximum)s.'),
    gettext_noop('Enter a number, at least %(minimum)s.'),
    gettext_noop('Enter a number, at most %(maximum)s.'),
    gettext_noop('Enter a whole number of %(unit)s.'),
    gettext_noop('Enter a whole number.'),
    gettext_noop('Enter a number of %(unit)s.'),
    gettext_noop('Enter a number.'),
    gettext_noop('Enter a web address that starts with http:// or https://, for example %(example)s.'),
    gettext_noop('Enter a host name or IP address without http:// or a port, for example %(example)s.'),
    gettext_noop('Enter a port number from 1 to 65535.'),
    gettext_noop('Enter a file path on one line.'),
    gettext_noop('Enter at most %(max_length)s characters (this has %(length)s).'),
    gettext_noop('Enter one of: %(keywords)s, or JSON such as %(example)s (%(shape_problem)s).'),
    gettext_noop('Enter one of: %(keywords)s, or JSON such as %(example)s.'),
    gettext_noop('Enter one of: %(keywords)s.'),
    gettext_noop('Enter a value that matches %(pattern)s.'),
    gettext_noop('Enter JSON such as %(example)s (%(shape_problem)s).'),
    gettext_noop('%(json_where)s must be one of %(values)s'),
    gettext_noop('%(json_where)s must be either %(json_type)s or %(json_other_type)s'),
    gettext_noop('%(json_where)s must be %(json_type)s'),
    gettext_noop('%(json_where)s needs at least %(count)s item(s)'),
    gettext_noop('%(json_where)s needs the key %(key)s'),
    gettext_noop('%(json_where)s has the key %(key)s, which is not used'),
    gettext_noop('%(json_where)s is not in the expected form'),
    gettext_noop('Enter a value like this: %(hint)s.'),
)
# Words the constraint messages put into their placeholders (units, JSON types, bundled hints).
CONSTRAINT_WORDS = (
    gettext_noop('seconds'),
    gettext_noop('tokens'),
    gettext_noop('characters'),
    gettext_noop('turns'),
    gettext_noop('passes'),
    gettext_noop('dimensions'),
    gettext_noop('days'),
    gettext_noop('results'),
    gettext_noop('an object'),
    gettext_noop('a list'),
    gettext_noop('text'),
    gettext_noop('a number'),
    gettext_noop('a whole number'),
    gettext_noop('true or false'),
    gettext_noop('null'),
    gettext_noop('the value'),
    gettext_noop('async, turn, session, or a whole number of turns such as 3'),
    gettext_noop(
        "a tag of letters, digits and single underscores, with no underscore at either end; {identity} may be used"
    ),
)

MESSAGE_TEMPLATES = (
    # (the engines' coded messages are in admin_panel.messages, looked up by code)
    # files reached through a link out of the agent's home (docs/safe_paths.md)
    gettext_noop(
        "Cannot save: %(file)s is a link to a file outside the agent's home; the panel does not write through "
        "links. Nothing was changed."
    ),
    gettext_noop(
        "%(name)s is a link to a file outside the agent's home; the panel does not read or write through links."
    ),
    gettext_noop(
        "Refusing to write %(file)s: %(name)s is a link to a file outside the agent's home; the panel does not "
        "write through links. Nothing was changed."
    ),
    gettext_noop(
        "%(name)s is a link to a file outside the agent's home; the panel does not write through links. "
        "Nothing was changed."
    ),
    gettext_noop("config.yaml is a link to a file outside the agent's home and was not read"),
    gettext_noop(
        "config.yaml is a link to a file outside the agent's home; the panel does not write through links. "
        "Nothing was changed."
    ),
    # a store file that could not be written (memory_core.files.write_failure_reason)
    gettext_noop("%(folder)s is read-only (permission denied): nothing was changed."),
    gettext_noop("%(folder)s is on a read-only file system: nothing was changed."),
    gettext_noop("The disk is full: nothing was changed."),
    gettext_noop("%(file)s could not be written (%(problem)s): nothing was changed."),
    # notices of provider_schemas.reading.state and traps
    gettext_noop(
        "Stored as the text %(value)s, not a boolean; the plugin may read any non-empty text as true. "
        "Saving this field writes a real boolean."
    ),
    gettext_noop(".env %(variable)s overrides the stored value %(value)s."),
    gettext_noop("Read from the root of %(file)s (shared by every host); saving writes the host block."),
    gettext_noop("%(where)s holds an OAuth access token; it takes precedence and the panel never changes it."),
    gettext_noop(
        "%(where)s holds this secret and is read before the secret stores; saving a new value removes it from there."
    ),
    gettext_noop("%(variable)s is set in both .env and the keyring; the agent uses the .env value."),
    gettext_noop("Set through %(fallback)s, not %(variable)s."),
    gettext_noop(".env starts with a byte-order mark, which corrupts its first variable for the agent."),
    gettext_noop("%(file)s starts with a byte-order mark; saving removes it."),
    gettext_noop("The keyring cannot be read (%(problem)s); secrets stored there show as not set."),
    gettext_noop(".env is not valid UTF-8 text (%(problem)s); saves that change it are refused."),
    gettext_noop("%(entry)s is skipped by the plugin: %(problem)s."),
    gettext_noop(
        "Saving creates %(file)s; from then on %(legacy)s is ignored by the plugin. "
        "Its settings are copied into the new file."
    ),
    gettext_noop(
        "Saving creates %(file)s; the current values of %(variables)s from .env are copied into it, "
        "and later changes to those variables are ignored."
    ),
    gettext_noop("%(file)s key %(key)s is ignored by the plugin."),
    gettext_noop("%(file)s %(where)s is ignored by the plugin; it reads %(variable)s from .env."),
    gettext_noop("config.yaml memory.%(provider)s.%(key)s is ignored by the plugin; it reads .env only."),
    gettext_noop(
        "%(file)s has legacy banks.* settings; the plugin still reads banks.hermes.bankId and "
        "banks.hermes.budget when bank_id / recall_budget are not set. They cannot be edited here."
    ),
    gettext_noop("Settings are stored in %(file)s, shared by every profile and by other apps that use Honcho."),
    gettext_noop("OpenViking stays unavailable until Endpoint is set or the CLI profile is enabled."),
    gettext_noop("The CLI profile file %(file)s does not parse (%(problem)s); the agent fails to start it."),
    gettext_noop("%(file)s sets enabled: false in the %(where)s; Honcho is off."),
    gettext_noop("Settings are stored in %(file)s, the default profile's file."),
    gettext_noop("The CLI profile file %(file)s does not exist."),
    # memory_core's refusals (the texts the agent's memory tool returns), shown by the memory pages
    gettext_noop(
        "Memory at %(current)s/%(limit)s chars. Adding this entry (%(length)s chars) would exceed the limit. "
        "Consolidate now: use 'replace' to merge overlapping entries into shorter ones or 'remove' stale or "
        "less important entries (see current_entries below), then retry this add — all in this turn."
    ),
    gettext_noop(
        "Replacement would put memory at %(total)s/%(limit)s chars. Shorten the new content, or 'remove' other "
        "stale or less important entries to make room (see current_entries below), then retry — all in this turn."
    ),
    gettext_noop("Blocked: content contains invisible unicode character %(code)s (possible injection)."),
    gettext_noop(
        "Blocked: content matches threat pattern '%(pattern)s'. Content is injected into the system prompt "
        "and must not contain injection or exfiltration payloads."
    ),
    gettext_noop("Content cannot be empty."),
    gettext_noop("Content cannot contain NUL characters (U+0000). Remove them and retry."),
    gettext_noop("An entry cannot contain a line with only § on it: the agent uses that line to separate entries."),
    gettext_noop(
        "An entry cannot end with a line with only § on it: the agent would read that line as part of the "
        "separator before the next entry."
    ),
    gettext_noop(
        "Nothing was written: an entry already in the file ends with a line with only § on it, so the "
        "entry after it would not read back unchanged. Edit that entry first."
    ),
    gettext_noop("new_content cannot be empty. Use 'remove' to delete entries."),
    gettext_noop("Entry already exists (no duplicate added)."),
    gettext_noop(
        "Refusing to write %(file)s: the file exists but could not be read (%(reason)s). It was left "
        "unchanged; fix its permissions or encoding, or move it aside, then retry."
    ),
    gettext_noop("Refusing to write %(file)s: cannot open lock file %(file)s.lock (%(reason)s)."),
    gettext_noop(
        "Refusing to write %(file)s: file on disk has content that wouldn't round-trip through the memory "
        "tool (likely added by the patch tool, a shell append, a manual edit, or a concurrent session). A "
        "snapshot was saved to %(backup)s. Resolve the drift first — either rewrite the file as a clean "
        "§-delimited list of entries, or move the extra content out — then retry. This guard exists to "
        "prevent silent data loss (issue #26045)."
    ),
    gettext_noop(
        "No entry matched '%(text)s'. Check current_entries below and retry with the exact text of the "
        "entry you want to %(verb)s."
    ),
    gettext_noop("Multiple entries matched '%(text)s'. Be more specific."),
    gettext_noop(
        "Content is not valid Unicode text (it contains a lone surrogate code point). Remove it and retry."
    ),
    gettext_noop("Invalid target '%(target)s'. Use 'memory' or 'user'."),
    gettext_noop("No entries selected."),
    gettext_noop("old_content cannot be empty."),
    gettext_noop(
        "Nothing was replaced: the entry is no longer in the file exactly as it was read (changed or "
        "removed meanwhile). Reload and retry."
    ),
    gettext_noop("Nothing was rewritten: %(file)s changed since it was read. Reload it and check again."),
    gettext_noop("Nothing was rewritten: %(file)s has no drift to resolve."),
    gettext_noop(
        "Nothing was rewritten: one entry of %(file)s is %(longest)s characters long, more than the limit of "
        "%(limit)s, and rewriting cannot shorten it. Move text out of it by hand (with a § separator between "
        "entries), then retry."
    ),
    gettext_noop("Nothing was rewritten: %(file)s could not be backed up first (%(backup)s)."),
    gettext_noop(
        "Nothing was rewritten: an entry of %(file)s ends with a line with only § on it, so rewriting would join "
        "it to the entry after it. Move or remove that line by hand, then retry."
    ),
    gettext_noop("Rewrote %(file)s as its %(count)s entry; the previous text was saved to %(backup)s."),
    gettext_noop("Rewrote %(file)s as its %(count)s entries; the previous text was saved to %(backup)s."),
    gettext_noop(
        "Nothing was deleted: %(count)s selected entry is no longer in the file (changed or removed "
        "meanwhile). Reload and select again."
    ),
    gettext_noop(
        "Nothing was deleted: %(count)s selected entries are no longer in the file (changed or removed "
        "meanwhile). Reload and select again."
    ),
    gettext_noop("Deleted %(count)s entry."),
    gettext_noop("Deleted %(count)s entries."),
    gettext_noop("The form is out of date; reload it."),
    gettext_noop("The storage file"),
    # json.JSONDecodeError.msg, shown with the line and column of a JSON field's error
    gettext_noop("Expecting value"),
    gettext_noop("Expecting property name enclosed in double quotes"),
    gettext_noop("Expecting ',' delimiter"),
    gettext_noop("Expecting ':' delimiter"),
    gettext_noop("Extra data"),
    gettext_noop("Unterminated string starting at"),
    gettext_noop("Invalid control character at"),
    gettext_noop("Invalid \\escape"),
    gettext_noop("Invalid \\uXXXX escape"),
    # memory_core.config: why config.yaml's memory settings could not be read (the memory page)
    gettext_noop("config.yaml is not valid YAML (line %(line)s)"),
    gettext_noop("config.yaml is not valid YAML"),
    gettext_noop("config.yaml is larger than %(size)s KB and was not read"),
    gettext_noop("config.yaml could not be read: %(error)s"),
    gettext_noop("config.yaml is nested too deeply to read"),
    gettext_noop("config.yaml has a number too long to read"),
    *SCHEMA_DIAGNOSTIC_TEMPLATES,
    *CONSTRAINT_TEMPLATES,
)

_PLACEHOLDER = re.compile(r"%\((\w+)\)s")


def _template_pattern(template: str) -> re.Pattern[str]:
    parts = []
    position = 0
    seen: set[str] = set()
    for match in _PLACEHOLDER.finditer(template):
        name = match.group(1)
        parts.append(re.escape(template[position : match.start()]))
        # A value named twice must be the same text both times.
        parts.append(f"(?P={name})" if name in seen else f"(?P<{name}>.+?)")
        seen.add(name)
        position = match.end()
    parts.append(re.escape(template[position:]))
    return re.compile("".join(parts), re.S)


@functools.cache
def _compiled_templates() -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((t, _template_pattern(t)) for t in MESSAGE_TEMPLATES if "%(" in t)


# Placeholders whose value is itself an engine (or Python) message, localised in turn: the reason
# inside "invalid syntax: %(message)s", the construct named by the static evaluator.
_NESTED_PLACEHOLDERS = frozenset(
    {"message", "construct", "unit", "hint", "shape_problem", "json_type", "json_where", "json_other_type"}
)
# "SyntaxError: invalid syntax": a Python exception type name (kept as it is) before a message.
_TYPED_MESSAGE = re.compile(r"([A-Z][A-Za-z0-9_]*(?:Error|Exception|Exit|Interrupt|Warning)): (.+)", re.S)


def localise_message(text: str | None) -> str:
    """An engine's English message in the reader's language (unchanged when none fits)."""
    if not text:
        return text or ""
    if isinstance(text, Message):
        return _coded_message(text)
    text = str(text)
    translated = translation.gettext(text)
    if translated != text:
        return translated
    # Before the templates: one starting with a placeholder would take the type name into its value.
    typed = _TYPED_MESSAGE.fullmatch(text)
    if typed is not None:
        return f"{typed.group(1)}: {localise_message(typed.group(2))}"
    for template, pattern in _compiled_templates():
        match = pattern.fullmatch(text)
        if match is not None:
            values = match.groupdict()
            for name in _NESTED_PLACEHOLDERS & values.keys():
                values[name] = localise_message(values[name])
            return translation.gettext(template) % values
    return text


def _coded_message(message: Message) -> str:
    """A coded engine message from the table in ``admin_panel.messages``; parameters that are
    messages themselves are put into the reader's language too. No text is parsed."""
    template = MESSAGES.get(message.code)
    if template is None:
        return str(message)
    params = {name: localise_message(value) if isinstance(value, Message) else value
              for name, value in message.params.items()}
    return translation.gettext(template) % params


def keyring_check_message(check: Any, *, with_detail: bool = True) -> str:
    """A failed ``provider_schemas.secret_stores.probe.KeyringCheck`` in the reader's language:
    which backend, what is wrong, and what to do on this platform. ``with_detail=False`` leaves
    out the backend's own (English) words, for a page that shows them apart as code."""
    from provider_schemas.secret_stores import probe

    gettext = translation.gettext
    problems = {
        probe.NO_BACKEND: gettext("no keyring backend is installed"),
        probe.FAIL_BACKEND: gettext(
            "the keyring package found no usable backend and fell back to keyring.backends.fail"),
        probe.NULL_BACKEND: gettext("the keyring backend keyring.backends.null stores nothing"),
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
    text = gettext("The OS keyring cannot be used (backend %(backend)s): %(problem)s.") % {
        "backend": check.backend, "problem": problems.get(check.problem, problems[probe.ERROR])}
    if check.detail and with_detail:
        text += " " + gettext("It answered: %(detail)s.") % {"detail": check.detail.rstrip(".!")}
    return f"{text} {advice.get(check.platform, advice[probe.LINUX])}"


def secret_store_error_message(exc: Any) -> str:
    """``SecretStoreUnavailable`` for a page: the keyring diagnosis when known, else its reason."""
    if getattr(exc, "check", None) is not None:
        return keyring_check_message(exc.check)
    return translation.gettext("The secret store is unavailable: %(reason)s") % {"reason": exc.reason}

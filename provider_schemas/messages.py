"""Messages as codes with parameters.

An engine message is a ``Message``: a ``str`` holding the English text the API answers with
(0.19.0's wording, unchanged), that also carries its ``code`` and ``params``. The web layer puts it
into the reader's language by looking the code up in its own table (``admin_panel.messages``) and
inserting the parameters; it never reads the English text back. Nothing here imports Django.
"""

from __future__ import annotations

from typing import Any

from memory_core.coded import Message, Template, render
from memory_core.messages import TEXTS as MEMORY_CORE_TEXTS

__all__ = ["ENGLISH", "Message", "Template", "message", "template"]


# The English of every code the engines use: the words of 0.19.0 (docs/admin_panel.md, "Errors as
# codes"). ``message()`` renders them; the web layer's table holds the same texts as gettext msgids.
ENGLISH: dict[str, str] = {
    "value_too_long": "'%(key)s' is too long (more than %(limit)s characters)",
    "line_breaks": "'%(key)s' must not contain line breaks or NUL characters",
    "invisible_characters": "'%(key)s' must not contain invisible or direction-changing characters (%(characters)s)",
    "invalid_boolean": "Invalid boolean for '%(key)s'",
    "invalid_choice": "Invalid value for '%(key)s'",
    "invalid_number": "Invalid number for '%(key)s'",
    "invalid_json": "Invalid JSON for '%(key)s'",
    "json_shape": "'%(key)s' must be a JSON object or array",
    "set_and_cleared": "'%(key)s' cannot be both set and cleared",
    "no_env_key": "'%(key)s' has no env_key; the panel cannot store it",
    "seed_env_invalid": "%(variable)s in .env is not a valid value for %(key)s; not copied.",
    "changed_since_loaded": "%(item)s changed since the form was loaded",
    "changed_elsewhere": "Changed elsewhere since the form was loaded: %(changes)s",
    "storage_unparsable": "Cannot save: %(file)s is not valid %(format)s (%(problem)s). Fix or remove the file first.",
    "storage_unparsable_banner": "%(file)s is not valid %(format)s (%(problem)s). Fix or remove the file first.",
    "secret_store_unavailable": "Secret store unavailable: %(reason)s",
    "not_ready": "Memory provider '%(name)s' is not ready (%(status)s). Configure it in the dashboard first.",
    "form_out_of_date": "The form is out of date; reload it.",
    "storage_file": "The storage file",
    # files reached through a link out of the agent's home (docs/safe_paths.md)
    "link_cannot_save": (
        "Cannot save: %(file)s is a link to a file outside the agent's home; the panel does not write through "
        "links. Nothing was changed."),
    "link_banner": (
        "%(name)s is a link to a file outside the agent's home; the panel does not read or write through links."),
    # notices on a provider's page (provider_schemas.reading.state, provider_schemas.loading.traps)
    "notice_string_bool": (
        "Stored as the text %(value)s, not a boolean; the plugin may read any non-empty text as true. "
        "Saving this field writes a real boolean."),
    "notice_env_override": ".env %(variable)s overrides the stored value %(value)s.",
    "notice_root_value": "Read from the root of %(file)s (shared by every host); saving writes the host block.",
    "notice_oauth_token": "%(where)s holds an OAuth access token; it takes precedence and the panel never changes it.",
    "notice_file_slot_secret": (
        "%(where)s holds this secret and is read before the secret stores; saving a new value removes it from there."),
    "notice_env_and_keyring": "%(variable)s is set in both .env and the keyring; the agent uses the .env value.",
    "notice_secret_fallback": "Set through %(fallback)s, not %(variable)s.",
    "notice_env_bom": ".env starts with a byte-order mark, which corrupts its first variable for the agent.",
    "notice_bom": "%(file)s starts with a byte-order mark; saving removes it.",
    "notice_keyring_unreadable": "The keyring cannot be read (%(problem)s); secrets stored there show as not set.",
    "notice_env_not_utf8": ".env is not valid UTF-8 text (%(problem)s); saves that change it are refused.",
    "notice_fallback_skipped": "%(entry)s is skipped by the plugin: %(problem)s.",
    "notice_legacy_hidden": (
        "Saving creates %(file)s; from then on %(legacy)s is ignored by the plugin. "
        "Its settings are copied into the new file."),
    "notice_seed_frozen": (
        "Saving creates %(file)s; the current values of %(variables)s from .env are copied into it, "
        "and later changes to those variables are ignored."),
    "notice_ignored_key": "%(file)s key %(key)s is ignored by the plugin.",
    "notice_ignored_env_key": "%(file)s %(where)s is ignored by the plugin; it reads %(variable)s from .env.",
    "notice_ignored_yaml_key": "config.yaml memory.%(provider)s.%(key)s is ignored by the plugin; it reads .env only.",
    "notice_legacy_banks": (
        "%(file)s has legacy banks.* settings; the plugin still reads banks.hermes.bankId and "
        "banks.hermes.budget when bank_id / recall_budget are not set. They cannot be edited here."),
    "notice_shared_global": (
        "Settings are stored in %(file)s, shared by every profile and by other apps that use Honcho."),
    "notice_openviking_unavailable": (
        "OpenViking stays unavailable until Endpoint is set or the CLI profile is enabled."),
    "notice_cli_profile_invalid": (
        "The CLI profile file %(file)s does not parse (%(problem)s); the agent fails to start it."),
    "notice_honcho_disabled": "%(file)s sets enabled: false in the %(where)s; Honcho is off.",
    "notice_shared_root": "Settings are stored in %(file)s, the default profile's file.",
    "notice_cli_profile_missing": "The CLI profile file %(file)s does not exist.",
}


# Field constraints (provider_schemas.loading.constraints): what a value must look like.
ENGLISH.update({
    "constraint_pattern_hint": "Enter a value like this: %(hint)s.",
    "constraint_pattern": "Enter a value that matches %(pattern)s.",
    "constraint_url": "Enter a web address that starts with http:// or https://, for example %(example)s.",
    "constraint_host": "Enter a host name or IP address without http:// or a port, for example %(example)s.",
    "constraint_port": "Enter a port number from 1 to 65535.",
    "constraint_path": "Enter a file path on one line.",
    "constraint_max_length": "Enter at most %(max_length)s characters (this has %(length)s).",
    "constraint_keywords": "Enter one of: %(keywords)s.",
    "constraint_keywords_json": "Enter one of: %(keywords)s, or JSON such as %(example)s.",
    "constraint_keywords_json_problem": (
        "Enter one of: %(keywords)s, or JSON such as %(example)s (%(shape_problem)s)."),
    "constraint_json": "Enter JSON such as %(example)s (%(shape_problem)s).",
    "json_type": "%(json_where)s must be %(json_type)s",
    "json_any_type": "%(json_where)s must be either %(json_type)s or %(json_other_type)s",
    "json_enum": "%(json_where)s must be one of %(values)s",
    "json_min_items": "%(json_where)s needs at least %(count)s item(s)",
    "json_required": "%(json_where)s needs the key %(key)s",
    "json_extra": "%(json_where)s has the key %(key)s, which is not used",
    "json_pattern": "%(json_where)s is not in the expected form",
    "json_type_object": "an object",
    "json_type_array": "a list",
    "json_type_string": "text",
    "json_type_number": "a number",
    "json_type_integer": "a whole number",
    "json_type_boolean": "true or false",
    "json_type_null": "null",
    "json_root": "the value",
})
# "Enter a whole number of %(unit)s from %(minimum)s to %(maximum)s.": number[_whole][_unit]_<bounds>
for _integer in (True, False):
    for _unit in (True, False):
        _noun = ("a whole number" if _integer else "a number") + (" of %(unit)s" if _unit else "")
        _code = f"number{'_whole' * _integer}{'_unit' * _unit}"
        ENGLISH[f"{_code}_both"] = f"Enter {_noun} from %(minimum)s to %(maximum)s."
        ENGLISH[f"{_code}_min"] = f"Enter {_noun}, at least %(minimum)s."
        ENGLISH[f"{_code}_max"] = f"Enter {_noun}, at most %(maximum)s."
        ENGLISH[f"{_code}_none"] = f"Enter {_noun}."

# Every code of both engines: memory_core's own (memory_core.messages.TEXTS) and provider_schemas'.
ENGLISH.update(MEMORY_CORE_TEXTS)


def template(code: str) -> Template:
    """The message ``code`` before its parameters are filled in (``template(code) % params``)."""
    return Template(ENGLISH[code], code)


def message(code: str, **params: Any) -> Message:
    """The message ``code`` with ``params``, in English."""
    return render(ENGLISH, code, params)

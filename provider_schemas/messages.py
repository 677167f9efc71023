"""Messages as codes with parameters.

An engine message is a ``Message`` (``memory_core.coded``): a ``str`` holding the English text the
API answers with (0.19.0's wording, unchanged), that also carries its ``code`` and ``params``. The web layer puts it
into the reader's language by looking the code up in its own table (``admin_panel.messages``) and
inserting the parameters; it never reads the English text back. Nothing here imports Django.
"""

from __future__ import annotations

from typing import Any

from memory_core.coded import Message, Template, render
from memory_core.messages import TEXTS as MEMORY_CORE_TEXTS

__all__ = ["ENGLISH", "Message", "Template", "message", "template"]


# The English of every code provider_schemas uses (and, below, memory_core's): the words of 0.19.0
# (docs/admin_panel.md, "Errors as codes"). ``message()`` renders them; the web layer's table holds
# the same texts as gettext msgids.
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
    # notices on a provider's page (provider_schemas.reading.state, provider_schemas.reading.traps)
    "notice_string_bool": (
        "Saved as the word %(value)s instead of on or off; the plugin may take any word as on. "
        "Saving this setting stores it as on or off."),
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


# Field constraints (provider_schemas.constraints): what a value must look like.
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

# A schema's declaration problems (provider_schemas.loading.checks); values are code (repr of keys).
ENGLISH.update({
    "check_label_type": "field %(key)s: label must be a string",
    "check_unknown_kind": "field %(key)s: unknown kind %(kind)s (expected one of %(choices)s)",
    "check_scope": "field %(key)s: scope must be 'host' or 'root', got %(value)s",
    "check_field_storage": "field %(key)s: field storage must be '' or 'env_file', got %(value)s",
    "check_default_type": "field %(key)s: default must be a string, got %(type)s",
    "check_options_type": "field %(key)s: options must be a tuple of ProviderFieldOption",
    "check_tuple_of_strings": "field %(key)s: %(attr)s must be a tuple of strings",
    "check_env_key_type": "field %(key)s: env_key must be a string or None",
    "check_select_no_options": "field %(key)s: a select needs at least one option",
    "check_duplicate_option": "field %(key)s: duplicate option value %(value)s",
    "check_default_not_option": "field %(key)s: default %(value)s is not one of the options",
    "check_bool_default": "field %(key)s: default %(value)s must be '', 'true' or 'false'",
    "check_number_default": "field %(key)s: default %(value)s is not a finite number",
    "check_json_default": "field %(key)s: default %(value)s is not a JSON object or array",
    "check_env_file_needs_env_key": "field %(key)s: a field stored in .env needs env_key",
    "check_env_key_denied": "field %(key)s: env_key %(variable)s is a variable the panel must never write",
    "check_variable_name": "field %(key)s: %(attr)s %(name)s is not a valid variable name",
    "check_condition_map": "field %(key)s: %(attr)s must map field keys to strings",
    "check_condition_self": "field %(key)s: %(attr)s cannot refer to the field itself",
    "check_required_unless_unknown": "field %(key)s: required_unless refers to unknown field %(other)s",
    "check_condition_order": (
        "field %(key)s: %(attr)s refers to %(other)s, which is not a field declared earlier"),
    "check_duplicate_key": "field %(key)s: duplicate key",
    "check_not_a_schema": "CONFIG_SCHEMA must be a ProviderConfigSchema, got %(type)s",
    "check_name_empty": "name must be a non-empty string",
    "check_name_directory": "name %(name)s does not match the provider directory %(directory)s",
    "check_schema_label_type": "label must be a string",
    "check_unknown_storage": "unknown storage %(storage)s (expected one of %(choices)s)",
    "check_json_file_path": "json_file storage needs a relative storage_path without '..', got %(path)s",
    "check_config_yaml_path": "config_yaml storage needs a dotted storage_path, got %(path)s",
    "check_fallbacks_type": "storage_fallbacks must be a tuple of strings",
    "check_fields_type": "fields must be a tuple of ProviderField",
    "check_field_type": "fields[%(index)s] must be a ProviderField, got %(type)s",
    "check_field_key": "fields[%(index)s]: key must be a non-empty string",
    # the linter's advice (provider_schemas.loading.lint)
    "lint_empty_label": "field %(key)s: empty label",
    "lint_secret_without_env_key": "field %(key)s: a secret without env_key cannot be stored by the panel",
    "lint_credential_kind": (
        "field %(key)s: the key looks like a credential but the kind is %(kind)s; "
        "use kind 'secret' so the value is never shown"),
    "lint_condition_value": (
        "field %(key)s: %(attr)s expects %(control)s to be %(value)s, a value that field cannot take"),
    "lint_condition_number": "field %(key)s: %(attr)s expects number field %(control)s to be %(value)s",
    "lint_env_key_shared": "field %(key)s: env var %(variable)s is also the env_key of field %(other)s",
    "lint_env_read_twice": "field %(key)s: env var %(variable)s is also read by field %(other)s",
    "lint_env_is_env_key": "field %(key)s: env var %(variable)s is the env_key of field %(other)s",
})

# Python's own messages a schema load passes on (provider_schemas.loading.python_errors)
ENGLISH.update({
    "typed_error": "%(type)s: %(message)s",
    "load_too_large": "the file is larger than %(kb)s KB; a schema never needs that much",
    "load_timeout": "loading took longer than %(seconds)s seconds (an endless loop?)",
    "python_syntax_error": "%(message)s (%(file)s, line %(line)s)",
    "python_invalid_syntax": "invalid syntax",
    "python_forgot_comma": "invalid syntax. Perhaps you forgot a comma?",
    "python_never_closed": "%(bracket)s was never closed",
    "python_unmatched": "unmatched %(bracket)s",
    "python_mismatched": "closing parenthesis %(closing)s does not match opening parenthesis %(opening)s",
    "python_unterminated_string": "unterminated string literal (detected at line %(line)s)",
    "python_unterminated_triple": "unterminated triple-quoted string literal (detected at line %(line)s)",
    "python_unexpected_indent": "unexpected indent",
    "python_unindent": "unindent does not match any outer indentation level",
    "python_expected_colon": "expected ':'",
    "python_null_bytes": "source code string cannot contain null bytes",
    "python_unexpected_keyword": "%(callable)s got an unexpected keyword argument %(name)s",
    "python_multiple_values": "%(callable)s got multiple values for argument %(name)s",
    "python_missing_argument": "%(callable)s missing %(count)s required positional argument: %(names)s",
    "python_missing_arguments": "%(callable)s missing %(count)s required positional arguments: %(names)s",
    "python_too_many_positional": (
        "%(callable)s takes from %(min)s to %(max)s positional arguments but %(count)s were given"),
    "python_name_not_defined": "name %(name)s is not defined",
    "python_no_module": "No module named %(module)s",
    "python_cannot_import": "cannot import name %(name)s from %(module)s (%(path)s)",
    "python_no_such_file": "No such file or directory",
    "python_permission_denied": "Permission denied",
})

# The static evaluator's refusals (provider_schemas.loading.static_eval): pasted schema text.
_ONLY = ("a schema file may only import from the declaration module, assign names, and call ProviderField, "
         "ProviderFieldOption and ProviderConfigSchema")
ENGLISH.update({
    "eval_decorators": "decorators are not allowed: " + _ONLY,
    "eval_bare_expression": "a bare expression has no effect here: " + _ONLY,
    "eval_calling": "calling %(callee)s is not allowed: " + _ONLY,
    "eval_construct": "%(construct)s are not allowed: " + _ONLY,
    "eval_sets": "sets are not allowed: use a tuple",
    "eval_timeout": "evaluation took longer than %(seconds)s s",
    "eval_bare_annotation": "an annotation without a value binds nothing",
    "eval_annotated_target": "only a plain name can be annotated",
    "eval_relative_import": "relative imports are not allowed: import the declaration module by name",
    "eval_future_import": "only 'from __future__ import annotations' is allowed",
    "eval_star_import": "'import *' is not allowed: import the names you use",
    "eval_declaration_no_name": "the declaration module has no public name %(name)s",
    "eval_module_no_name": "%(module)s has no public name %(name)s",
    "eval_only_config_schema": "only config_schema may be imported from %(module)s",
    "eval_import_from": (
        "importing from %(module)s is not allowed: only plugins.memory.config_schema or "
        "provider_schemas.config_schema"),
    "eval_import": (
        "importing %(module)s is not allowed: only plugins.memory.config_schema or provider_schemas.config_schema"),
    "eval_unpack_type": "cannot unpack a %(type)s into several names",
    "eval_unpack_count": "%(names)s names but %(values)s values to unpack",
    "eval_assign_target": "only names can be assigned (no attributes, no subscripts)",
    "eval_too_many_names": "more than %(count)s names",
    "eval_dunder": "dunder names such as %(name)s are not allowed",
    "eval_module_value": "a module cannot be used as a value",
    "eval_expression_depth": "expression nested more than %(depth)s levels deep",
    "eval_annotation_depth": "annotation nested more than %(depth)s levels deep",
    "eval_annotation_kind": "annotations may only be names, generics or strings",
    "eval_string_too_long": "string longer than %(count)s characters",
    "eval_not_finite": "numbers must be finite",
    "eval_bytes": "bytes literals are not allowed: use a string",
    "eval_ellipsis": "'...' is not allowed as a value",
    "eval_literal_type": "%(type)s literals are not allowed",
    "eval_int_too_large": "integer too large (at most %(digits)s digits)",
    "eval_container_items": "more than %(count)s items in one container",
    "eval_total_items": "the file builds more than %(count)s container items in total",
    "eval_total_chars": "the file builds more than %(count)s characters in total",
    "eval_undefined_name": (
        "name %(name)s is not defined: only names imported from the declaration module or assigned earlier in "
        "the file can be used"),
    "eval_package_attribute": "%(package)s has no attribute %(name)s a schema may use",
    "eval_attribute_access": "attribute access is only allowed on the declaration module (such as cs.KIND_TEXT)",
    "eval_dict_unpacking": "'**' unpacking is not allowed in a dict",
    "eval_dict_key": "a dict key must be a string or a number, not %(type)s",
    "eval_binary_operator": "the operator %(operator)s is not allowed (only '+' joins strings or tuples)",
    "eval_operator": "the operator %(operator)s is not allowed",
    "eval_unary": "unary minus and plus only apply to numbers",
    "eval_plus_types": "'+' only joins two strings, two tuples or two lists, not %(left)s and %(right)s",
    "eval_star_args": "'*args' in a call is not allowed: write the arguments out",
    "eval_star_kwargs": "'**kwargs' in a call is not allowed: write the arguments out",
    "eval_keyword_repeated": "keyword argument %(name)s repeated",
    "eval_source_type": "schema source must be text, got %(type)s",
    "eval_source_size": "schema source is larger than %(kb)s KB",
    "eval_invalid_syntax": "invalid syntax: %(message)s",
    "eval_cannot_parse": "cannot parse: %(message)s",
    "eval_too_deep": "source is nested too deeply",
    "eval_too_many_nodes": "schema source has more than %(count)s syntax nodes",
    "eval_no_config_schema": "CONFIG_SCHEMA is not defined",
    # the constructs it names (%(construct)s above)
    "construct_node": "'%(name)s' nodes",
    "construct_def": "function definitions ('def')",
    "construct_async_def": "function definitions ('async def')",
    "construct_class": "class definitions",
    "construct_lambda": "lambdas",
    "construct_comprehension": "comprehensions",
    "construct_generator": "generator expressions",
    "construct_f_string": "f-strings",
    "construct_walrus": "assignment expressions (':=')",
    "construct_subscript": "subscripts (x[...])",
    "construct_slice": "slices",
    "construct_conditional": "conditional expressions",
    "construct_bool_op": "'and'/'or' expressions",
    "construct_comparison": "comparisons",
    "construct_starred": "'*' unpacking",
    "construct_if": "'if' statements",
    "construct_loop": "loops",
    "construct_with": "'with' statements",
    "construct_try": "'try' statements",
    "construct_aug_assign": "augmented assignments ('+=')",
    "construct_match": "'match' statements",
})

# Every code of both engines: memory_core's own (memory_core.messages.TEXTS) and provider_schemas'.
# A code names one message in both: the panel's table is keyed by code alone.
if ENGLISH.keys() & MEMORY_CORE_TEXTS.keys():
    raise RuntimeError(f"codes used by both engines: {sorted(ENGLISH.keys() & MEMORY_CORE_TEXTS.keys())}")
ENGLISH.update(MEMORY_CORE_TEXTS)


def template(code: str) -> Template:
    """The message ``code`` before its parameters are filled in (``template(code) % params``)."""
    return Template(ENGLISH[code], code)


def message(code: str, /, **params: Any) -> Message:
    """The message ``code`` with ``params``, in English."""
    return render(ENGLISH, code, params)

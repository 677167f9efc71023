"""The words of the engines' message codes (``memory_core.coded``, ``provider_schemas.messages``):
one table of ``gettext_noop`` texts, the msgids of the catalogue. ``admin_panel.localisation.localise_message``
looks a message's code up here and inserts its parameters; the API and the CLI answer in English with
the engine's own rendering of the same code, which ``tests/i18n/test_message_codes.py`` checks is this
table's English.

A code missing here is shown in English (as the API words it): adding a code to the engines means
adding its text here and its translation to the catalogue.
"""

from __future__ import annotations

from django.utils.translation import gettext_noop

MESSAGES: dict[str, str] = {
    # provider settings: values, saves, conflicts (provider_schemas.values, saving.planning, errors)
    "value_too_long": gettext_noop("'%(key)s' is too long (more than %(limit)s characters)"),
    "line_breaks": gettext_noop("'%(key)s' must not contain line breaks or NUL characters"),
    "invisible_characters": gettext_noop(
        "'%(key)s' must not contain invisible or direction-changing characters (%(characters)s)"),
    "invalid_boolean": gettext_noop("Invalid boolean for '%(key)s'"),
    "invalid_choice": gettext_noop("Invalid value for '%(key)s'"),
    "invalid_number": gettext_noop("Invalid number for '%(key)s'"),
    "invalid_json": gettext_noop("Invalid JSON for '%(key)s'"),
    "set_and_cleared": gettext_noop("'%(key)s' cannot be both set and cleared"),
    "no_env_key": gettext_noop("'%(key)s' has no env_key; the panel cannot store it"),
    "seed_env_invalid": gettext_noop("%(variable)s in .env is not a valid value for %(key)s; not copied."),
    "changed_since_loaded": gettext_noop("%(item)s changed since the form was loaded"),
    "changed_elsewhere": gettext_noop("Changed elsewhere since the form was loaded: %(changes)s"),
    "storage_unparsable": gettext_noop(
        "Cannot save: %(file)s is not valid %(format)s (%(problem)s). Fix or remove the file first."),
    "storage_unparsable_banner": gettext_noop(
        "%(file)s is not valid %(format)s (%(problem)s). Fix or remove the file first."),
    "secret_store_unavailable": gettext_noop("Secret store unavailable: %(reason)s"),
    "not_ready": gettext_noop(
        "Memory provider '%(name)s' is not ready (%(status)s). Configure it in the dashboard first."),
    "form_out_of_date": gettext_noop("The form is out of date; reload it."),
    "storage_file": gettext_noop("The storage file"),
    # memory_core's refusals and results (memory_core.messages): the memory pages show them
    "empty_content": gettext_noop("Content cannot be empty."),
    "nul_content": gettext_noop("Content cannot contain NUL characters (U+0000). Remove them and retry."),
    "surrogate_content": gettext_noop(
        "Content is not valid Unicode text (it contains a lone surrogate code point). Remove it and retry."),
    "delimiter_inside": gettext_noop(
        "An entry cannot contain a line with only § on it: the agent uses that line to separate entries."),
    "delimiter_at_end": gettext_noop(
        "An entry cannot end with a line with only § on it: the agent would read that line as part of the "
        "separator before the next entry."),
    "entries_would_join": gettext_noop(
        "Nothing was written: an entry already in the file ends with a line with only § on it, so the entry "
        "after it would not read back unchanged. Edit that entry first."),
    "empty_new_content": gettext_noop("new_content cannot be empty. Use 'remove' to delete entries."),
    "duplicate": gettext_noop("Entry already exists (no duplicate added)."),
    "over_budget_add": gettext_noop(
        "Memory at %(current)s/%(limit)s chars. Adding this entry (%(length)s chars) would exceed the limit. "
        "Consolidate now: use 'replace' to merge overlapping entries into shorter ones or 'remove' stale or "
        "less important entries (see current_entries below), then retry this add — all in this turn."),
    "over_budget_replace": gettext_noop(
        "Replacement would put memory at %(total)s/%(limit)s chars. Shorten the new content, or 'remove' other "
        "stale or less important entries to make room (see current_entries below), then retry — all in this "
        "turn."),
    "threat_invisible": gettext_noop(
        "Blocked: content contains invisible unicode character %(code)s (possible injection)."),
    "threat_pattern": gettext_noop(
        "Blocked: content matches threat pattern '%(pattern)s'. Content is injected into the system prompt and "
        "must not contain injection or exfiltration payloads."),
    "unreadable_refusal": gettext_noop(
        "Refusing to write %(file)s: the file exists but could not be read (%(reason)s). It was left "
        "unchanged; fix its permissions or encoding, or move it aside, then retry."),
    "link_refusal": gettext_noop(
        "Refusing to write %(file)s: %(name)s is a link to a file outside the agent's home; the panel does not "
        "write through links. Nothing was changed."),
    "lock_refusal": gettext_noop("Refusing to write %(file)s: cannot open lock file %(file)s.lock (%(reason)s)."),
    "drift_refusal": gettext_noop(
        "Refusing to write %(file)s: file on disk has content that wouldn't round-trip through the memory tool "
        "(likely added by the patch tool, a shell append, a manual edit, or a concurrent session). A snapshot "
        "was saved to %(backup)s. Resolve the drift first — either rewrite the file as a clean §-delimited "
        "list of entries, or move the extra content out — then retry. This guard exists to prevent silent data "
        "loss (issue #26045)."),
    "no_match": gettext_noop(
        "No entry matched '%(text)s'. Check current_entries below and retry with the exact text of the entry "
        "you want to %(verb)s."),
    "ambiguous": gettext_noop("Multiple entries matched '%(text)s'. Be more specific."),
    "invalid_target": gettext_noop("Invalid target '%(target)s'. Use 'memory' or 'user'."),
    "nothing_selected": gettext_noop("No entries selected."),
    "empty_old_content": gettext_noop("old_content cannot be empty."),
    "entry_changed": gettext_noop(
        "Nothing was replaced: the entry is no longer in the file exactly as it was read (changed or removed "
        "meanwhile). Reload and retry."),
    "drift_stale": gettext_noop(
        "Nothing was rewritten: %(file)s changed since it was read. Reload it and check again."),
    "no_drift": gettext_noop("Nothing was rewritten: %(file)s has no drift to resolve."),
    "drift_not_resolvable": gettext_noop(
        "Nothing was rewritten: one entry of %(file)s is %(longest)s characters long, more than the limit of "
        "%(limit)s, and rewriting cannot shorten it. Move text out of it by hand (with a § separator between "
        "entries), then retry."),
    "drift_backup_failed": gettext_noop("Nothing was rewritten: %(file)s could not be backed up first (%(backup)s)."),
    "drift_would_join": gettext_noop(
        "Nothing was rewritten: an entry of %(file)s ends with a line with only § on it, so rewriting would "
        "join it to the entry after it. Move or remove that line by hand, then retry."),
    "drift_resolved_one": gettext_noop(
        "Rewrote %(file)s as its %(count)s entry; the previous text was saved to %(backup)s."),
    "drift_resolved": gettext_noop(
        "Rewrote %(file)s as its %(count)s entries; the previous text was saved to %(backup)s."),
    "entries_gone_one": gettext_noop(
        "Nothing was deleted: %(count)s selected entry is no longer in the file (changed or removed "
        "meanwhile). Reload and select again."),
    "entries_gone": gettext_noop(
        "Nothing was deleted: %(count)s selected entries are no longer in the file (changed or removed "
        "meanwhile). Reload and select again."),
    "deleted_one": gettext_noop("Deleted %(count)s entry."),
    "deleted": gettext_noop("Deleted %(count)s entries."),
    # why config.yaml's memory settings could not be read or written (memory_core.config)
    "config_invalid_yaml_at": gettext_noop("config.yaml is not valid YAML (line %(line)s)"),
    "config_invalid_yaml": gettext_noop("config.yaml is not valid YAML"),
    "config_too_large": gettext_noop("config.yaml is larger than %(size)s KB and was not read"),
    "config_unreadable": gettext_noop("config.yaml could not be read: %(error)s"),
    "config_too_deep": gettext_noop("config.yaml is nested too deeply to read"),
    "config_long_number": gettext_noop("config.yaml has a number too long to read"),
    "config_link_read": gettext_noop("config.yaml is a link to a file outside the agent's home and was not read"),
    "config_link_write": gettext_noop(
        "config.yaml is a link to a file outside the agent's home; the panel does not write through links. "
        "Nothing was changed."),
    # a file that could not be written (memory_core.files.write_failure_reason)
    "write_link": gettext_noop(
        "%(name)s is a link to a file outside the agent's home; the panel does not write through links. "
        "Nothing was changed."),
    "write_read_only": gettext_noop("%(folder)s is read-only (permission denied): nothing was changed."),
    "write_read_only_fs": gettext_noop("%(folder)s is on a read-only file system: nothing was changed."),
    "write_disk_full": gettext_noop("The disk is full: nothing was changed."),
    "write_failed": gettext_noop("%(file)s could not be written (%(problem)s): nothing was changed."),
    # files reached through a link out of the agent's home (docs/safe_paths.md)
    "link_cannot_save": gettext_noop(
        "Cannot save: %(file)s is a link to a file outside the agent's home; the panel does not write through "
        "links. Nothing was changed."),
    "link_banner": gettext_noop(
        "%(name)s is a link to a file outside the agent's home; the panel does not read or write through "
        "links."),
    # notices on a provider's page (provider_schemas.reading.state, provider_schemas.reading.traps)
    "notice_string_bool": gettext_noop(
        "Saved as the word %(value)s instead of on or off; the plugin may take any word as on. Saving this "
        "setting stores it as on or off."),
    "notice_env_override": gettext_noop(".env %(variable)s overrides the stored value %(value)s."),
    "notice_root_value": gettext_noop(
        "Read from the root of %(file)s (shared by every host); saving writes the host block."),
    "notice_oauth_token": gettext_noop(
        "%(where)s holds an OAuth access token; it takes precedence and the panel never changes it."),
    "notice_file_slot_secret": gettext_noop(
        "%(where)s holds this secret and is read before the secret stores; saving a new value removes it from "
        "there."),
    "notice_env_and_keyring": gettext_noop(
        "%(variable)s is set in both .env and the keyring; the agent uses the .env value."),
    "notice_secret_fallback": gettext_noop("Set through %(fallback)s, not %(variable)s."),
    "notice_env_bom": gettext_noop(
        ".env starts with a byte-order mark, which corrupts its first variable for the agent."),
    "notice_bom": gettext_noop("%(file)s starts with a byte-order mark; saving removes it."),
    "notice_keyring_unreadable": gettext_noop(
        "The keyring cannot be read (%(problem)s); secrets stored there show as not set."),
    "notice_env_not_utf8": gettext_noop(
        ".env is not valid UTF-8 text (%(problem)s); saves that change it are refused."),
    "notice_fallback_skipped": gettext_noop("%(entry)s is skipped by the plugin: %(problem)s."),
    "notice_legacy_hidden": gettext_noop(
        "Saving creates %(file)s; from then on %(legacy)s is ignored by the plugin. Its settings are copied "
        "into the new file."),
    "notice_seed_frozen": gettext_noop(
        "Saving creates %(file)s; the current values of %(variables)s from .env are copied into it, and later "
        "changes to those variables are ignored."),
    "notice_ignored_key": gettext_noop("%(file)s key %(key)s is ignored by the plugin."),
    "notice_ignored_env_key": gettext_noop(
        "%(file)s %(where)s is ignored by the plugin; it reads %(variable)s from .env."),
    "notice_ignored_yaml_key": gettext_noop(
        "config.yaml memory.%(provider)s.%(key)s is ignored by the plugin; it reads .env only."),
    "notice_legacy_banks": gettext_noop(
        "%(file)s has legacy banks.* settings; the plugin still reads banks.hermes.bankId and "
        "banks.hermes.budget when bank_id / recall_budget are not set. They cannot be edited here."),
    "notice_shared_global": gettext_noop(
        "Settings are stored in %(file)s, shared by every profile and by other apps that use Honcho."),
    "notice_openviking_unavailable": gettext_noop(
        "OpenViking stays unavailable until Endpoint is set or the CLI profile is enabled."),
    "notice_cli_profile_invalid": gettext_noop(
        "The CLI profile file %(file)s does not parse (%(problem)s); the agent fails to start it."),
    "notice_honcho_disabled": gettext_noop("%(file)s sets enabled: false in the %(where)s; Honcho is off."),
    "notice_shared_root": gettext_noop("Settings are stored in %(file)s, the default profile's file."),
    "notice_cli_profile_missing": gettext_noop("The CLI profile file %(file)s does not exist."),
    # field constraints (provider_schemas.constraints)
    "json_shape": gettext_noop("'%(key)s' must be a JSON object or array"),
    "constraint_pattern_hint": gettext_noop("Enter a value like this: %(hint)s."),
    "constraint_pattern": gettext_noop("Enter a value that matches %(pattern)s."),
    "constraint_url": gettext_noop(
        "Enter a web address that starts with http:// or https://, for example %(example)s."),
    "constraint_host": gettext_noop(
        "Enter a host name or IP address without http:// or a port, for example %(example)s."),
    "constraint_port": gettext_noop("Enter a port number from 1 to 65535."),
    "constraint_path": gettext_noop("Enter a file path on one line."),
    "constraint_max_length": gettext_noop("Enter at most %(max_length)s characters (this has %(length)s)."),
    "constraint_keywords": gettext_noop("Enter one of: %(keywords)s."),
    "constraint_keywords_json": gettext_noop("Enter one of: %(keywords)s, or JSON such as %(example)s."),
    "constraint_keywords_json_problem": gettext_noop(
        "Enter one of: %(keywords)s, or JSON such as %(example)s (%(shape_problem)s)."),
    "constraint_json": gettext_noop("Enter JSON such as %(example)s (%(shape_problem)s)."),
    "json_type": gettext_noop("%(json_where)s must be %(json_type)s"),
    "json_any_type": gettext_noop("%(json_where)s must be either %(json_type)s or %(json_other_type)s"),
    "json_enum": gettext_noop("%(json_where)s must be one of %(values)s"),
    "json_min_items": gettext_noop("%(json_where)s needs at least %(count)s item(s)"),
    "json_required": gettext_noop("%(json_where)s needs the key %(key)s"),
    "json_extra": gettext_noop("%(json_where)s has the key %(key)s, which is not used"),
    "json_pattern": gettext_noop("%(json_where)s is not in the expected form"),
    "json_type_object": gettext_noop("an object"),
    "json_type_array": gettext_noop("a list"),
    "json_type_string": gettext_noop("text"),
    "json_type_number": gettext_noop("a number"),
    "json_type_integer": gettext_noop("a whole number"),
    "json_type_boolean": gettext_noop("true or false"),
    "json_type_null": gettext_noop("null"),
    "json_root": gettext_noop("the value"),
    "number_whole_unit_both": gettext_noop("Enter a whole number of %(unit)s from %(minimum)s to %(maximum)s."),
    "number_whole_unit_min": gettext_noop("Enter a whole number of %(unit)s, at least %(minimum)s."),
    "number_whole_unit_max": gettext_noop("Enter a whole number of %(unit)s, at most %(maximum)s."),
    "number_whole_unit_none": gettext_noop("Enter a whole number of %(unit)s."),
    "number_whole_both": gettext_noop("Enter a whole number from %(minimum)s to %(maximum)s."),
    "number_whole_min": gettext_noop("Enter a whole number, at least %(minimum)s."),
    "number_whole_max": gettext_noop("Enter a whole number, at most %(maximum)s."),
    "number_whole_none": gettext_noop("Enter a whole number."),
    "number_unit_both": gettext_noop("Enter a number of %(unit)s from %(minimum)s to %(maximum)s."),
    "number_unit_min": gettext_noop("Enter a number of %(unit)s, at least %(minimum)s."),
    "number_unit_max": gettext_noop("Enter a number of %(unit)s, at most %(maximum)s."),
    "number_unit_none": gettext_noop("Enter a number of %(unit)s."),
    "number_both": gettext_noop("Enter a number from %(minimum)s to %(maximum)s."),
    "number_min": gettext_noop("Enter a number, at least %(minimum)s."),
    "number_max": gettext_noop("Enter a number, at most %(maximum)s."),
    "number_none": gettext_noop("Enter a number."),
    # a schema's declaration problems (provider_schemas.loading.checks)
    "check_label_type": gettext_noop("field %(key)s: label must be a string"),
    "check_unknown_kind": gettext_noop("field %(key)s: unknown kind %(kind)s (expected one of %(choices)s)"),
    "check_scope": gettext_noop("field %(key)s: scope must be 'host' or 'root', got %(value)s"),
    "check_field_storage": gettext_noop("field %(key)s: field storage must be '' or 'env_file', got %(value)s"),
    "check_default_type": gettext_noop("field %(key)s: default must be a string, got %(type)s"),
    "check_options_type": gettext_noop("field %(key)s: options must be a tuple of ProviderFieldOption"),
    "check_tuple_of_strings": gettext_noop("field %(key)s: %(attr)s must be a tuple of strings"),
    "check_env_key_type": gettext_noop("field %(key)s: env_key must be a string or None"),
    "check_select_no_options": gettext_noop("field %(key)s: a select needs at least one option"),
    "check_duplicate_option": gettext_noop("field %(key)s: duplicate option value %(value)s"),
    "check_default_not_option": gettext_noop("field %(key)s: default %(value)s is not one of the options"),
    "check_bool_default": gettext_noop("field %(key)s: default %(value)s must be '', 'true' or 'false'"),
    "check_number_default": gettext_noop("field %(key)s: default %(value)s is not a finite number"),
    "check_json_default": gettext_noop("field %(key)s: default %(value)s is not a JSON object or array"),
    "check_env_file_needs_env_key": gettext_noop("field %(key)s: a field stored in .env needs env_key"),
    "check_env_key_denied": gettext_noop(
        "field %(key)s: env_key %(variable)s is a variable the panel must never write"),
    "check_variable_name": gettext_noop("field %(key)s: %(attr)s %(name)s is not a valid variable name"),
    "check_condition_map": gettext_noop("field %(key)s: %(attr)s must map field keys to strings"),
    "check_condition_self": gettext_noop("field %(key)s: %(attr)s cannot refer to the field itself"),
    "check_required_unless_unknown": gettext_noop("field %(key)s: required_unless refers to unknown field %(other)s"),
    "check_condition_order": gettext_noop(
        "field %(key)s: %(attr)s refers to %(other)s, which is not a field declared earlier"),
    "check_duplicate_key": gettext_noop("field %(key)s: duplicate key"),
    "check_not_a_schema": gettext_noop("CONFIG_SCHEMA must be a ProviderConfigSchema, got %(type)s"),
    "check_name_empty": gettext_noop("name must be a non-empty string"),
    "check_name_directory": gettext_noop("name %(name)s does not match the provider directory %(directory)s"),
    "check_schema_label_type": gettext_noop("label must be a string"),
    "check_unknown_storage": gettext_noop("unknown storage %(storage)s (expected one of %(choices)s)"),
    "check_json_file_path": gettext_noop("json_file storage needs a relative storage_path without '..', got %(path)s"),
    "check_config_yaml_path": gettext_noop("config_yaml storage needs a dotted storage_path, got %(path)s"),
    "check_fallbacks_type": gettext_noop("storage_fallbacks must be a tuple of strings"),
    "check_fields_type": gettext_noop("fields must be a tuple of ProviderField"),
    "check_field_type": gettext_noop("fields[%(index)s] must be a ProviderField, got %(type)s"),
    "check_field_key": gettext_noop("fields[%(index)s]: key must be a non-empty string"),
    # the linter's advice (provider_schemas.loading.lint)
    "lint_empty_label": gettext_noop("field %(key)s: empty label"),
    "lint_secret_without_env_key": gettext_noop(
        "field %(key)s: a secret without env_key cannot be stored by the panel"),
    "lint_credential_kind": gettext_noop(
        "field %(key)s: the key looks like a credential but the kind is %(kind)s; use kind 'secret' so the "
        "value is never shown"),
    "lint_condition_value": gettext_noop(
        "field %(key)s: %(attr)s expects %(control)s to be %(value)s, a value that field cannot take"),
    "lint_condition_number": gettext_noop("field %(key)s: %(attr)s expects number field %(control)s to be %(value)s"),
    "lint_env_key_shared": gettext_noop("field %(key)s: env var %(variable)s is also the env_key of field %(other)s"),
    "lint_env_read_twice": gettext_noop("field %(key)s: env var %(variable)s is also read by field %(other)s"),
    "lint_env_is_env_key": gettext_noop("field %(key)s: env var %(variable)s is the env_key of field %(other)s"),
    # the static evaluator's refusals (provider_schemas.loading.static_eval)
    "eval_decorators": gettext_noop(
        "decorators are not allowed: a schema file may only import from the declaration module, assign names, "
        "and call ProviderField, ProviderFieldOption and ProviderConfigSchema"),
    "eval_bare_expression": gettext_noop(
        "a bare expression has no effect here: a schema file may only import from the declaration module, "
        "assign names, and call ProviderField, ProviderFieldOption and ProviderConfigSchema"),
    "eval_calling": gettext_noop(
        "calling %(callee)s is not allowed: a schema file may only import from the declaration module, assign "
        "names, and call ProviderField, ProviderFieldOption and ProviderConfigSchema"),
    "eval_construct": gettext_noop(
        "%(construct)s are not allowed: a schema file may only import from the declaration module, assign "
        "names, and call ProviderField, ProviderFieldOption and ProviderConfigSchema"),
    "eval_sets": gettext_noop("sets are not allowed: use a tuple"),
    "eval_timeout": gettext_noop("evaluation took longer than %(seconds)s s"),
    "eval_bare_annotation": gettext_noop("an annotation without a value binds nothing"),
    "eval_annotated_target": gettext_noop("only a plain name can be annotated"),
    "eval_relative_import": gettext_noop("relative imports are not allowed: import the declaration module by name"),
    "eval_future_import": gettext_noop("only 'from __future__ import annotations' is allowed"),
    "eval_star_import": gettext_noop("'import *' is not allowed: import the names you use"),
    "eval_declaration_no_name": gettext_noop("the declaration module has no public name %(name)s"),
    "eval_module_no_name": gettext_noop("%(module)s has no public name %(name)s"),
    "eval_only_config_schema": gettext_noop("only config_schema may be imported from %(module)s"),
    "eval_import_from": gettext_noop(
        "importing from %(module)s is not allowed: only plugins.memory.config_schema or "
        "provider_schemas.config_schema"),
    "eval_import": gettext_noop(
        "importing %(module)s is not allowed: only plugins.memory.config_schema or "
        "provider_schemas.config_schema"),
    "eval_unpack_type": gettext_noop("cannot unpack a %(type)s into several names"),
    "eval_unpack_count": gettext_noop("%(names)s names but %(values)s values to unpack"),
    "eval_assign_target": gettext_noop("only names can be assigned (no attributes, no subscripts)"),
    "eval_too_many_names": gettext_noop("more than %(count)s names"),
    "eval_dunder": gettext_noop("dunder names such as %(name)s are not allowed"),
    "eval_module_value": gettext_noop("a module cannot be used as a value"),
    "eval_expression_depth": gettext_noop("expression nested more than %(depth)s levels deep"),
    "eval_annotation_depth": gettext_noop("annotation nested more than %(depth)s levels deep"),
    "eval_annotation_kind": gettext_noop("annotations may only be names, generics or strings"),
    "eval_string_too_long": gettext_noop("string longer than %(count)s characters"),
    "eval_not_finite": gettext_noop("numbers must be finite"),
    "eval_bytes": gettext_noop("bytes literals are not allowed: use a string"),
    "eval_ellipsis": gettext_noop("'...' is not allowed as a value"),
    "eval_literal_type": gettext_noop("%(type)s literals are not allowed"),
    "eval_int_too_large": gettext_noop("integer too large (at most %(digits)s digits)"),
    "eval_container_items": gettext_noop("more than %(count)s items in one container"),
    "eval_total_items": gettext_noop("the file builds more than %(count)s container items in total"),
    "eval_total_chars": gettext_noop("the file builds more than %(count)s characters in total"),
    "eval_undefined_name": gettext_noop(
        "name %(name)s is not defined: only names imported from the declaration module or assigned earlier in "
        "the file can be used"),
    "eval_package_attribute": gettext_noop("%(package)s has no attribute %(name)s a schema may use"),
    "eval_attribute_access": gettext_noop(
        "attribute access is only allowed on the declaration module (such as cs.KIND_TEXT)"),
    "eval_dict_unpacking": gettext_noop("'**' unpacking is not allowed in a dict"),
    "eval_dict_key": gettext_noop("a dict key must be a string or a number, not %(type)s"),
    "eval_binary_operator": gettext_noop("the operator %(operator)s is not allowed (only '+' joins strings or tuples)"),
    "eval_operator": gettext_noop("the operator %(operator)s is not allowed"),
    "eval_unary": gettext_noop("unary minus and plus only apply to numbers"),
    "eval_plus_types": gettext_noop("'+' only joins two strings, two tuples or two lists, not %(left)s and %(right)s"),
    "eval_star_args": gettext_noop("'*args' in a call is not allowed: write the arguments out"),
    "eval_star_kwargs": gettext_noop("'**kwargs' in a call is not allowed: write the arguments out"),
    "eval_keyword_repeated": gettext_noop("keyword argument %(name)s repeated"),
    "eval_source_type": gettext_noop("schema source must be text, got %(type)s"),
    "eval_source_size": gettext_noop("schema source is larger than %(kb)s KB"),
    "eval_invalid_syntax": gettext_noop("invalid syntax: %(message)s"),
    "eval_cannot_parse": gettext_noop("cannot parse: %(message)s"),
    "eval_too_deep": gettext_noop("source is nested too deeply"),
    "eval_too_many_nodes": gettext_noop("schema source has more than %(count)s syntax nodes"),
    "eval_no_config_schema": gettext_noop("CONFIG_SCHEMA is not defined"),
    # the constructs the static evaluator names (its %(construct)s)
    "construct_node": gettext_noop("'%(name)s' nodes"),
    "construct_def": gettext_noop("function definitions ('def')"),
    "construct_async_def": gettext_noop("function definitions ('async def')"),
    "construct_class": gettext_noop("class definitions"),
    "construct_lambda": gettext_noop("lambdas"),
    "construct_comprehension": gettext_noop("comprehensions"),
    "construct_generator": gettext_noop("generator expressions"),
    "construct_f_string": gettext_noop("f-strings"),
    "construct_walrus": gettext_noop("assignment expressions (':=')"),
    "construct_subscript": gettext_noop("subscripts (x[...])"),
    "construct_slice": gettext_noop("slices"),
    "construct_conditional": gettext_noop("conditional expressions"),
    "construct_bool_op": gettext_noop("'and'/'or' expressions"),
    "construct_comparison": gettext_noop("comparisons"),
    "construct_starred": gettext_noop("'*' unpacking"),
    "construct_if": gettext_noop("'if' statements"),
    "construct_loop": gettext_noop("loops"),
    "construct_with": gettext_noop("'with' statements"),
    "construct_try": gettext_noop("'try' statements"),
    "construct_aug_assign": gettext_noop("augmented assignments ('+=')"),
    "construct_match": gettext_noop("'match' statements"),
    # the schema loader (provider_schemas.loading.loader)
    "typed_error": gettext_noop("%(type)s: %(message)s"),
    "load_too_large": gettext_noop("the file is larger than %(kb)s KB; a schema never needs that much"),
    "load_timeout": gettext_noop("loading took longer than %(seconds)s seconds (an endless loop?)"),
    # Python's own messages a schema load passes on (provider_schemas.loading.python_errors)
    "python_syntax_error": gettext_noop("%(message)s (%(file)s, line %(line)s)"),
    "python_invalid_syntax": gettext_noop("invalid syntax"),
    "python_forgot_comma": gettext_noop("invalid syntax. Perhaps you forgot a comma?"),
    "python_never_closed": gettext_noop("%(bracket)s was never closed"),
    "python_unmatched": gettext_noop("unmatched %(bracket)s"),
    "python_mismatched": gettext_noop("closing parenthesis %(closing)s does not match opening parenthesis %(opening)s"),
    "python_unterminated_string": gettext_noop("unterminated string literal (detected at line %(line)s)"),
    "python_unterminated_triple": gettext_noop("unterminated triple-quoted string literal (detected at line %(line)s)"),
    "python_unexpected_indent": gettext_noop("unexpected indent"),
    "python_unindent": gettext_noop("unindent does not match any outer indentation level"),
    "python_expected_colon": gettext_noop("expected ':'"),
    "python_null_bytes": gettext_noop("source code string cannot contain null bytes"),
    "python_unexpected_keyword": gettext_noop("%(callable)s got an unexpected keyword argument %(name)s"),
    "python_multiple_values": gettext_noop("%(callable)s got multiple values for argument %(name)s"),
    "python_missing_argument": gettext_noop("%(callable)s missing %(count)s required positional argument: %(names)s"),
    "python_missing_arguments": gettext_noop("%(callable)s missing %(count)s required positional arguments: %(names)s"),
    "python_too_many_positional": gettext_noop(
        "%(callable)s takes from %(min)s to %(max)s positional arguments but %(count)s were given"),
    "python_name_not_defined": gettext_noop("name %(name)s is not defined"),
    "python_no_module": gettext_noop("No module named %(module)s"),
    "python_cannot_import": gettext_noop("cannot import name %(name)s from %(module)s (%(path)s)"),
    "python_no_such_file": gettext_noop("No such file or directory"),
    "python_permission_denied": gettext_noop("Permission denied"),
}

# Parameters that are texts a provider declares (a number field's unit, a pattern's hint): like a
# label, they are looked up whole in the catalogue. Every other parameter is a value (a key, a file
# name, a number) and is inserted as it is, or a coded message of its own, translated in turn.
DECLARED_PARAMS = frozenset({"unit", "hint"})

# The bundled providers' units and hints (the catalogue's words for DECLARED_PARAMS).
DECLARED_WORDS = (
    gettext_noop("seconds"),
    gettext_noop("tokens"),
    gettext_noop("characters"),
    gettext_noop("turns"),
    gettext_noop("passes"),
    gettext_noop("dimensions"),
    gettext_noop("days"),
    gettext_noop("results"),
    gettext_noop("async, turn, session, or a whole number of turns such as 3"),
    gettext_noop(
        "a tag of letters, digits and single underscores, with no underscore at either end; {identity} may be used"
    ),
)

# Fixed texts the engines pass on from a library, looked up whole in the catalogue: the reason
# ``json.JSONDecodeError.msg`` gives (shown with the line and column of a JSON field's error).
JSON_DECODER_REASONS = (
    gettext_noop("Expecting value"),
    gettext_noop("Expecting property name enclosed in double quotes"),
    gettext_noop("Expecting ',' delimiter"),
    gettext_noop("Expecting ':' delimiter"),
    gettext_noop("Extra data"),
    gettext_noop("Unterminated string starting at"),
    gettext_noop("Invalid control character at"),
    gettext_noop("Invalid \\escape"),
    gettext_noop("Invalid \\uXXXX escape"),
)

"""The words of the engines' message codes (``provider_schemas.messages``): one table of
``gettext_noop`` texts, the msgids of the catalogue. ``admin_panel.localisation.localise_message``
looks a message's code up here and inserts its parameters; the API answers in English with the
engine's own rendering of the same code, which ``tests/i18n`` checks is this table's English.

A code missing here is shown in English (as the API words it): adding a code to the engines means
adding its text here and its translation to the catalogue.
"""

from __future__ import annotations

from django.utils.translation import gettext_noop

MESSAGES: dict[str, str] = {
    "value_too_long": gettext_noop("'%(key)s' is too long (more than %(limit)s characters)"),
    "invisible_characters": gettext_noop(
        "'%(key)s' must not contain invisible or direction-changing characters (%(characters)s)"),
    "line_breaks": gettext_noop("'%(key)s' must not contain line breaks or NUL characters"),
    "invalid_boolean": gettext_noop("Invalid boolean for '%(key)s'"),
    "invalid_choice": gettext_noop("Invalid value for '%(key)s'"),
    "invalid_number": gettext_noop("Invalid number for '%(key)s'"),
    "invalid_json": gettext_noop("Invalid JSON for '%(key)s'"),
    "json_shape": gettext_noop("'%(key)s' must be a JSON object or array"),
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
}

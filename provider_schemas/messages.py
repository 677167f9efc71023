"""Messages as codes with parameters.

An engine message is a ``Message``: a ``str`` holding the English text the API answers with
(0.19.0's wording, unchanged), that also carries its ``code`` and ``params``. The web layer puts it
into the reader's language by looking the code up in its own table (``admin_panel.messages``) and
inserting the parameters; it never reads the English text back. Nothing here imports Django.
"""

from __future__ import annotations

from typing import Any

from memory_core.coded import Message, render
from memory_core.messages import TEXTS as MEMORY_CORE_TEXTS

__all__ = ["ENGLISH", "Message", "message"]


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
}


# Every code of both engines: memory_core's own (memory_core.messages.TEXTS) and provider_schemas'.
ENGLISH.update(MEMORY_CORE_TEXTS)


def message(code: str, **params: Any) -> Message:
    """The message ``code`` with ``params``, in English."""
    return render(ENGLISH, code, params)

"""The declaration language of provider settings.

A provider's ``config_schema.py`` builds a ``ProviderConfigSchema`` out of the names in this
module and nothing else. Schema files written for hermes-agent 0.19.0 import these names as
``plugins.memory.config_schema``; the loader maps that import name onto this module, so both
spellings build instances of the same classes.

Pure data: this module imports nothing from the storage, web or any other layer.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = [
    "FORMATS",
    "FORMAT_HOST",
    "FORMAT_PATH",
    "FORMAT_PORT",
    "FORMAT_URL",
    "JSON_SHAPE_KEYWORDS",
    "KINDS",
    "KIND_BOOL",
    "KIND_JSON",
    "KIND_NUMBER",
    "KIND_SECRET",
    "KIND_SELECT",
    "KIND_TEXT",
    "STORAGES",
    "STORAGE_CONFIG_YAML",
    "STORAGE_ENV_FILE",
    "STORAGE_FLAT_JSON",
    "STORAGE_HONCHO_HOST_BLOCK",
    "STORAGE_JSON_FILE",
    "ProviderConfigSchema",
    "ProviderField",
    "ProviderFieldOption",
]

# Field kinds (values identical to hermes-agent 0.19.0).
KIND_TEXT = "text"
KIND_SELECT = "select"
KIND_SECRET = "secret"  # noqa: S105 - a kind name, not a credential
KIND_BOOL = "bool"
KIND_NUMBER = "number"
KIND_JSON = "json"
KINDS = (KIND_TEXT, KIND_SELECT, KIND_SECRET, KIND_BOOL, KIND_NUMBER, KIND_JSON)

# Storage kinds. The first two exist in 0.19.0; the other three are ours, so that every bundled
# provider's values land where its plugin reads them.
STORAGE_FLAT_JSON = "flat_json"
STORAGE_HONCHO_HOST_BLOCK = "honcho_host_block"
STORAGE_JSON_FILE = "json_file"
STORAGE_CONFIG_YAML = "config_yaml"
STORAGE_ENV_FILE = "env_file"
STORAGES = (
    STORAGE_FLAT_JSON,
    STORAGE_HONCHO_HOST_BLOCK,
    STORAGE_JSON_FILE,
    STORAGE_CONFIG_YAML,
    STORAGE_ENV_FILE,
)

# Text formats a field may require (``ProviderField.format``). Ours; docs/field_constraints.md.
FORMAT_URL = "url"  # an http:// or https:// address with a host
FORMAT_HOST = "host"  # a host name or IP address, no scheme, no port
FORMAT_PORT = "port"  # a TCP port number 1-65535, written as text
FORMAT_PATH = "path"  # a file path: no NUL, no line break
FORMATS = (FORMAT_URL, FORMAT_HOST, FORMAT_PORT, FORMAT_PATH)
# The subset of JSON Schema that ``json_shape`` understands; any other keyword is a declaration error.
JSON_SHAPE_KEYWORDS = (
    "type", "items", "properties", "required", "enum", "minItems", "additionalProperties", "pattern",
    "anyOf",
)  # fmt: skip


@dataclass(frozen=True)
class ProviderFieldOption:
    """One choice of a select field; ``value`` is what gets stored."""

    value: str
    label: str
    description: str = ""


@dataclass(frozen=True)
class ProviderField:
    """One setting. Declaration order is display order.

    The first fourteen attributes, their order and defaults match hermes-agent 0.19.0, so
    positional declarations keep working. The rest are memory-panel additions whose defaults
    mean "not used".
    """

    key: str
    label: str
    kind: str = KIND_TEXT
    default: str = ""
    description: str = ""
    placeholder: str = ""
    options: tuple[ProviderFieldOption, ...] = ()
    env_key: str | None = None
    aliases: tuple[str, ...] = ()
    env_fallbacks: tuple[str, ...] = ()
    inline: bool = False
    group: str = ""
    info: str = ""
    scope: str = "host"
    # memory-panel additions
    when: dict[str, str] | None = None
    required: bool = False
    required_when: dict[str, str] | None = None
    required_unless: tuple[str, ...] = ()
    env_overrides: tuple[str, ...] = ()
    seed_env: tuple[str, ...] = ()
    storage: str = ""
    # Constraints (ours; docs/field_constraints.md). Each defaults to "no constraint", so a 0.19.0
    # declaration accepts exactly what it accepted before. Checked on every save.
    minimum: int | float | None = None  # number: smallest accepted value (inclusive)
    maximum: int | float | None = None  # number: largest accepted value (inclusive)
    integer: bool = False  # number: whole numbers only
    pattern: str = ""  # text: a Python regular expression the whole value must match
    pattern_hint: str = ""  # text: what the pattern means, in words (shown to users)
    format: str = ""  # text: one of FORMATS
    max_length: int | None = None  # text: at most this many characters
    json_shape: dict | None = None  # json (or text with keywords): the shape the parsed value must have
    keywords: tuple[str, ...] = ()  # text: the words accepted (or JSON of ``json_shape``, if declared)
    suggestions: tuple[str, ...] = ()  # text: offered in a list while typing; any value is still accepted
    unit: str = ""  # shown beside the control and named in messages ("seconds", "tokens")

    @property
    def is_secret(self) -> bool:
        return self.kind == KIND_SECRET

    def allowed_values(self) -> set[str]:
        return {option.value for option in self.options}


@dataclass(frozen=True)
class ProviderConfigSchema:
    """A provider's whole configurable surface."""

    name: str
    label: str
    storage: str = STORAGE_FLAT_JSON
    docs_url: str = ""
    fields: tuple[ProviderField, ...] = field(default_factory=tuple)
    # memory-panel additions
    storage_path: str = ""
    storage_fallbacks: tuple[str, ...] = ()

    def inline_fields(self) -> tuple[ProviderField, ...]:
        return tuple(f for f in self.fields if f.inline)

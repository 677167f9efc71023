"""Provider-specific facts the declaration language cannot express (docs/provider_findings.md "Traps").

Only read-side help: dynamic placeholders and warnings. Values are never changed here.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from provider_schemas.config_schema import STORAGE_ENV_FILE, ProviderField
from provider_schemas.messages import message as coded
from provider_schemas.model import Model
from provider_schemas.storage import honcho as honcho_storage
from provider_schemas.storage.yaml_doc import section_of

# Keys found in a provider's storage that its 0.19.0 plugin never reads.
IGNORED_KEYS: dict[str, tuple[str, ...]] = {
    "hindsight": ("apiUrl", "bankId"),
}


def retaindb_project(home: Path) -> str:
    """The project the plugin derives when ``RETAINDB_PROJECT`` is unset."""
    base = Path(home).name
    return "default" if base in (".hermes", "") else f"hermes-{base}"


def placeholder(model: Model, f: ProviderField) -> str:
    """The field's placeholder, with values only known per home filled in."""
    name = model.schema.name
    if name == "honcho" and f.key in ("workspace", "aiPeer") and not f.placeholder and model.honcho is not None:
        return model.honcho.host
    if name == "retaindb" and f.key == "project":
        return retaindb_project(model.home)
    return f.placeholder


def ignored_keys_warnings(model: Model) -> list[tuple[str, str]]:
    """(code, message) pairs for stored keys the plugin ignores."""
    out: list[tuple[str, str]] = []
    schema = model.schema
    declared = {k for f in schema.fields for k in (f.key, *f.aliases)}
    if model.kind != STORAGE_ENV_FILE and model.primary_exists:
        for key in IGNORED_KEYS.get(schema.name, ()):
            if key in model.data and key not in declared:
                out.append(("ignored_by_plugin", coded("notice_ignored_key", file=model.primary_label, key=key)))
        # Fields kept in .env: the same key in the storage section is a leftover the plugin never reads.
        for f in schema.fields:
            if f.storage == STORAGE_ENV_FILE and f.key in model.data:
                where = model.key_path(f, f.key)
                out.append(
                    (
                        "ignored_by_plugin",
                        coded("notice_ignored_env_key", file=model.primary_label, where=where, variable=str(f.env_key)),
                    )
                )
    if schema.storage == STORAGE_ENV_FILE and model.yaml is None:
        from provider_schemas.storage.yaml_doc import read_yaml_doc

        doc = read_yaml_doc(model.home / "config.yaml", home=model.home)
        section, _problem = section_of(doc.data, f"memory.{schema.name}") if doc.error is None else (None, None)
        for key in sorted(section or {}):
            if key in declared:
                out.append(
                    (
                        "ignored_by_plugin",
                        coded("notice_ignored_yaml_key", provider=schema.name, key=key),
                    )
                )
    return out


def honcho_warnings(model: Model) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    if model.honcho is None:
        return out
    block: Mapping[str, Any] = honcho_storage.host_block(model.data, model.block)
    for where, mapping in (("host block", block), ("root", model.data)):
        if mapping.get("enabled") is False:
            out.append(("honcho_disabled", coded("notice_honcho_disabled", file=model.primary_label, where=where)))
    if model.honcho.shared == "global":
        out.append(
            (
                "shared_file",
                coded("notice_shared_global", file=model.primary_label),
            )
        )
    elif model.honcho.shared == "root":
        out.append(("shared_file", coded("notice_shared_root", file=model.primary_label)))
    return out


def hindsight_warnings(model: Model) -> list[tuple[str, str]]:
    if model.schema.name != "hindsight" or not isinstance(model.data.get("banks"), Mapping):
        return []
    return [
        (
            "legacy_banks",
            coded("notice_legacy_banks", file=model.primary_label),
        )
    ]


def openviking_warnings(model: Model) -> list[tuple[str, str]]:
    """Whether the provider can start, and the CLI profile file it would read."""
    if model.schema.name != "openviking" or model.primary_error is not None:
        return []
    from provider_schemas.storage.json_doc import read_json_doc
    from provider_schemas.values import truthy

    out: list[tuple[str, str]] = []
    use_profile = truthy(model.data.get("use_ovcli_config", False))
    if not model.env_non_empty("OPENVIKING_ENDPOINT") and not use_profile:
        out.append(
            (
                "not_available",
                coded("notice_openviking_unavailable"),
            )
        )
    if use_profile:
        raw = model.env_non_empty("OPENVIKING_CLI_CONFIG_FILE") or model.data.get("ovcli_config_path") or ""
        path = Path(str(raw)).expanduser() if raw else Path.home() / ".openviking" / "ovcli.conf"
        doc = read_json_doc(path, label=str(raw or "~/.openviking/ovcli.conf"), home=model.home)
        if not doc.exists:
            out.append(("cli_profile_missing", coded("notice_cli_profile_missing", file=doc.label)))
        elif doc.error is not None:
            out.append(
                (
                    "cli_profile_invalid",
                    coded("notice_cli_profile_invalid", file=doc.label, problem=doc.error),
                )
            )
    return out


def provider_warnings(model: Model) -> list[tuple[str, str]]:
    return [
        *ignored_keys_warnings(model),
        *honcho_warnings(model),
        *hindsight_warnings(model),
        *openviking_warnings(model),
    ]

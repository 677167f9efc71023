"""ByteRover settings: ``config.yaml`` section ``memory.byterover``.

Pure data, read by the panel's loader (or checked by its static evaluator); never imported as a
package. The plugin falls back to the legacy ``memory.provider_config`` section while
``memory.byterover`` is missing or empty.
"""

from __future__ import annotations

from provider_schemas.config_schema import (
    KIND_BOOL,
    KIND_SECRET,
    STORAGE_CONFIG_YAML,
    ProviderConfigSchema,
    ProviderField,
)

CONFIG_SCHEMA = ProviderConfigSchema(
    name="byterover",
    label="ByteRover",
    storage=STORAGE_CONFIG_YAML,
    storage_path="memory.byterover",
    storage_fallbacks=("memory.provider_config",),
    docs_url="",
    fields=(
        ProviderField(
            key="api_key",
            label="API key",
            kind=KIND_SECRET,
            env_key="BRV_API_KEY",
            description="Optional: only needed to sync your knowledge tree with ByteRover's cloud.",
            info=(
                "Hermes does not use this key itself; it hands it to the brv command-line tool, "
                "which uses it for cloud sync. Leave it empty to keep everything on this machine. "
                "ByteRover also needs the brv CLI installed where the agent runs."
            ),
            inline=True,
        ),
        ProviderField(
            key="auto_extract",
            label="Automatic curation",
            kind=KIND_BOOL,
            default="true",
            description="Let ByteRover file away what it learns after every turn.",
            info=(
                "When on, ByteRover curates knowledge after each conversation turn, copies the "
                "agent's built-in memory writes into its tree, and curates once more before a long "
                "conversation is compressed. Turn it off to only store what the agent saves on purpose."
            ),
            inline=True,
        ),
    ),
)

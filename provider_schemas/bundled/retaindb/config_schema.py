"""RetainDB settings: ``RETAINDB_*`` lines in the agent's ``.env``.

Pure data, read by the panel's loader (or checked by its static evaluator); never imported as a
package. The plugin reads nothing but these environment variables. A blank field removes its line,
because a present but empty ``RETAINDB_BASE_URL`` would break every request.
"""

from __future__ import annotations

from provider_schemas.config_schema import (
    FORMAT_URL,
    KIND_SECRET,
    KIND_TEXT,
    STORAGE_ENV_FILE,
    ProviderConfigSchema,
    ProviderField,
)

CONFIG_SCHEMA = ProviderConfigSchema(
    name="retaindb",
    label="RetainDB",
    storage=STORAGE_ENV_FILE,
    docs_url="",
    fields=(
        ProviderField(
            key="api_key",
            label="API key",
            kind=KIND_SECRET,
            env_key="RETAINDB_API_KEY",
            description="Your RetainDB API key; RetainDB stays unavailable until it is set.",
            required=True,
            inline=True,
        ),
        ProviderField(
            key="base_url",
            label="Base URL",
            kind=KIND_TEXT,
            format=FORMAT_URL,
            description="Address of the RetainDB API (default https://api.retaindb.com).",
            placeholder="https://api.retaindb.com",
            info="Only change this for a private RetainDB deployment. A trailing / is ignored.",
            env_key="RETAINDB_BASE_URL",
            inline=True,
        ),
        ProviderField(
            key="project",
            label="Project",
            kind=KIND_TEXT,
            description="RetainDB project that holds this agent's memories (blank: named after the profile).",
            placeholder="default",
            info=(
                "Left blank, the agent in ~/.hermes uses the project default and a named profile such "
                "as coder uses hermes-coder. Agents that share a project share memories."
            ),
            env_key="RETAINDB_PROJECT",
            inline=True,
        ),
    ),
)

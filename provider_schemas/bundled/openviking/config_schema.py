"""OpenViking settings: mostly ``OPENVIKING_*`` lines in ``.env``, two keys in ``config.yaml``.

Pure data, read by the panel's loader (or checked by its static evaluator); never imported as a
package. The plugin reads only ``use_ovcli_config`` and ``ovcli_config_path`` from
``memory.openviking``; connection and recall settings come from the environment, so those fields
are stored in ``.env`` (``storage=STORAGE_ENV_FILE``). A blank field removes its line, because a
present but empty variable would override the OpenViking CLI profile.
"""

from __future__ import annotations

from provider_schemas.config_schema import (
    FORMAT_PATH,
    FORMAT_URL,
    KIND_BOOL,
    KIND_NUMBER,
    KIND_SECRET,
    KIND_TEXT,
    STORAGE_CONFIG_YAML,
    STORAGE_ENV_FILE,
    ProviderConfigSchema,
    ProviderField,
)

IN_ENV_FILE = STORAGE_ENV_FILE

CONFIG_SCHEMA = ProviderConfigSchema(
    name="openviking",
    label="OpenViking",
    storage=STORAGE_CONFIG_YAML,
    storage_path="memory.openviking",
    docs_url="",
    fields=(
        # Connection
        ProviderField(
            key="endpoint",
            label="Endpoint",
            kind=KIND_TEXT,
            format=FORMAT_URL,
            description="Address of the OpenViking server (default http://127.0.0.1:1933).",
            placeholder="http://127.0.0.1:1933",
            info=(
                "OpenViking is only offered to the agent once this is filled in or the CLI profile is "
                "switched on. When set, it wins over the address in the CLI profile."
            ),
            env_key="OPENVIKING_ENDPOINT",
            storage=IN_ENV_FILE,
            inline=True,
            group="Connection",
        ),
        ProviderField(
            key="api_key",
            label="API key",
            kind=KIND_SECRET,
            env_key="OPENVIKING_API_KEY",
            description="Optional: only needed when your OpenViking server requires a key.",
            info="When set, it wins over any key in the CLI profile.",
            inline=True,
            group="Connection",
        ),
        ProviderField(
            key="account",
            label="Account",
            kind=KIND_TEXT,
            description="OpenViking account to use (default: default).",
            placeholder="default",
            env_key="OPENVIKING_ACCOUNT",
            storage=IN_ENV_FILE,
            group="Connection",
        ),
        ProviderField(
            key="user",
            label="User",
            kind=KIND_TEXT,
            description="OpenViking user within the account (default: default).",
            placeholder="default",
            env_key="OPENVIKING_USER",
            storage=IN_ENV_FILE,
            group="Connection",
        ),
        ProviderField(
            key="agent",
            label="Agent peer ID",
            kind=KIND_TEXT,
            description="Name under which this agent appears in OpenViking (default: hermes).",
            placeholder="hermes",
            env_key="OPENVIKING_AGENT",
            storage=IN_ENV_FILE,
            group="Connection",
        ),
        # CLI profile
        ProviderField(
            key="use_ovcli_config",
            label="Use OpenViking CLI profile",
            kind=KIND_BOOL,
            default="false",
            description="Take any connection settings left blank above from your OpenViking CLI profile.",
            info=(
                "The profile is the file the OpenViking command-line tool uses. Settings filled in "
                "above still win. A broken profile file stops OpenViking from starting; the panel "
                "never edits that file."
            ),
            inline=True,
            group="CLI profile",
        ),
        ProviderField(
            key="ovcli_config_path",
            label="CLI profile file",
            kind=KIND_TEXT,
            format=FORMAT_PATH,
            description="Where the CLI profile lives (default ~/.openviking/ovcli.conf).",
            placeholder="~/.openviking/ovcli.conf",
            info="An OPENVIKING_CLI_CONFIG_FILE variable in .env wins over this path.",
            env_overrides=("OPENVIKING_CLI_CONFIG_FILE",),
            when={"use_ovcli_config": "true"},
            group="CLI profile",
        ),
        # Recall
        ProviderField(
            key="recall_limit",
            label="Recall limit",
            kind=KIND_NUMBER,
            integer=True,
            minimum=1,
            maximum=100,
            unit="results",
            default="6",
            description="Most memories added to a turn (1 to 100).",
            info="Values outside the range are moved to the nearest limit; unreadable ones use the default.",
            env_key="OPENVIKING_RECALL_LIMIT",
            storage=IN_ENV_FILE,
            group="Recall",
        ),
        ProviderField(
            key="recall_score_threshold",
            label="Score threshold",
            kind=KIND_NUMBER,
            minimum=0,
            maximum=1,
            default="0.15",
            description="Leave out memories scoring below this relevance (0 to 1).",
            env_key="OPENVIKING_RECALL_SCORE_THRESHOLD",
            storage=IN_ENV_FILE,
            group="Recall",
        ),
        ProviderField(
            key="recall_max_injected_chars",
            label="Max injected chars",
            kind=KIND_NUMBER,
            integer=True,
            minimum=100,
            maximum=50000,
            unit="characters",
            default="4000",
            description="Upper limit on recalled text added to a turn (100 to 50000 characters).",
            env_key="OPENVIKING_RECALL_MAX_INJECTED_CHARS",
            storage=IN_ENV_FILE,
            group="Recall",
        ),
        ProviderField(
            key="recall_timeout_seconds",
            label="Recall timeout (s)",
            kind=KIND_NUMBER,
            minimum=0.25,
            maximum=60,
            unit="seconds",
            default="4.0",
            description="Total time allowed for recall before the turn goes on without it (0.25 to 60).",
            env_key="OPENVIKING_RECALL_TIMEOUT_SECONDS",
            storage=IN_ENV_FILE,
            group="Recall",
        ),
        ProviderField(
            key="recall_request_timeout_seconds",
            label="Request timeout (s)",
            kind=KIND_NUMBER,
            minimum=0.25,
            maximum=60,
            unit="seconds",
            default="3.0",
            description="Time allowed for each single request to the server during recall (0.25 to 60).",
            env_key="OPENVIKING_RECALL_REQUEST_TIMEOUT_SECONDS",
            storage=IN_ENV_FILE,
            group="Recall",
        ),
        ProviderField(
            key="recall_full_read_limit",
            label="Full reads",
            kind=KIND_NUMBER,
            integer=True,
            minimum=0,
            maximum=100,
            unit="results",
            default="2",
            description="How many recalled items may be read in full rather than summarised (0 to 100).",
            env_key="OPENVIKING_RECALL_FULL_READ_LIMIT",
            storage=IN_ENV_FILE,
            group="Recall",
        ),
        ProviderField(
            key="recall_prefer_abstract",
            label="Prefer abstracts",
            kind=KIND_BOOL,
            default="false",
            description="Use short abstracts of recalled items instead of their full text where possible.",
            env_key="OPENVIKING_RECALL_PREFER_ABSTRACT",
            storage=IN_ENV_FILE,
            group="Recall",
        ),
        ProviderField(
            key="recall_resources",
            label="Include resources",
            kind=KIND_BOOL,
            default="false",
            description="Also search stored resources (documents and files), not just memories.",
            env_key="OPENVIKING_RECALL_RESOURCES",
            storage=IN_ENV_FILE,
            group="Recall",
        ),
    ),
)

"""Mem0 settings: the JSON file ``mem0.json`` in the agent's home.

Pure data, read by the panel's loader (or checked by its static evaluator); never imported as a
package. The plugin starts from ``MEM0_*`` variables and overlays every key of ``mem0.json`` whose
value is neither null nor empty, so a blank field here cannot hide a value set in ``.env``.
"""

from __future__ import annotations

from provider_schemas.config_schema import (
    FORMAT_URL,
    KIND_BOOL,
    KIND_JSON,
    KIND_SECRET,
    KIND_SELECT,
    KIND_TEXT,
    STORAGE_JSON_FILE,
    ProviderConfigSchema,
    ProviderField,
    ProviderFieldOption,
)

PLATFORM_ONLY = {"mode": "platform"}

# The OSS backend is available only with a vector store; each part names its provider.
OSS_PART = {"type": "object", "properties": {"provider": {"type": "string"}, "config": {"type": "object"}}}
OSS_SHAPE = {
    "type": "object",
    "required": ["vector_store"],
    "properties": {
        "llm": OSS_PART,
        "embedder": OSS_PART,
        "vector_store": {
            "type": "object",
            "required": ["provider"],
            "properties": {"provider": {"type": "string"}, "config": {"type": "object"}},
        },
    },
}

CONFIG_SCHEMA = ProviderConfigSchema(
    name="mem0",
    label="Mem0",
    storage=STORAGE_JSON_FILE,
    storage_path="mem0.json",
    docs_url="",
    fields=(
        # Connection
        ProviderField(
            key="mode",
            label="Mode",
            kind=KIND_SELECT,
            default="platform",
            description="Use Mem0's service (or your own Mem0 server), or run Mem0 inside the agent.",
            options=(
                ProviderFieldOption(
                    "platform",
                    "Platform / self-hosted",
                    "Mem0 Platform, or your own Mem0 server when a Self-hosted URL is set.",
                ),
                ProviderFieldOption("oss", "OSS (in-process)", "Open-source Mem0 running inside the agent process."),
            ),
            info=(
                "Platform talks to Mem0's hosted service with an API key, or to your own Mem0 server "
                "when you fill in Self-hosted URL. OSS runs the open-source library inside the agent "
                "and needs the OSS backend settings."
            ),
            env_fallbacks=("MEM0_MODE",),
            inline=True,
            group="Connection",
        ),
        ProviderField(
            key="api_key",
            label="API key",
            kind=KIND_SECRET,
            env_key="MEM0_API_KEY",
            description="Your Mem0 Platform API key (not needed for a self-hosted server).",
            info=(
                "A key written directly in mem0.json takes priority over this one; when you replace "
                "the key here the panel removes that copy so the new key is the one used."
            ),
            when=PLATFORM_ONLY,
            required=True,
            required_unless=("host",),
            inline=True,
            group="Connection",
        ),
        ProviderField(
            key="host",
            label="Self-hosted URL",
            kind=KIND_TEXT,
            format=FORMAT_URL,
            description="Address of your own Mem0 server; blank uses Mem0 Platform.",
            placeholder="http://localhost:8000 (self-hosted)",
            info=(
                "Clearing this field does not undo a MEM0_HOST line in .env: the agent keeps using "
                "that server until the line is removed."
            ),
            env_fallbacks=("MEM0_HOST",),
            when=PLATFORM_ONLY,
            inline=True,
            group="Connection",
        ),
        # Identity
        ProviderField(
            key="user_id",
            label="User ID",
            kind=KIND_TEXT,
            description="Whose memories these are (blank: the chat user's ID, else hermes-user).",
            placeholder="hermes-user",
            info="The value hermes-user counts as blank.",
            env_fallbacks=("MEM0_USER_ID",),
            inline=True,
            group="Identity",
        ),
        ProviderField(
            key="agent_id",
            label="Agent ID",
            kind=KIND_TEXT,
            default="hermes",
            description="Name under which this agent's memories are filed.",
            env_fallbacks=("MEM0_AGENT_ID",),
            group="Identity",
        ),
        # Recall
        ProviderField(
            key="rerank",
            label="Rerank by default",
            kind=KIND_BOOL,
            default="false",
            description="Re-sort memory search results by relevance (Mem0 Platform only).",
            info="A better order for a little extra time; the agent can still choose for each search.",
            group="Recall",
        ),
        # OSS
        ProviderField(
            key="oss",
            label="OSS backend",
            kind=KIND_JSON,
            json_shape=OSS_SHAPE,
            description="Models and vector store for OSS mode (a JSON object).",
            placeholder=(
                '{"llm": {"provider": "openai", "config": {"model": "gpt-4o-mini"}}, '
                '"vector_store": {"provider": "qdrant", "config": {"url": "http://localhost:6333"}}}'
            ),
            info=(
                'An object with "llm" (provider openai or ollama), "embedder" and "vector_store" '
                "(provider qdrant or pgvector), each holding a provider name and its config. OSS mode "
                "only works once vector_store is set. A pgvector password written here is stored as "
                "plain text. OpenAI models use the agent's own OPENAI_API_KEY."
            ),
            when={"mode": "oss"},
            group="OSS",
        ),
    ),
)

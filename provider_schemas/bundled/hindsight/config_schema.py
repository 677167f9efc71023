"""Hindsight settings: the JSON file ``hindsight/config.json`` in the agent's home.

Pure data, read by the panel's loader (or checked by its static evaluator); never imported as a
package. While that file does not exist the plugin reads ``~/.hindsight/config.json`` or, failing
that, a few ``HINDSIGHT_*`` variables; the first save carries those over (``storage_fallbacks``,
``seed_env``) so nothing the agent currently uses is lost.
"""

from __future__ import annotations

from provider_schemas.config_schema import (
    FORMAT_URL,
    KIND_BOOL,
    KIND_JSON,
    KIND_NUMBER,
    KIND_SECRET,
    KIND_SELECT,
    KIND_TEXT,
    STORAGE_FLAT_JSON,
    ProviderConfigSchema,
    ProviderField,
    ProviderFieldOption,
)

# The seven embedded-daemon settings only matter when Hindsight runs inside the agent.
EMBEDDED_ONLY = {"mode": "local_embedded"}

LLM_PROVIDERS = (
    ProviderFieldOption("openai", "OpenAI"),
    ProviderFieldOption("anthropic", "Anthropic"),
    ProviderFieldOption("gemini", "Gemini"),
    ProviderFieldOption("groq", "Groq"),
    ProviderFieldOption("openrouter", "OpenRouter"),
    ProviderFieldOption("minimax", "MiniMax"),
    ProviderFieldOption("ollama", "Ollama"),
    ProviderFieldOption("lmstudio", "LM Studio"),
    ProviderFieldOption("openai_compatible", "OpenAI-compatible endpoint"),
)

# Observation scopes as JSON: a list of tag lists, one per consolidation pass. The plugin also
# takes a flat list of tags as one scope, and a bare tag among the lists as a scope of its own.
# It strips every tag, drops empty ones and anything neither text nor a list, and turns a number
# into text, so a tag is used as given only when it is text, non-blank and unpadded.
TAG = {"type": "string", "pattern": r"(?s)\S(?:.*\S)?"}
TAG_LIST = {"type": "array", "minItems": 1, "items": TAG}
SCOPES = {"type": "array", "minItems": 1, "items": {"anyOf": [TAG, TAG_LIST]}}

# The plugin's own model suggestions per LLM provider, offered while typing the model name.
LLM_MODELS = (
    "gpt-4o-mini",
    "claude-haiku-4-5",
    "gemini-2.5-flash",
    "openai/gpt-oss-120b",
    "qwen/qwen3.5-9b",
    "MiniMax-M2.7",
    "gemma3:12b",
    "local-model",
)

CONFIG_SCHEMA = ProviderConfigSchema(
    name="hindsight",
    label="Hindsight",
    storage=STORAGE_FLAT_JSON,
    storage_fallbacks=("~/.hindsight/config.json",),
    docs_url="",
    fields=(
        # Connection
        ProviderField(
            key="mode",
            label="Mode",
            kind=KIND_SELECT,
            default="cloud",
            description="Where the Hindsight memory server runs.",
            options=(
                ProviderFieldOption("cloud", "Cloud", "Hindsight's hosted service; needs an API key."),
                ProviderFieldOption("local_external", "Local External", "A Hindsight server you already run yourself."),
                ProviderFieldOption(
                    "local_embedded",
                    "Local Embedded",
                    "The agent starts its own Hindsight daemon on this machine.",
                ),
            ),
            info=(
                "Cloud talks to Hindsight's hosted API. Local External connects to a Hindsight server "
                "you started yourself (by default at http://localhost:8888). Local Embedded lets the "
                "agent start and stop a private Hindsight daemon; it needs the local Hindsight runtime "
                "and an LLM for fact extraction (see the Embedded mode settings), and cannot run as root."
            ),
            seed_env=("HINDSIGHT_MODE",),
            inline=True,
            group="Connection",
        ),
        ProviderField(
            key="api_key",
            label="API key",
            kind=KIND_SECRET,
            env_key="HINDSIGHT_API_KEY",
            aliases=("apiKey",),
            description="Your Hindsight Cloud API key (required in Cloud mode).",
            info=(
                "A key written directly in hindsight/config.json takes priority over this one; when "
                "you replace the key here the panel removes that copy so the new key is the one used."
            ),
            required=True,
            required_when={"mode": "cloud"},
            inline=True,
            group="Connection",
        ),
        ProviderField(
            key="api_url",
            label="API URL",
            kind=KIND_TEXT,
            format=FORMAT_URL,
            description="Address of the Hindsight server; blank uses the address that suits the mode.",
            placeholder="https://api.hindsight.vectorize.io (cloud) · http://localhost:8888 (local)",
            info=(
                "Leave blank unless your server lives somewhere unusual. Blank means "
                "https://api.hindsight.vectorize.io in Cloud mode and http://localhost:8888 in the two "
                "local modes (or the HINDSIGHT_API_URL variable, if set)."
            ),
            env_fallbacks=("HINDSIGHT_API_URL",),
            inline=True,
            group="Connection",
        ),
        ProviderField(
            key="timeout",
            label="Request timeout (s)",
            kind=KIND_NUMBER,
            integer=True,
            minimum=1,
            maximum=3600,
            unit="seconds",
            default="120",
            description="How many seconds to wait for the Hindsight server before giving up.",
            env_fallbacks=("HINDSIGHT_TIMEOUT",),
            group="Connection",
        ),
        # Bank
        ProviderField(
            key="bank_id",
            label="Bank ID",
            kind=KIND_TEXT,
            default="hermes",
            description="Name of the memory bank to use when no bank ID template is set.",
            info="A bank is one separate pool of memories. Agents that share a bank ID share memories.",
            seed_env=("HINDSIGHT_BANK_ID",),
            inline=True,
            group="Bank",
        ),
        ProviderField(
            key="bank_id_template",
            label="Bank ID template",
            kind=KIND_TEXT,
            description="Build the bank name per context instead of using one fixed bank.",
            placeholder="hermes-{profile}",
            info=(
                "Use placeholders to keep memories apart: {profile}, {workspace}, {platform}, {user} "
                "and {session}. For example hermes-{profile} gives every agent profile its own bank. "
                "Leave blank to always use the Bank ID above."
            ),
            group="Bank",
        ),
        ProviderField(
            key="bank_mission",
            label="Bank mission",
            kind=KIND_TEXT,
            description="A short statement of what this memory bank is for; blank uses Hindsight's own.",
            info="Hindsight uses the mission to decide what is worth remembering and how to reflect on it.",
            group="Bank",
        ),
        ProviderField(
            key="bank_retain_mission",
            label="Retain mission",
            kind=KIND_TEXT,
            description="Custom instructions for pulling facts out of conversations; blank uses the default.",
            group="Bank",
        ),
        # Recall
        ProviderField(
            key="recall_budget",
            label="Recall budget",
            kind=KIND_SELECT,
            default="mid",
            description="How much effort Hindsight spends searching memories for each recall.",
            options=(
                ProviderFieldOption("low", "low"),
                ProviderFieldOption("mid", "mid"),
                ProviderFieldOption("high", "high"),
            ),
            info="Higher budgets find more relevant memories but take longer and cost more.",
            aliases=("budget",),
            seed_env=("HINDSIGHT_BUDGET",),
            inline=True,
            group="Recall",
        ),
        ProviderField(
            key="memory_mode",
            label="Memory mode",
            kind=KIND_SELECT,
            default="hybrid",
            description="How the agent gets its memories: injected automatically, via tools, or both.",
            options=(
                ProviderFieldOption("hybrid", "Hybrid", "Memories are injected and tools are offered."),
                ProviderFieldOption("context", "Context only", "Memories are injected; no memory tools."),
                ProviderFieldOption("tools", "Tools only", "Nothing injected; the agent asks when it wants."),
            ),
            group="Recall",
        ),
        ProviderField(
            key="recall_prefetch_method",
            label="Auto-recall method",
            kind=KIND_SELECT,
            default="recall",
            description="How memories are fetched before each turn.",
            options=(
                ProviderFieldOption("recall", "Recall", "Return the matching memories themselves."),
                ProviderFieldOption("reflect", "Reflect", "Return a summary reasoned over the memories."),
            ),
            aliases=("prefetch_method",),
            group="Recall",
        ),
        ProviderField(
            key="auto_recall",
            label="Auto recall",
            kind=KIND_BOOL,
            default="true",
            description="Look up relevant memories automatically before each turn.",
            group="Recall",
        ),
        ProviderField(
            key="recall_max_tokens",
            label="Max recall tokens",
            kind=KIND_NUMBER,
            integer=True,
            minimum=1,
            maximum=100000,
            unit="tokens",
            default="4096",
            description="Upper limit on how much recalled text is added to the conversation.",
            info="A whole number. A value that is not a number stops the provider from starting.",
            group="Recall",
        ),
        ProviderField(
            key="recall_max_input_chars",
            label="Max recall query chars",
            kind=KIND_NUMBER,
            integer=True,
            minimum=0,
            maximum=100000,
            unit="characters",
            default="800",
            description="Longest piece of the user's message sent as the search query (0: the whole message).",
            group="Recall",
        ),
        ProviderField(
            key="recall_types",
            label="Recall fact types",
            kind=KIND_TEXT,
            default="observation",
            description="Which kinds of facts to recall, separated by commas.",
            placeholder="observation,world,experience",
            info=(
                "Hindsight stores observations, world facts and experiences. List the ones the agent "
                "should see, e.g. observation,world,experience. Clearing the field goes back to "
                "observation only."
            ),
            group="Recall",
        ),
        ProviderField(
            key="recall_tags",
            label="Recall tag filter",
            kind=KIND_JSON,
            json_shape={"type": "array", "items": {"type": "string"}},
            description="Only recall memories carrying these tags (a JSON list); blank means no filter.",
            placeholder='["project:hermes"]',
            info='Write a JSON list of tag strings, for example ["project:hermes", "team:core"].',
            group="Recall",
        ),
        ProviderField(
            key="recall_tags_match",
            label="Tag match",
            kind=KIND_SELECT,
            default="any",
            description="How the tag filter is applied.",
            options=(
                ProviderFieldOption("any", "Any", "At least one of the tags, or untagged."),
                ProviderFieldOption("all", "All", "Every one of the tags, or untagged."),
                ProviderFieldOption("any_strict", "Any (strict)", "At least one of the tags; no untagged."),
                ProviderFieldOption("all_strict", "All (strict)", "Every one of the tags; no untagged."),
            ),
            group="Recall",
        ),
        ProviderField(
            key="recall_prompt_preamble",
            label="Recall preamble",
            kind=KIND_TEXT,
            description="Text placed before recalled memories in the prompt; blank uses the built-in one.",
            group="Recall",
        ),
        # Retain
        ProviderField(
            key="auto_retain",
            label="Auto retain",
            kind=KIND_BOOL,
            default="true",
            description="Send conversations to Hindsight automatically so it can learn from them.",
            group="Retain",
        ),
        ProviderField(
            key="retain_async",
            label="Asynchronous retain",
            kind=KIND_BOOL,
            default="true",
            description="Let Hindsight process stored conversations in the background.",
            info="Keeps the agent responsive; turn off only if memories must be ready immediately.",
            group="Retain",
        ),
        ProviderField(
            key="retain_every_n_turns",
            label="Retain every N turns",
            kind=KIND_NUMBER,
            integer=True,
            minimum=1,
            maximum=1000,
            unit="turns",
            default="1",
            description="Store the conversation after every N turns (at least 1).",
            group="Retain",
        ),
        ProviderField(
            key="retain_context",
            label="Retain context label",
            kind=KIND_TEXT,
            default="conversation between Hermes Agent and the User",
            description="Short description attached to every stored conversation.",
            group="Retain",
        ),
        ProviderField(
            key="retain_tags",
            label="Retain tags",
            kind=KIND_TEXT,
            description="Tags added to everything stored, separated by commas; blank adds none.",
            placeholder="project:hermes, team:core",
            info='Either a comma-separated list or a JSON list such as ["project:hermes"].',
            env_fallbacks=("HINDSIGHT_RETAIN_TAGS",),
            group="Retain",
        ),
        ProviderField(
            key="observation_scopes",
            label="Observation scopes",
            kind=KIND_TEXT,
            keywords=("per_tag", "combined", "all_combinations"),
            json_shape=SCOPES,
            description="How tagged memories are grouped into observations (Hindsight default: combined).",
            placeholder="combined",
            info=(
                "combined: one pass over all tags together. per_tag: separate observations for each "
                "tag. all_combinations: every combination of tags (slow and costly). Or give JSON: a "
                'list of tags, e.g. ["project:hermes", "team:core"], is one scope of those tags together; '
                'a list of tag lists, e.g. [["project:hermes"], ["team:core"]], is one scope per inner list.'
            ),
            env_fallbacks=("HINDSIGHT_RETAIN_OBSERVATION_SCOPES",),
            group="Retain",
        ),
        ProviderField(
            key="retain_source",
            label="Retain source",
            kind=KIND_TEXT,
            description="Optional label recording where stored conversations came from.",
            env_fallbacks=("HINDSIGHT_RETAIN_SOURCE",),
            group="Retain",
        ),
        ProviderField(
            key="retain_user_prefix",
            label="User label",
            kind=KIND_TEXT,
            default="User",
            description="Name given to the user's lines in stored conversations.",
            env_fallbacks=("HINDSIGHT_RETAIN_USER_PREFIX",),
            group="Retain",
        ),
        ProviderField(
            key="retain_assistant_prefix",
            label="Assistant label",
            kind=KIND_TEXT,
            default="Assistant",
            description="Name given to the agent's lines in stored conversations.",
            env_fallbacks=("HINDSIGHT_RETAIN_ASSISTANT_PREFIX",),
            group="Retain",
        ),
        # Embedded mode
        ProviderField(
            key="llm_provider",
            label="LLM provider",
            kind=KIND_SELECT,
            default="openai",
            description="Which language-model service the embedded daemon uses to extract facts.",
            options=LLM_PROVIDERS,
            info=(
                "The plugin itself has no default here, so when you switch to Local Embedded save "
                "the provider and the model together."
            ),
            when=EMBEDDED_ONLY,
            group="Embedded mode",
        ),
        ProviderField(
            key="llm_model",
            label="LLM model",
            kind=KIND_TEXT,
            suggestions=LLM_MODELS,
            description="Model name at that provider.",
            placeholder="e.g. gpt-4o-mini",
            info=(
                "Typical choices: OpenAI gpt-4o-mini, Anthropic claude-haiku-4-5, Gemini "
                "gemini-2.5-flash, Groq openai/gpt-oss-120b, OpenRouter qwen/qwen3.5-9b, MiniMax "
                "MiniMax-M2.7, Ollama gemma3:12b, LM Studio local-model, OpenAI-compatible: your "
                "server's model name."
            ),
            when=EMBEDDED_ONLY,
            group="Embedded mode",
        ),
        ProviderField(
            key="llm_base_url",
            label="LLM base URL",
            kind=KIND_TEXT,
            format=FORMAT_URL,
            description="Address of the LLM service; blank uses the provider's usual address.",
            placeholder="https://openrouter.ai/api/v1",
            info=(
                "Needed for OpenRouter (https://openrouter.ai/api/v1), OpenAI-compatible servers and "
                "local runners on a non-standard port."
            ),
            env_fallbacks=("HINDSIGHT_API_LLM_BASE_URL",),
            when=EMBEDDED_ONLY,
            group="Embedded mode",
        ),
        ProviderField(
            key="llm_api_key",
            label="LLM API key",
            kind=KIND_SECRET,
            env_key="HINDSIGHT_LLM_API_KEY",
            aliases=("llmApiKey",),
            description="API key for the LLM provider (not needed for Ollama or LM Studio).",
            when=EMBEDDED_ONLY,
            group="Embedded mode",
        ),
        ProviderField(
            key="idle_timeout",
            label="Daemon idle timeout (s)",
            kind=KIND_NUMBER,
            integer=True,
            minimum=0,
            maximum=86400,
            unit="seconds",
            default="300",
            description="Stop the embedded daemon after this many idle seconds; 0 keeps it running.",
            env_fallbacks=("HINDSIGHT_IDLE_TIMEOUT",),
            when=EMBEDDED_ONLY,
            group="Embedded mode",
        ),
        ProviderField(
            key="port_health_grace_timeout",
            label="Daemon health grace (s)",
            kind=KIND_NUMBER,
            minimum=0,
            maximum=3600,
            unit="seconds",
            description="Seconds to wait for a starting daemon to answer (plugin default 30; 0 or more).",
            placeholder="30",
            env_overrides=("HINDSIGHT_EMBED_PORT_HEALTH_GRACE_TIMEOUT",),
            when=EMBEDDED_ONLY,
            group="Embedded mode",
        ),
        ProviderField(
            key="profile",
            label="Embedded profile",
            kind=KIND_TEXT,
            default="hermes",
            description="Name of the embedded daemon's profile.",
            info="Different agents that use different profile names get separate daemons.",
            when=EMBEDDED_ONLY,
            group="Embedded mode",
        ),
    ),
)

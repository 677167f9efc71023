"""Honcho settings: the active host block of Honcho's JSON config file.

Pure data, read by the panel's loader (or checked by its static evaluator); never imported as a
package. The file is the first that exists of ``$HERMES_HOME/honcho.json``, the default profile's
``honcho.json`` and ``~/.honcho/config.json``; most keys live in ``hosts.<host>``, the few with
``scope="root"`` at the top level, where every host in the file shares them.
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
    STORAGE_HONCHO_HOST_BLOCK,
    ProviderConfigSchema,
    ProviderField,
    ProviderFieldOption,
)

# Reasoning levels, weakest first; shared by the level select and its cap.
REASONING_LEVELS = (
    ProviderFieldOption("minimal", "Minimal"),
    ProviderFieldOption("low", "Low"),
    ProviderFieldOption("medium", "Medium"),
    ProviderFieldOption("high", "High"),
    ProviderFieldOption("max", "Max"),
)

# What the plugin reads from the JSON fields (docs/provider_findings.md, honcho).
# A map of non-empty text to non-empty text (other values are turned into text or dropped).
STRING_MAP = {"type": "object", "additionalProperties": {"type": "string", "pattern": r"(?s).*\S.*"}}
PEER_OBSERVATION = {
    "type": "object",
    "properties": {"observeMe": {"type": "boolean"}, "observeOthers": {"type": "boolean"}},
    "additionalProperties": False,
}
OBSERVATION_SHAPE = {
    "type": "object",
    "properties": {"user": PEER_OBSERVATION, "ai": PEER_OBSERVATION},
    "additionalProperties": False,
}

ROOT = "root"

CONFIG_SCHEMA = ProviderConfigSchema(
    name="honcho",
    label="Honcho",
    storage=STORAGE_HONCHO_HOST_BLOCK,
    docs_url="https://docs.honcho.dev/v3/guides/integrations/hermes",
    fields=(
        # Connection
        ProviderField(
            key="apiKey",
            label="API key",
            kind=KIND_SECRET,
            env_key="HONCHO_API_KEY",
            description="Your Honcho Cloud key; not needed when a self-hosted Base URL is set.",
            placeholder="Enter Honcho API key",
            info=(
                "Stored in the secret store and, with the .env store, also copied into this host's "
                "block so it beats an older key left at the top of the file. A signed-in OAuth token "
                "(starting with hch-at-) is never touched and takes precedence."
            ),
            required=True,
            required_unless=("baseUrl",),
            inline=True,
            group="Connection",
        ),
        ProviderField(
            key="baseUrl",
            label="Base URL",
            kind=KIND_TEXT,
            format=FORMAT_URL,
            description="Address of your own Honcho server; blank uses Honcho Cloud.",
            placeholder="https://… (self-hosted)",
            info=(
                "Shared by every host in the file. A server on this machine or your local network "
                "works without an API key. A trailing version such as /v3 is removed automatically."
            ),
            aliases=("base_url",),
            env_fallbacks=("HONCHO_BASE_URL",),
            scope=ROOT,
            inline=True,
            group="Connection",
        ),
        ProviderField(
            key="environment",
            label="Environment",
            kind=KIND_SELECT,
            default="production",
            description="Which Honcho environment to talk to.",
            options=(
                ProviderFieldOption("production", "Cloud"),
                ProviderFieldOption("local", "Local"),
            ),
            seed_env=("HONCHO_ENVIRONMENT",),
            inline=True,
            group="Connection",
        ),
        ProviderField(
            key="workspace",
            label="Workspace",
            kind=KIND_TEXT,
            description="Honcho workspace holding this agent's data (default: the host key).",
            info="Agents that use the same workspace can see the same peers and sessions.",
            inline=True,
            group="Connection",
        ),
        ProviderField(
            key="timeout",
            label="Request timeout",
            kind=KIND_NUMBER,
            minimum=0.1,
            maximum=600,
            unit="seconds",
            description="Seconds to wait for Honcho before giving up (plugin default 30).",
            placeholder="30",
            info=(
                "Saved for this host only. A value at the top of the file, HONCHO_TIMEOUT or the "
                "honcho section of config.yaml applies when this is blank."
            ),
            aliases=("requestTimeout",),
            env_fallbacks=("HONCHO_TIMEOUT",),
            group="Connection",
        ),
        # Identity
        ProviderField(
            key="peerName",
            label="Peer name",
            kind=KIND_TEXT,
            description="Name Honcho uses for you, the user.",
            placeholder="e.g. eri",
            inline=True,
            group="Identity",
        ),
        ProviderField(
            key="aiPeer",
            label="AI peer",
            kind=KIND_TEXT,
            description="Name Honcho uses for the agent itself (default: the host key).",
            inline=True,
            group="Identity",
        ),
        ProviderField(
            key="pinUserPeer",
            label="Pin user peer",
            kind=KIND_BOOL,
            default="false",
            description="Always use the Peer name above, whichever chat platform the message came from.",
            info="Turn on to merge what Honcho learns about you from every platform into one peer.",
            aliases=("pinPeerName",),
            group="Identity",
        ),
        ProviderField(
            key="runtimePeerPrefix",
            label="Runtime peer prefix",
            kind=KIND_TEXT,
            description="Text put in front of user peer names created on the fly for chat platforms.",
            placeholder="e.g. telegram_",
            group="Identity",
        ),
        ProviderField(
            key="userPeerAliases",
            label="User peer aliases",
            kind=KIND_JSON,
            json_shape=STRING_MAP,
            description="Map platform user IDs to one peer name (a JSON object).",
            placeholder='{"telegram_123": "eri"}',
            info=(
                "Lets several accounts count as the same person. When set here it replaces any map at "
                "the top of the file completely; the two are not combined."
            ),
            group="Identity",
        ),
        # Session
        ProviderField(
            key="sessionStrategy",
            label="Session strategy",
            kind=KIND_SELECT,
            default="per-directory",
            description="Which conversations share one Honcho session.",
            options=(
                ProviderFieldOption("per-session", "Per session"),
                ProviderFieldOption("per-directory", "Per directory"),
                ProviderFieldOption("per-repo", "Per repo"),
                ProviderFieldOption("global", "Global"),
            ),
            info=(
                "Per session: every conversation gets its own Honcho session. Per directory / Per "
                "repo: conversations from the same working directory / git repo share one. Global: "
                "everything shares one."
            ),
            inline=True,
            group="Session",
        ),
        ProviderField(
            key="sessionPeerPrefix",
            label="Session peer prefix",
            kind=KIND_BOOL,
            default="false",
            description="Put the peer name in front of session names.",
            info="Useful when several people share one workspace, so their sessions stay apart.",
            group="Session",
        ),
        ProviderField(
            key="sessions",
            label="Session overrides",
            kind=KIND_JSON,
            json_shape=STRING_MAP,
            description="Fixed Honcho session names for particular keys (a JSON object).",
            placeholder='{"key": "session-id"}',
            info="Shared by every host in the file; for example map a project folder to a session name.",
            scope=ROOT,
            group="Session",
        ),
        # Message writing
        ProviderField(
            key="writeFrequency",
            label="Write frequency",
            kind=KIND_TEXT,
            pattern=r"async|turn|session|[1-9][0-9]{0,5}",
            pattern_hint="async, turn, session, or a whole number of turns such as 3",
            suggestions=("async", "turn", "session"),
            default="async",
            description="When messages are sent to Honcho: async, turn, session or a number.",
            placeholder="async",
            info=(
                "async: write in the background; turn: flush after each turn; session: flush at the "
                "end; N: every N turns."
            ),
            group="Message writing",
        ),
        # Dialectic
        ProviderField(
            key="dialecticReasoningLevel",
            label="Reasoning level",
            kind=KIND_SELECT,
            default="low",
            description="How hard Honcho thinks when the agent asks it about you.",
            options=REASONING_LEVELS,
            info="Higher levels give more thoughtful answers but are slower and cost more.",
            group="Dialectic",
        ),
        ProviderField(
            key="dialecticDynamic",
            label="Dynamic reasoning",
            kind=KIND_BOOL,
            default="true",
            description="Let the agent pick the reasoning level itself when it asks Honcho directly.",
            info="When off, every question uses the Reasoning level above.",
            group="Dialectic",
        ),
        ProviderField(
            key="dialecticMaxChars",
            label="Max result chars",
            kind=KIND_NUMBER,
            integer=True,
            minimum=1,
            maximum=100000,
            unit="characters",
            description="Longest answer from Honcho that is added to the conversation (plugin default 600).",
            placeholder="600",
            group="Dialectic",
        ),
        ProviderField(
            key="dialecticDepth",
            label="Depth",
            kind=KIND_NUMBER,
            integer=True,
            minimum=1,
            maximum=3,
            unit="passes",
            description="How many passes Honcho makes for each answer, 1 to 3 (plugin default 1).",
            info="1: a single answer. 2: adds a self-check. 3: adds a final reconciliation pass.",
            placeholder="1",
            group="Dialectic",
        ),
        ProviderField(
            key="dialecticDepthLevels",
            label="Per-pass levels",
            kind=KIND_JSON,
            json_shape={"type": "array", "minItems": 1, "items": {"enum": ["minimal", "low", "medium", "high", "max"]}},
            description="Reasoning level for each pass, as a JSON list (blank: based on the level above).",
            placeholder='["low", "medium"]',
            info='One entry per pass, each one of "minimal", "low", "medium", "high", "max".',
            group="Dialectic",
        ),
        ProviderField(
            key="dialecticMaxInputChars",
            label="Max input chars",
            kind=KIND_NUMBER,
            integer=True,
            minimum=1,
            maximum=100000,
            unit="characters",
            description="Longest question sent to Honcho; longer ones are cut (plugin default 10000).",
            placeholder="10000",
            group="Dialectic",
        ),
        ProviderField(
            key="dialecticCadence",
            label="Dialectic cadence",
            kind=KIND_NUMBER,
            integer=True,
            minimum=1,
            maximum=1000,
            unit="turns",
            description="Ask Honcho about the user at most every N turns (plugin default 1).",
            placeholder="1",
            group="Dialectic",
        ),
        ProviderField(
            key="firstTurnDialecticWait",
            label="First-turn dialectic wait (s)",
            kind=KIND_NUMBER,
            minimum=0,
            maximum=60,
            unit="seconds",
            description="On the first turn, wait this long for Honcho's answer (plugin default 2.0).",
            info="0 means no wait: the answer is used from a later turn on.",
            placeholder="2.0",
            group="Dialectic",
        ),
        # Reasoning
        ProviderField(
            key="reasoningHeuristic",
            label="Reasoning heuristic",
            kind=KIND_BOOL,
            default="true",
            description="Raise the reasoning level automatically for longer messages.",
            group="Reasoning",
        ),
        ProviderField(
            key="reasoningLevelCap",
            label="Reasoning level cap",
            kind=KIND_SELECT,
            default="high",
            description="The highest reasoning level the automatic choice may reach.",
            options=REASONING_LEVELS,
            group="Reasoning",
        ),
        # Recall
        ProviderField(
            key="recallMode",
            label="Recall mode",
            kind=KIND_SELECT,
            default="hybrid",
            description="How the agent gets what Honcho knows: injected, via tools, or both.",
            options=(
                ProviderFieldOption("hybrid", "Hybrid"),
                ProviderFieldOption("context", "Context only"),
                ProviderFieldOption("tools", "Tools only"),
            ),
            info=(
                "Hybrid: injected context plus memory tools. Context only: injection without tools. "
                "Tools only: nothing injected."
            ),
            group="Recall",
        ),
        ProviderField(
            key="contextTokens",
            label="Context token cap",
            kind=KIND_NUMBER,
            integer=True,
            minimum=1,
            maximum=100000,
            unit="tokens",
            description="Upper limit on the size of injected context, in tokens (blank: no limit).",
            placeholder="(uncapped)",
            group="Recall",
        ),
        ProviderField(
            key="contextCadence",
            label="Context cadence",
            kind=KIND_NUMBER,
            integer=True,
            minimum=1,
            maximum=1000,
            unit="turns",
            description="Refresh the injected context every N turns (plugin default 1).",
            placeholder="1",
            group="Recall",
        ),
        ProviderField(
            key="injectionFrequency",
            label="Injection frequency",
            kind=KIND_SELECT,
            default="every-turn",
            description="Whether context is injected on every turn or only the first.",
            options=(
                ProviderFieldOption("every-turn", "Every turn"),
                ProviderFieldOption("first-turn", "First turn only"),
            ),
            group="Recall",
        ),
        ProviderField(
            key="firstTurnBaseWait",
            label="First-turn context wait (s)",
            kind=KIND_NUMBER,
            minimum=0,
            maximum=60,
            unit="seconds",
            description="On the first turn, wait this long for context to arrive (plugin default 3.0).",
            info="0 means no wait: the context is used from a later turn on.",
            placeholder="3.0",
            group="Recall",
        ),
        ProviderField(
            key="queryRewrite",
            label="Query rewrite",
            kind=KIND_BOOL,
            default="false",
            description="Let a language model turn the latest message into a better question for Honcho.",
            info="Can find better matches, at the cost of one extra model call each time.",
            group="Recall",
        ),
        ProviderField(
            key="initOnSessionStart",
            label="Eager init",
            kind=KIND_BOOL,
            default="false",
            description="In Tools only mode, set up the session at start instead of at the first tool call.",
            group="Recall",
        ),
        # Limits
        ProviderField(
            key="messageMaxChars",
            label="Message max chars",
            kind=KIND_NUMBER,
            integer=True,
            minimum=1,
            maximum=1000000,
            unit="characters",
            description="Longer messages are sent to Honcho in pieces of this size (plugin default 25000).",
            info="Honcho Cloud takes up to 25000 characters per message; change it only for your own server.",
            placeholder="25000",
            group="Limits",
        ),
        # Observation
        ProviderField(
            key="observationMode",
            label="Observation mode",
            kind=KIND_SELECT,
            description="Which observations Honcho makes about the user and the agent (a preset).",
            options=(
                ProviderFieldOption(
                    "directional", "Directional", "Everything: both peers observe themselves and each other."
                ),
                ProviderFieldOption(
                    "unified", "Unified", "Lighter: the user observes only themselves, the agent the others."
                ),
            ),
            info=(
                "Left blank, the plugin uses Unified as soon as this host has any saved setting (or "
                "the file says enabled: true) and Directional otherwise, so the first save here can "
                "switch it. Choose a value to pin it."
            ),
            group="Observation",
        ),
        ProviderField(
            key="observation",
            label="Observation (granular)",
            kind=KIND_JSON,
            json_shape=OBSERVATION_SHAPE,
            description="Fine-grained control of who observes whom (a JSON object); overrides the mode.",
            placeholder='{"user": {"observeMe": true, "observeOthers": true}, "ai": {"observeMe": true}}',
            info=(
                'An object with "user" and "ai" entries, each with observeMe / observeOthers set to '
                "true or false. When set it takes precedence over Observation mode."
            ),
            group="Observation",
        ),
    ),
)

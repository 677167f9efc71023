"""Supermemory settings: the JSON file ``supermemory.json`` in the agent's home.

Pure data, read by the panel's loader (or checked by its static evaluator); never imported as a
package. The plugin overlays every non-null key of that file on its built-in defaults; the API
key comes from ``SUPERMEMORY_API_KEY`` and ``SUPERMEMORY_CONTAINER_TAG`` beats the stored tag.
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
    STORAGE_JSON_FILE,
    ProviderConfigSchema,
    ProviderField,
    ProviderFieldOption,
)

WITH_CUSTOM_CONTAINERS = {"enable_custom_container_tags": "true"}

# The plugin rewrites a tag to letters, digits and single inner underscores; a tag already in that
# form is used as typed. ``{identity}`` (the profile name) is filled in before that rewrite.
TAG_PATTERN = r"(?!_)(?!.*__)(?!.*_$)(?:[A-Za-z0-9_]|\{identity\})+"
PLAIN_TAG = r"[A-Za-z0-9]+(?:_[A-Za-z0-9]+)*"

CONFIG_SCHEMA = ProviderConfigSchema(
    name="supermemory",
    label="Supermemory",
    storage=STORAGE_JSON_FILE,
    storage_path="supermemory.json",
    docs_url="",
    fields=(
        # Connection
        ProviderField(
            key="api_key",
            label="API key",
            kind=KIND_SECRET,
            env_key="SUPERMEMORY_API_KEY",
            description="Your Supermemory API key; Supermemory stays unavailable until it is set.",
            required=True,
            inline=True,
            group="Connection",
        ),
        ProviderField(
            key="container_tag",
            label="Container tag",
            kind=KIND_TEXT,
            pattern=TAG_PATTERN,
            pattern_hint=(
                "a tag of letters, digits and single underscores, with no underscore at either end; "
                "{identity} may be used"
            ),
            default="hermes",
            description="The Supermemory container (memory space) this agent uses.",
            info=(
                "{identity} is replaced by the agent's profile name, so hermes_{identity} gives each "
                "profile its own space. Characters other than letters, digits and _ become _ when "
                "the agent starts. A SUPERMEMORY_CONTAINER_TAG variable in .env wins over this value."
            ),
            env_overrides=("SUPERMEMORY_CONTAINER_TAG",),
            inline=True,
            group="Connection",
        ),
        ProviderField(
            key="base_url",
            label="Base URL",
            kind=KIND_TEXT,
            format=FORMAT_URL,
            description="Address of the Supermemory API (default https://api.supermemory.ai).",
            placeholder="https://api.supermemory.ai",
            info="Only change this for a private Supermemory deployment. A trailing / is ignored.",
            env_fallbacks=("SUPERMEMORY_BASE_URL",),
            group="Connection",
        ),
        ProviderField(
            key="api_timeout",
            label="API timeout (s)",
            kind=KIND_NUMBER,
            minimum=0.5,
            maximum=15,
            unit="seconds",
            default="5.0",
            description="How long to wait for Supermemory before giving up (0.5 to 15 seconds).",
            group="Connection",
        ),
        # Recall
        ProviderField(
            key="auto_recall",
            label="Auto recall",
            kind=KIND_BOOL,
            default="true",
            description="Add relevant memories to the conversation automatically before each turn.",
            inline=True,
            group="Recall",
        ),
        # Capture
        ProviderField(
            key="auto_capture",
            label="Auto capture",
            kind=KIND_BOOL,
            default="true",
            description="Send conversations to Supermemory automatically so it can learn from them.",
            inline=True,
            group="Capture",
        ),
        ProviderField(
            key="capture_mode",
            label="Capture mode",
            kind=KIND_SELECT,
            default="all",
            description="Whether very short or trivial turns are captured too.",
            options=(
                ProviderFieldOption("all", "All", "Capture conversations, skipping tiny or trivial turns."),
                ProviderFieldOption("everything", "Everything", "Capture every turn, however small."),
            ),
            group="Capture",
        ),
        ProviderField(
            key="search_mode",
            label="Search mode",
            kind=KIND_SELECT,
            default="hybrid",
            description="What recall searches: remembered facts, stored documents, or both.",
            options=(
                ProviderFieldOption("hybrid", "Hybrid", "Memories and documents."),
                ProviderFieldOption("memories", "Memories", "Only remembered facts."),
                ProviderFieldOption("documents", "Documents", "Only stored documents."),
            ),
            group="Recall",
        ),
        ProviderField(
            key="max_recall_results",
            label="Max recall results",
            kind=KIND_NUMBER,
            integer=True,
            minimum=1,
            maximum=20,
            unit="results",
            default="10",
            description="Most memories added to a turn (1 to 20).",
            group="Recall",
        ),
        ProviderField(
            key="profile_frequency",
            label="Profile frequency (turns)",
            kind=KIND_NUMBER,
            integer=True,
            minimum=1,
            maximum=500,
            unit="turns",
            default="50",
            description="Include the user's profile facts on the first turn, then every N turns (1 to 500).",
            group="Recall",
        ),
        ProviderField(
            key="entity_context",
            label="Extraction guidance",
            kind=KIND_TEXT,
            max_length=1500,
            description="Tells Supermemory what is worth remembering (blank: built-in guidance).",
            info="May span several lines; only the first 1500 characters are used.",
            group="Capture",
        ),
        # Containers
        ProviderField(
            key="enable_custom_container_tags",
            label="Custom containers",
            kind=KIND_BOOL,
            default="false",
            description="Let the agent also read and write extra containers you list.",
            group="Containers",
        ),
        ProviderField(
            key="custom_containers",
            label="Extra containers",
            kind=KIND_JSON,
            json_shape={"type": "array", "items": {"type": "string", "pattern": PLAIN_TAG}},
            description="Additional container tags the agent may use (a JSON list).",
            placeholder='["work", "family"]',
            when=WITH_CUSTOM_CONTAINERS,
            group="Containers",
        ),
        ProviderField(
            key="custom_container_instructions",
            label="Container instructions",
            kind=KIND_TEXT,
            description="Tell the agent when to use each extra container.",
            placeholder="Use work for job topics and family for home life.",
            when=WITH_CUSTOM_CONTAINERS,
            group="Containers",
        ),
    ),
)

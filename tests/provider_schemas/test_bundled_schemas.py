"""The eight bundled provider schemas declare exactly what docs/provider_findings.md specifies.

The expected tables below are transcribed from docs/provider_findings.md (one row per
field: key, label, kind, default, plus every non-default attribute the findings name). A schema that
drifts from the findings (a renamed key, a lost alias, a default changed, an env variable misspelt)
fails here, before it can write a value where the 0.19.0 plugin does not read it.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest

import provider_schemas
from provider_schemas import config_schema as cs

BUNDLED_DIR = Path(provider_schemas.__file__).resolve().parent / "bundled"
BUNDLED = (
    "byterover",
    "hindsight",
    "holographic",
    "honcho",
    "mem0",
    "openviking",
    "retaindb",
    "supermemory",
)

# Attributes a row may name; anything not named must keep the ProviderField default, except the
# placeholder, which the findings only fix where they quote one (the schemas add helpful others).
_CHECKED_ATTRS = (
    "options",
    "env_key",
    "aliases",
    "env_fallbacks",
    "env_overrides",
    "seed_env",
    "when",
    "required",
    "required_when",
    "required_unless",
    "inline",
    "group",
    "placeholder",
    "scope",
    "storage",
)


def row(key: str, label: str, kind: str, default: str = "", **attrs: Any) -> dict[str, Any]:
    return {"key": key, "label": label, "kind": kind, "default": default, **attrs}


def opts(*pairs: str) -> tuple[tuple[str, str], ...]:
    """`opts("a=A", "b=B")` -> (("a", "A"), ("b", "B")); a bare value is its own label."""
    out = []
    for pair in pairs:
        value, _, label = pair.partition("=")
        out.append((value, label or value))
    return tuple(out)


EMBEDDED = {"mode": "local_embedded"}
LEVELS = opts("minimal=Minimal", "low=Low", "medium=Medium", "high=High", "max=Max")
ENV = "env_file"

EXPECTED: dict[str, dict[str, Any]] = {
    "byterover": {
        "label": "ByteRover",
        "storage": "config_yaml",
        "storage_path": "memory.byterover",
        "storage_fallbacks": ("memory.provider_config",),
        "docs_url": "",
        "fields": [
            row("api_key", "API key", "secret", env_key="BRV_API_KEY", inline=True),
            row("auto_extract", "Automatic curation", "bool", "true", inline=True),
        ],
    },
    "hindsight": {
        "label": "Hindsight",
        "storage": "flat_json",
        "storage_path": "",
        "storage_fallbacks": ("~/.hindsight/config.json",),
        "docs_url": "",
        "fields": [
            row(
                "mode",
                "Mode",
                "select",
                "cloud",
                options=opts("cloud=Cloud", "local_external=Local External", "local_embedded=Local Embedded"),
                seed_env=("HINDSIGHT_MODE",),
                inline=True,
                group="Connection",
            ),
            row(
                "api_key",
                "API key",
                "secret",
                env_key="HINDSIGHT_API_KEY",
                aliases=("apiKey",),
                required=True,
                required_when={"mode": "cloud"},
                inline=True,
                group="Connection",
            ),
            row("api_url", "API URL", "text", env_fallbacks=("HINDSIGHT_API_URL",), inline=True, group="Connection"),
            row(
                "timeout",
                "Request timeout (s)",
                "number",
                "120",
                env_fallbacks=("HINDSIGHT_TIMEOUT",),
                group="Connection",
            ),
            row("bank_id", "Bank ID", "text", "hermes", seed_env=("HINDSIGHT_BANK_ID",), inline=True, group="Bank"),
            row("bank_id_template", "Bank ID template", "text", group="Bank"),
            row("bank_mission", "Bank mission", "text", group="Bank"),
            row("bank_retain_mission", "Retain mission", "text", group="Bank"),
            row(
                "recall_budget",
                "Recall budget",
                "select",
                "mid",
                options=opts("low", "mid", "high"),
                aliases=("budget",),
                seed_env=("HINDSIGHT_BUDGET",),
                inline=True,
                group="Recall",
            ),
            row(
                "memory_mode",
                "Memory mode",
                "select",
                "hybrid",
                options=opts("hybrid=Hybrid", "context=Context only", "tools=Tools only"),
                group="Recall",
            ),
            row(
                "recall_prefetch_method",
                "Auto-recall method",
                "select",
                "recall",
                options=opts("recall=Recall", "reflect=Reflect"),
                aliases=("prefetch_method",),
                group="Recall",
            ),
            row("auto_recall", "Auto recall", "bool", "true", group="Recall"),
            row("recall_max_tokens", "Max recall tokens", "number", "4096", group="Recall"),
            row("recall_max_input_chars", "Max recall query chars", "number", "800", group="Recall"),
            row("recall_types", "Recall fact types", "text", "observation", group="Recall"),
            row("recall_tags", "Recall tag filter", "json", placeholder='["project:hermes"]', group="Recall"),
            row("recall_tags_match", "Tag match", "select", "any", group="Recall"),
            row("recall_prompt_preamble", "Recall preamble", "text", group="Recall"),
            row("auto_retain", "Auto retain", "bool", "true", group="Retain"),
            row("retain_async", "Asynchronous retain", "bool", "true", group="Retain"),
            row("retain_every_n_turns", "Retain every N turns", "number", "1", group="Retain"),
            row(
                "retain_context",
                "Retain context label",
                "text",
                "conversation between Hermes Agent and the User",
                group="Retain",
            ),
            row("retain_tags", "Retain tags", "text", env_fallbacks=("HINDSIGHT_RETAIN_TAGS",), group="Retain"),
            row(
                "observation_scopes",
                "Observation scopes",
                "text",
                env_fallbacks=("HINDSIGHT_RETAIN_OBSERVATION_SCOPES",),
                group="Retain",
            ),
            row("retain_source", "Retain source", "text", env_fallbacks=("HINDSIGHT_RETAIN_SOURCE",), group="Retain"),
            row(
                "retain_user_prefix",
                "User label",
                "text",
                "User",
                env_fallbacks=("HINDSIGHT_RETAIN_USER_PREFIX",),
                group="Retain",
            ),
            row(
                "retain_assistant_prefix",
                "Assistant label",
                "text",
                "Assistant",
                env_fallbacks=("HINDSIGHT_RETAIN_ASSISTANT_PREFIX",),
                group="Retain",
            ),
            row(
                "llm_provider",
                "LLM provider",
                "select",
                "openai",
                options=opts(
                    "openai=OpenAI",
                    "anthropic=Anthropic",
                    "gemini=Gemini",
                    "groq=Groq",
                    "openrouter=OpenRouter",
                    "minimax=MiniMax",
                    "ollama=Ollama",
                    "lmstudio=LM Studio",
                    "openai_compatible=OpenAI-compatible endpoint",
                ),
                when=EMBEDDED,
                group="Embedded mode",
            ),
            row("llm_model", "LLM model", "text", when=EMBEDDED, group="Embedded mode"),
            row(
                "llm_base_url",
                "LLM base URL",
                "text",
                env_fallbacks=("HINDSIGHT_API_LLM_BASE_URL",),
                when=EMBEDDED,
                group="Embedded mode",
            ),
            row(
                "llm_api_key",
                "LLM API key",
                "secret",
                env_key="HINDSIGHT_LLM_API_KEY",
                aliases=("llmApiKey",),
                when=EMBEDDED,
                group="Embedded mode",
            ),
            row(
                "idle_timeout",
                "Daemon idle timeout (s)",
                "number",
                "300",
                env_fallbacks=("HINDSIGHT_IDLE_TIMEOUT",),
                when=EMBEDDED,
                group="Embedded mode",
            ),
            row(
                "port_health_grace_timeout",
                "Daemon health grace (s)",
                "number",
                placeholder="30",
                env_overrides=("HINDSIGHT_EMBED_PORT_HEALTH_GRACE_TIMEOUT",),
                when=EMBEDDED,
                group="Embedded mode",
            ),
            row("profile", "Embedded profile", "text", "hermes", when=EMBEDDED, group="Embedded mode"),
        ],
    },
    "holographic": {
        "label": "Holographic",
        "storage": "config_yaml",
        "storage_path": "plugins.hermes-memory-store",
        "storage_fallbacks": (),
        "docs_url": "",
        "fields": [
            row(
                "db_path",
                "Database path",
                "text",
                placeholder="$HERMES_HOME/memory_store.db",
                inline=True,
                group="Storage",
            ),
            row("auto_extract", "Auto-extract facts", "bool", "false", inline=True, group="Extraction"),
            row("default_trust", "Default trust", "number", "0.5", group="Retrieval"),
            row("min_trust_threshold", "Minimum trust", "number", "0.3", group="Retrieval"),
            row("hrr_dim", "HRR dimensions", "number", "1024", group="Retrieval"),
            row("hrr_weight", "HRR weight", "number", "0.3", group="Retrieval"),
            row("temporal_decay_half_life", "Decay half-life (days)", "number", "0", group="Retrieval"),
        ],
    },
    "honcho": {
        "label": "Honcho",
        "storage": "honcho_host_block",
        "storage_path": "",
        "storage_fallbacks": (),
        "docs_url": "https://docs.honcho.dev/v3/guides/integrations/hermes",
        "fields": [
            row(
                "apiKey",
                "API key",
                "secret",
                env_key="HONCHO_API_KEY",
                required=True,
                required_unless=("baseUrl",),
                placeholder="Enter Honcho API key",
                inline=True,
                group="Connection",
            ),
            row(
                "baseUrl",
                "Base URL",
                "text",
                placeholder="https://… (self-hosted)",
                scope="root",
                aliases=("base_url",),
                env_fallbacks=("HONCHO_BASE_URL",),
                inline=True,
                group="Connection",
            ),
            row(
                "environment",
                "Environment",
                "select",
                "production",
                options=opts("production=Cloud", "local=Local"),
                seed_env=("HONCHO_ENVIRONMENT",),
                inline=True,
                group="Connection",
            ),
            row("workspace", "Workspace", "text", inline=True, group="Connection"),
            row(
                "timeout",
                "Request timeout",
                "number",
                placeholder="30",
                aliases=("requestTimeout",),
                env_fallbacks=("HONCHO_TIMEOUT",),
                group="Connection",
            ),
            row("peerName", "Peer name", "text", placeholder="e.g. eri", inline=True, group="Identity"),
            row("aiPeer", "AI peer", "text", inline=True, group="Identity"),
            row("pinUserPeer", "Pin user peer", "bool", "false", aliases=("pinPeerName",), group="Identity"),
            row("runtimePeerPrefix", "Runtime peer prefix", "text", placeholder="e.g. telegram_", group="Identity"),
            row(
                "userPeerAliases", "User peer aliases", "json", placeholder='{"telegram_123": "eri"}', group="Identity"
            ),
            row(
                "sessionStrategy",
                "Session strategy",
                "select",
                "per-directory",
                options=opts(
                    "per-session=Per session", "per-directory=Per directory", "per-repo=Per repo", "global=Global"
                ),
                inline=True,
                group="Session",
            ),
            row("sessionPeerPrefix", "Session peer prefix", "bool", "false", group="Session"),
            row(
                "sessions",
                "Session overrides",
                "json",
                placeholder='{"key": "session-id"}',
                scope="root",
                group="Session",
            ),
            row("writeFrequency", "Write frequency", "text", "async", group="Message writing"),
            row("dialecticReasoningLevel", "Reasoning level", "select", "low", options=LEVELS, group="Dialectic"),
            row("dialecticDynamic", "Dynamic reasoning", "bool", "true", group="Dialectic"),
            row("dialecticMaxChars", "Max result chars", "number", placeholder="600", group="Dialectic"),
            row("dialecticDepth", "Depth", "number", placeholder="1", group="Dialectic"),
            row("dialecticDepthLevels", "Per-pass levels", "json", placeholder='["low", "medium"]', group="Dialectic"),
            row("dialecticMaxInputChars", "Max input chars", "number", placeholder="10000", group="Dialectic"),
            row("dialecticCadence", "Dialectic cadence", "number", placeholder="1", group="Dialectic"),
            row(
                "firstTurnDialecticWait",
                "First-turn dialectic wait (s)",
                "number",
                placeholder="2.0",
                group="Dialectic",
            ),
            row("reasoningHeuristic", "Reasoning heuristic", "bool", "true", group="Reasoning"),
            row("reasoningLevelCap", "Reasoning level cap", "select", "high", options=LEVELS, group="Reasoning"),
            row(
                "recallMode",
                "Recall mode",
                "select",
                "hybrid",
                options=opts("hybrid=Hybrid", "context=Context only", "tools=Tools only"),
                group="Recall",
            ),
            row("contextTokens", "Context token cap", "number", placeholder="(uncapped)", group="Recall"),
            row("contextCadence", "Context cadence", "number", placeholder="1", group="Recall"),
            row(
                "injectionFrequency",
                "Injection frequency",
                "select",
                "every-turn",
                options=opts("every-turn=Every turn", "first-turn=First turn only"),
                group="Recall",
            ),
            row("firstTurnBaseWait", "First-turn context wait (s)", "number", placeholder="3.0", group="Recall"),
            row("queryRewrite", "Query rewrite", "bool", "false", group="Recall"),
            row("initOnSessionStart", "Eager init", "bool", "false", group="Recall"),
            row("messageMaxChars", "Message max chars", "number", placeholder="25000", group="Limits"),
            row(
                "observationMode",
                "Observation mode",
                "select",
                options=opts("directional=Directional", "unified=Unified"),
                group="Observation",
            ),
            row("observation", "Observation (granular)", "json", group="Observation"),
        ],
    },
    "mem0": {
        "label": "Mem0",
        "storage": "json_file",
        "storage_path": "mem0.json",
        "storage_fallbacks": (),
        "docs_url": "",
        "fields": [
            row(
                "mode",
                "Mode",
                "select",
                "platform",
                options=opts("platform=Platform / self-hosted", "oss=OSS (in-process)"),
                env_fallbacks=("MEM0_MODE",),
                inline=True,
                group="Connection",
            ),
            row(
                "api_key",
                "API key",
                "secret",
                env_key="MEM0_API_KEY",
                when={"mode": "platform"},
                required=True,
                required_unless=("host",),
                inline=True,
                group="Connection",
            ),
            row(
                "host",
                "Self-hosted URL",
                "text",
                placeholder="http://localhost:8000 (self-hosted)",
                when={"mode": "platform"},
                env_fallbacks=("MEM0_HOST",),
                inline=True,
                group="Connection",
            ),
            row(
                "user_id",
                "User ID",
                "text",
                placeholder="hermes-user",
                env_fallbacks=("MEM0_USER_ID",),
                inline=True,
                group="Identity",
            ),
            row("agent_id", "Agent ID", "text", "hermes", env_fallbacks=("MEM0_AGENT_ID",), group="Identity"),
            row("rerank", "Rerank by default", "bool", "false", group="Recall"),
            row("oss", "OSS backend", "json", when={"mode": "oss"}, group="OSS"),
        ],
    },
    "openviking": {
        "label": "OpenViking",
        "storage": "config_yaml",
        "storage_path": "memory.openviking",
        "storage_fallbacks": (),
        "docs_url": "",
        "fields": [
            row(
                "endpoint",
                "Endpoint",
                "text",
                placeholder="http://127.0.0.1:1933",
                storage=ENV,
                env_key="OPENVIKING_ENDPOINT",
                inline=True,
                group="Connection",
            ),
            row("api_key", "API key", "secret", env_key="OPENVIKING_API_KEY", inline=True, group="Connection"),
            row(
                "account",
                "Account",
                "text",
                placeholder="default",
                storage=ENV,
                env_key="OPENVIKING_ACCOUNT",
                group="Connection",
            ),
            row(
                "user",
                "User",
                "text",
                placeholder="default",
                storage=ENV,
                env_key="OPENVIKING_USER",
                group="Connection",
            ),
            row(
                "agent",
                "Agent peer ID",
                "text",
                placeholder="hermes",
                storage=ENV,
                env_key="OPENVIKING_AGENT",
                group="Connection",
            ),
            row("use_ovcli_config", "Use OpenViking CLI profile", "bool", "false", inline=True, group="CLI profile"),
            row(
                "ovcli_config_path",
                "CLI profile file",
                "text",
                placeholder="~/.openviking/ovcli.conf",
                when={"use_ovcli_config": "true"},
                env_overrides=("OPENVIKING_CLI_CONFIG_FILE",),
                group="CLI profile",
            ),
            row(
                "recall_limit",
                "Recall limit",
                "number",
                "6",
                storage=ENV,
                env_key="OPENVIKING_RECALL_LIMIT",
                group="Recall",
            ),
            row(
                "recall_score_threshold",
                "Score threshold",
                "number",
                "0.15",
                storage=ENV,
                env_key="OPENVIKING_RECALL_SCORE_THRESHOLD",
                group="Recall",
            ),
            row(
                "recall_max_injected_chars",
                "Max injected chars",
                "number",
                "4000",
                storage=ENV,
                env_key="OPENVIKING_RECALL_MAX_INJECTED_CHARS",
                group="Recall",
            ),
            row(
                "recall_timeout_seconds",
                "Recall timeout (s)",
                "number",
                "4.0",
                storage=ENV,
                env_key="OPENVIKING_RECALL_TIMEOUT_SECONDS",
                group="Recall",
            ),
            row(
                "recall_request_timeout_seconds",
                "Request timeout (s)",
                "number",
                "3.0",
                storage=ENV,
                env_key="OPENVIKING_RECALL_REQUEST_TIMEOUT_SECONDS",
                group="Recall",
            ),
            row(
                "recall_full_read_limit",
                "Full reads",
                "number",
                "2",
                storage=ENV,
                env_key="OPENVIKING_RECALL_FULL_READ_LIMIT",
                group="Recall",
            ),
            row(
                "recall_prefer_abstract",
                "Prefer abstracts",
                "bool",
                "false",
                storage=ENV,
                env_key="OPENVIKING_RECALL_PREFER_ABSTRACT",
                group="Recall",
            ),
            row(
                "recall_resources",
                "Include resources",
                "bool",
                "false",
                storage=ENV,
                env_key="OPENVIKING_RECALL_RESOURCES",
                group="Recall",
            ),
        ],
    },
    "retaindb": {
        "label": "RetainDB",
        "storage": "env_file",
        "storage_path": "",
        "storage_fallbacks": (),
        "docs_url": "",
        "fields": [
            row("api_key", "API key", "secret", env_key="RETAINDB_API_KEY", required=True, inline=True),
            row(
                "base_url",
                "Base URL",
                "text",
                placeholder="https://api.retaindb.com",
                env_key="RETAINDB_BASE_URL",
                inline=True,
            ),
            row("project", "Project", "text", env_key="RETAINDB_PROJECT", inline=True),
        ],
    },
    "supermemory": {
        "label": "Supermemory",
        "storage": "json_file",
        "storage_path": "supermemory.json",
        "storage_fallbacks": (),
        "docs_url": "",
        "fields": [
            row(
                "api_key",
                "API key",
                "secret",
                env_key="SUPERMEMORY_API_KEY",
                required=True,
                inline=True,
                group="Connection",
            ),
            row(
                "container_tag",
                "Container tag",
                "text",
                "hermes",
                env_overrides=("SUPERMEMORY_CONTAINER_TAG",),
                inline=True,
                group="Connection",
            ),
            row(
                "base_url",
                "Base URL",
                "text",
                placeholder="https://api.supermemory.ai",
                env_fallbacks=("SUPERMEMORY_BASE_URL",),
                group="Connection",
            ),
            row("api_timeout", "API timeout (s)", "number", "5.0", group="Connection"),
            row("auto_recall", "Auto recall", "bool", "true", inline=True, group="Recall"),
            row("auto_capture", "Auto capture", "bool", "true", inline=True, group="Capture"),
            row(
                "capture_mode",
                "Capture mode",
                "select",
                "all",
                options=opts("all=All", "everything=Everything"),
                group="Capture",
            ),
            row(
                "search_mode",
                "Search mode",
                "select",
                "hybrid",
                options=opts("hybrid=Hybrid", "memories=Memories", "documents=Documents"),
                group="Recall",
            ),
            row("max_recall_results", "Max recall results", "number", "10", group="Recall"),
            row("profile_frequency", "Profile frequency (turns)", "number", "50", group="Recall"),
            row("entity_context", "Extraction guidance", "text", group="Capture"),
            row("enable_custom_container_tags", "Custom containers", "bool", "false", group="Containers"),
            row(
                "custom_containers",
                "Extra containers",
                "json",
                when={"enable_custom_container_tags": "true"},
                group="Containers",
            ),
            row(
                "custom_container_instructions",
                "Container instructions",
                "text",
                when={"enable_custom_container_tags": "true"},
                group="Containers",
            ),
        ],
    },
}

# docs/provider_findings.md, "fields" column.
FIELD_COUNTS = {
    "byterover": 2,
    "hindsight": 34,
    "holographic": 7,
    "honcho": 34,
    "mem0": 7,
    "openviking": 15,
    "retaindb": 3,
    "supermemory": 14,
}

# docs/api.md §Provider list: the 0.19.0 setup metadata of each bundled provider.
SETUP = {
    "byterover": (
        [],
        [{"name": "brv", "install": "curl -fsSL https://byterover.dev/install.sh | sh", "check": "brv --version"}],
        [],
    ),
    "hindsight": (["hindsight-client>=0.6.1"], [], []),
    "holographic": ([], [], []),
    "honcho": (["honcho-ai"], [], []),
    "mem0": (["mem0ai>=2.0.10,<3"], [], []),
    "openviking": (["httpx"], [], []),
    "retaindb": (["requests"], [], ["RETAINDB_API_KEY"]),
    "supermemory": (["supermemory"], [], []),
}

DESCRIPTIONS = {
    "byterover": "ByteRover — persistent knowledge tree with tiered retrieval via the brv CLI.",
    "hindsight": "Hindsight — long-term memory with knowledge graph, entity resolution, and multi-strategy retrieval.",
    "holographic": "Holographic memory — local SQLite fact store with FTS5 search, trust scoring, and "
    "HRR-based compositional retrieval.",
    "honcho": "Honcho AI-native memory — cross-session user modeling with dialectic Q&A, semantic search, "
    "and persistent conclusions.",
    "mem0": "Mem0 — server-side LLM fact extraction with semantic search, automatic deduplication, and "
    "opt-in reranking (platform mode).",
    "openviking": "OpenViking context database — session-managed memory with automatic extraction, tiered "
    "retrieval, and filesystem-style knowledge browsing.",
    "retaindb": "RetainDB — cloud memory API with hybrid search and 7 memory types.",
    "supermemory": "Supermemory semantic long-term memory with profile recall, semantic search, explicit "
    "memory tools, and session ingest.",
}

_FIELD_DEFAULTS = {name: f.default for name, f in cs.ProviderField.__dataclass_fields__.items()}


def load(name: str) -> cs.ProviderConfigSchema:
    return provider_schemas.load_schema(BUNDLED_DIR / name / "config_schema.py")


def expected_attr(expected: dict[str, Any], attr: str) -> Any:
    return expected[attr] if attr in expected else _FIELD_DEFAULTS[attr]


@pytest.mark.parametrize("name", BUNDLED)
def test_it_loads_each_bundled_schema_through_the_loader_and_passes_the_declaration_checks(name):
    schema = load(name)
    assert isinstance(schema, cs.ProviderConfigSchema)
    assert schema.name == name
    # The loader ran the checks; every problem (not just the first) must be absent.
    assert provider_schemas.declaration_problems(schema, expected_name=name) == []


@pytest.mark.parametrize("name", BUNDLED)
def test_it_declares_the_schema_header_of_providers_md(name):
    schema = load(name)
    spec = EXPECTED[name]
    assert (schema.label, schema.storage, schema.storage_path, schema.storage_fallbacks, schema.docs_url) == (
        spec["label"],
        spec["storage"],
        spec["storage_path"],
        spec["storage_fallbacks"],
        spec["docs_url"],
    )


@pytest.mark.parametrize("name", BUNDLED)
def test_it_has_the_field_count_of_the_summary_table(name):
    assert len(load(name).fields) == FIELD_COUNTS[name]


@pytest.mark.parametrize("name", BUNDLED)
def test_it_declares_the_keys_in_the_spec_order(name):
    assert [f.key for f in load(name).fields] == [r["key"] for r in EXPECTED[name]["fields"]]


@pytest.mark.parametrize("name", BUNDLED)
def test_it_declares_every_label_kind_and_default_of_the_spec(name):
    actual = [(f.key, f.label, f.kind, f.default) for f in load(name).fields]
    expected = [(r["key"], r["label"], r["kind"], r["default"]) for r in EXPECTED[name]["fields"]]
    assert actual == expected


@pytest.mark.parametrize("name", BUNDLED)
@pytest.mark.parametrize("attr", _CHECKED_ATTRS)
def test_it_declares_env_names_aliases_conditions_and_layout_exactly(name, attr):
    fields = load(name).fields
    mismatches = []
    for field, expected in zip(fields, EXPECTED[name]["fields"], strict=True):
        actual = getattr(field, attr)
        if attr == "options":
            want = expected.get("options")
            if want is None:
                # The findings leave some option labels open (e.g. Tag match); values still must match.
                if field.kind == cs.KIND_SELECT:
                    continue
                want = ()
            actual = tuple((o.value, o.label) for o in actual)
        elif attr == "placeholder" and attr not in expected:
            continue
        else:
            want = expected_attr(expected, attr)
        if actual != want:
            mismatches.append((field.key, actual, want))
    assert mismatches == []


def test_it_offers_the_tag_match_values_the_plugin_accepts():
    field = next(f for f in load("hindsight").fields if f.key == "recall_tags_match")
    assert [o.value for o in field.options] == ["any", "all", "any_strict", "all_strict"]


@pytest.mark.parametrize("name", BUNDLED)
def test_it_gives_every_field_a_one_line_description(name):
    for field in load(name).fields:
        assert field.description.strip(), field.key
        assert "\n" not in field.description, field.key


@pytest.mark.parametrize("name", BUNDLED)
def test_it_shows_the_plugin_default_as_placeholder_for_every_blank_number(name):
    # A blank number must not look like "nothing": the greyed placeholder tells what the plugin uses.
    blank_numbers = [f for f in load(name).fields if f.kind == cs.KIND_NUMBER and f.default == ""]
    assert [f.key for f in blank_numbers if not f.placeholder.strip()] == []


@pytest.mark.parametrize("name", BUNDLED)
def test_it_keeps_secrets_in_named_variables_only(name):
    for field in load(name).fields:
        if field.is_secret:
            assert field.env_key, field.key
            assert field.default == "", field.key
        if field.storage == cs.STORAGE_ENV_FILE or load(name).storage == cs.STORAGE_ENV_FILE:
            assert field.env_key, field.key


@pytest.mark.parametrize("name", BUNDLED)
def test_it_ships_the_description_and_setup_metadata_beside_the_schema(name):
    meta = json.loads((BUNDLED_DIR / name / "provider.json").read_text(encoding="utf-8"))
    pip, external, required_env = SETUP[name]
    assert meta == {
        "description": DESCRIPTIONS[name],
        "setup": {"pip_dependencies": pip, "external_dependencies": external, "required_env": required_env},
    }


@pytest.mark.parametrize("name", BUNDLED)
def test_it_keeps_each_bundled_schema_file_pure_data(name):
    """Only the declaration module is imported; no package, no code beyond calls and literals."""
    tree = ast.parse((BUNDLED_DIR / name / "config_schema.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            assert node.module in ("__future__", "provider_schemas.config_schema")
        else:
            assert isinstance(node, (ast.Assign, ast.Expr)), ast.dump(node)[:80]
    assert not (BUNDLED_DIR / name / "__init__.py").exists()

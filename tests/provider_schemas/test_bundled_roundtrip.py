"""Each bundled provider: a save through the public API, then a fresh read, gives back what was saved,
and the values sit exactly where docs/provider_findings.md says the 0.19.0 plugin reads them.

The file assertions read the files directly (JSON keys, YAML paths, .env lines, the honcho host
block), never through the panel's own readers, so a value written to the wrong place fails here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

import provider_schemas
from provider_schemas import keyring_service

BUNDLED_DIR = Path(provider_schemas.__file__).resolve().parent / "bundled"

# --- scenarios -----------------------------------------------------------------------------------
# Each submits a realistic non-default value for every field visible in that scenario. Strings are
# written in the panel's edited form (docs/agent_formats.md §Reading provider values), so a fresh read must return them
# as is.

HONCHO_OBSERVATION = (
    '{"user": {"observeMe": true, "observeOthers": false}, "ai": {"observeMe": false, "observeOthers": true}}'
)

SCENARIOS: dict[str, tuple[str, dict[str, Any]]] = {
    "byterover": (
        "byterover",
        {"api_key": "brv-test-key-1", "auto_extract": False},
    ),
    "hindsight-external": (
        "hindsight",
        {
            "mode": "local_external",
            "api_key": "hs-test-key-1",
            "api_url": "http://127.0.0.1:9077",
            "timeout": "45",
            "bank_id": "team-bank",
            "bank_id_template": "hermes-{profile}",
            "bank_mission": "Remember the user's projects and decisions.",
            "bank_retain_mission": "Extract decisions and deadlines.",
            "recall_budget": "high",
            "memory_mode": "context",
            "recall_prefetch_method": "reflect",
            "auto_recall": False,
            "recall_max_tokens": "2048",
            "recall_max_input_chars": "600",
            "recall_types": "observation,world",
            "recall_tags": '["project:hermes", "team:core"]',
            "recall_tags_match": "all_strict",
            "recall_prompt_preamble": "Things you remember:",
            "auto_retain": False,
            "retain_async": False,
            "retain_every_n_turns": "3",
            "retain_context": "chat between Hermes and Eri",
            "retain_tags": "project:hermes,team:core",
            "observation_scopes": "per_tag",
            "retain_source": "cli",
            "retain_user_prefix": "Eri",
            "retain_assistant_prefix": "Hermes",
        },
    ),
    "hindsight-embedded": (
        "hindsight",
        {
            "mode": "local_embedded",
            "llm_provider": "openrouter",
            "llm_model": "qwen/qwen3.5-9b",
            "llm_base_url": "https://openrouter.ai/api/v1",
            "llm_api_key": "or-test-key-1",
            "idle_timeout": "0",
            "port_health_grace_timeout": "45",
            "profile": "hermes-work",
        },
    ),
    "holographic": (
        "holographic",
        {
            "db_path": "$HERMES_HOME/facts.db",
            "auto_extract": True,
            "default_trust": "0.7",
            "min_trust_threshold": "0.2",
            "hrr_dim": "2048",
            "hrr_weight": "0.5",
            "temporal_decay_half_life": "30",
        },
    ),
    "honcho": (
        "honcho",
        {
            "apiKey": "hch-v2-test-key-1",
            "baseUrl": "http://localhost:8000",
            "environment": "local",
            "workspace": "team-ws",
            "timeout": "12",
            "peerName": "eri",
            "aiPeer": "hermes-ai",
            "pinUserPeer": True,
            "runtimePeerPrefix": "telegram_",
            "userPeerAliases": '{"telegram_123": "eri"}',
            "sessionStrategy": "per-repo",
            "sessionPeerPrefix": True,
            "sessions": '{"/work/main": "main-session"}',
            "writeFrequency": "turn",
            "dialecticReasoningLevel": "medium",
            "dialecticDynamic": False,
            "dialecticMaxChars": "900",
            "dialecticDepth": "2",
            "dialecticDepthLevels": '["low", "high"]',
            "dialecticMaxInputChars": "8000",
            "dialecticCadence": "2",
            "firstTurnDialecticWait": "1.5",
            "reasoningHeuristic": False,
            "reasoningLevelCap": "max",
            "recallMode": "tools",
            "contextTokens": "1500",
            "contextCadence": "3",
            "injectionFrequency": "first-turn",
            "firstTurnBaseWait": "0.5",
            "queryRewrite": True,
            "initOnSessionStart": True,
            "messageMaxChars": "20000",
            "observationMode": "unified",
            "observation": HONCHO_OBSERVATION,
        },
    ),
    "mem0-platform": (
        "mem0",
        {
            "mode": "platform",
            "api_key": "m0-test-key-1",
            "host": "http://localhost:8000",
            "user_id": "alice",
            "agent_id": "hermes-work",
            "rerank": True,
        },
    ),
    "mem0-oss": (
        "mem0",
        {
            "mode": "oss",
            "user_id": "alice",
            "oss": '{"llm": {"provider": "ollama", "config": {"model": "llama3.1"}}, '
            '"vector_store": {"provider": "qdrant", "config": {"path": "/var/lib/mem0"}}}',
        },
    ),
    "openviking": (
        "openviking",
        {
            "endpoint": "http://10.0.0.5:1933",
            "api_key": "ov-test-key-1",
            "account": "acme",
            "user": "alice",
            "agent": "hermes-bot",
            "use_ovcli_config": True,
            "ovcli_config_path": "~/ov/profile.conf",
            "recall_limit": "12",
            "recall_score_threshold": "0.4",
            "recall_max_injected_chars": "6000",
            "recall_timeout_seconds": "5.5",
            "recall_request_timeout_seconds": "2.5",
            "recall_full_read_limit": "4",
            "recall_prefer_abstract": True,
            "recall_resources": True,
        },
    ),
    "retaindb": (
        "retaindb",
        {"api_key": "rdb-test-key-1", "base_url": "https://rdb.example.com/v1", "project": "my-project"},
    ),
    "supermemory": (
        "supermemory",
        {
            "api_key": "sm-test-key-1",
            "container_tag": "hermes_{identity}",
            "base_url": "https://sm.example.com",
            "api_timeout": "8",
            "auto_recall": False,
            "auto_capture": False,
            "capture_mode": "everything",
            "search_mode": "memories",
            "max_recall_results": "15",
            "profile_frequency": "25",
            "entity_context": "Remember projects and people.\nIgnore small talk.",
            "enable_custom_container_tags": True,
            "custom_containers": '["work", "family"]',
            "custom_container_instructions": "Use work for job topics and family for home life.",
        },
    ),
}


# `agent_home` (conftest.py): an empty HERMES_HOME with HOME pointed at an empty folder beside it,
# so ~/.honcho and ~/.hindsight are isolated too.


def edited(value: Any) -> str:
    """The edited string a submitted value reads back as (docs/agent_formats.md §Saving provider values / §Reading
    provider values)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def save(home: Path, name: str, values: dict[str, Any], *, secret_store: str = "env_file") -> Any:
    return provider_schemas.save_provider(home=home, name=name, values=values, secret_store=secret_store)


def read_env(home: Path) -> dict[str, str]:
    """`.env` as plain KEY=value lines (the panel writes these values unquoted)."""
    out: dict[str, str] = {}
    for line in (home / ".env").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.partition("=")
            out[key] = value
    return out


def read_yaml(home: Path) -> dict[str, Any]:
    return yaml.safe_load((home / "config.yaml").read_text(encoding="utf-8"))


def read_json(path: Path) -> dict[str, Any]:
    raw = path.read_bytes()
    assert not raw.startswith(b"\xef\xbb\xbf"), f"{path} must not start with a BOM"
    return json.loads(raw.decode("utf-8"))


def mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


# --- a fresh read gives back exactly what was saved ---------------------------------------------


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_it_reads_back_exactly_what_was_saved(agent_home, scenario):
    name, values = SCENARIOS[scenario]
    save(agent_home, name, values)
    provider_schemas.clear_schema_cache()
    state = provider_schemas.read_provider(home=agent_home, name=name)
    fields = {f.key: f for f in state.fields}
    for key, submitted in values.items():
        field = fields[key]
        if field.kind == "secret":
            assert field.is_set, key
            assert field.value == ""  # a secret is never read back as a value
        else:
            assert (field.value, field.source, field.is_set) == (edited(submitted), "stored", True), key
    assert state.schema_error is None
    assert state.storage.error is None


# --- the values are where the 0.19.0 plugins read them -------------------------------------------


def test_it_stores_byterover_in_its_config_yaml_section_and_the_key_in_dotenv(agent_home):
    save(agent_home, *SCENARIOS["byterover"])
    assert read_yaml(agent_home)["memory"]["byterover"] == {"auto_extract": False}
    assert read_env(agent_home) == {"BRV_API_KEY": "brv-test-key-1"}
    assert mode(agent_home / ".env") == 0o600


def test_it_stores_hindsight_in_its_own_json_file_natively(agent_home):
    save(agent_home, *SCENARIOS["hindsight-external"])
    stored = read_json(agent_home / "hindsight" / "config.json")
    assert stored == {
        "mode": "local_external",
        "api_url": "http://127.0.0.1:9077",
        "timeout": 45,
        "bank_id": "team-bank",
        "bank_id_template": "hermes-{profile}",
        "bank_mission": "Remember the user's projects and decisions.",
        "bank_retain_mission": "Extract decisions and deadlines.",
        "recall_budget": "high",
        "memory_mode": "context",
        "recall_prefetch_method": "reflect",
        "auto_recall": False,
        "recall_max_tokens": 2048,
        "recall_max_input_chars": 600,
        "recall_types": "observation,world",
        "recall_tags": ["project:hermes", "team:core"],
        "recall_tags_match": "all_strict",
        "recall_prompt_preamble": "Things you remember:",
        "auto_retain": False,
        "retain_async": False,
        "retain_every_n_turns": 3,
        "retain_context": "chat between Hermes and Eri",
        "retain_tags": "project:hermes,team:core",
        "observation_scopes": "per_tag",
        "retain_source": "cli",
        "retain_user_prefix": "Eri",
        "retain_assistant_prefix": "Hermes",
    }
    assert read_env(agent_home) == {"HINDSIGHT_API_KEY": "hs-test-key-1"}
    assert mode(agent_home / "hindsight" / "config.json") == 0o600


def test_it_stores_the_hindsight_embedded_settings_in_the_same_file(agent_home):
    save(agent_home, *SCENARIOS["hindsight-embedded"])
    assert read_json(agent_home / "hindsight" / "config.json") == {
        "mode": "local_embedded",
        "llm_provider": "openrouter",
        "llm_model": "qwen/qwen3.5-9b",
        "llm_base_url": "https://openrouter.ai/api/v1",
        "idle_timeout": 0,
        "port_health_grace_timeout": 45,
        "profile": "hermes-work",
    }
    assert read_env(agent_home) == {"HINDSIGHT_LLM_API_KEY": "or-test-key-1"}


def test_it_stores_holographic_in_the_plugins_section_with_native_types(agent_home):
    save(agent_home, *SCENARIOS["holographic"])
    config = read_yaml(agent_home)
    assert config["plugins"]["hermes-memory-store"] == {
        "db_path": "$HERMES_HOME/facts.db",
        "auto_extract": True,
        "default_trust": 0.7,
        "min_trust_threshold": 0.2,
        "hrr_dim": 2048,
        "hrr_weight": 0.5,
        "temporal_decay_half_life": 30,
    }
    # A new config.yaml carries the 0.19.0 schema version, so the agent does not migrate it.
    assert config["_config_version"] == 33
    assert not (agent_home / ".env").exists()


def test_it_stores_honcho_in_the_host_block_and_root_of_the_shared_file(agent_home):
    save(agent_home, *SCENARIOS["honcho"])
    # No honcho.json anywhere: the plugin reads ~/.honcho/config.json, so that is where it goes.
    assert not (agent_home / "honcho.json").exists()
    shared = Path.home() / ".honcho" / "config.json"
    stored = read_json(shared)
    host = stored["hosts"]["hermes"]
    assert stored["baseUrl"] == "http://localhost:8000"
    assert stored["sessions"] == {"/work/main": "main-session"}
    assert "baseUrl" not in host and "sessions" not in host
    assert host == {
        # With the .env store the key is mirrored into the host block (0.19.0 behaviour).
        "apiKey": "hch-v2-test-key-1",
        "environment": "local",
        "workspace": "team-ws",
        "timeout": 12,
        "peerName": "eri",
        "aiPeer": "hermes-ai",
        "pinUserPeer": True,
        "runtimePeerPrefix": "telegram_",
        "userPeerAliases": {"telegram_123": "eri"},
        "sessionStrategy": "per-repo",
        "sessionPeerPrefix": True,
        "writeFrequency": "turn",
        "dialecticReasoningLevel": "medium",
        "dialecticDynamic": False,
        "dialecticMaxChars": 900,
        "dialecticDepth": 2,
        "dialecticDepthLevels": ["low", "high"],
        "dialecticMaxInputChars": 8000,
        "dialecticCadence": 2,
        "firstTurnDialecticWait": 1.5,
        "reasoningHeuristic": False,
        "reasoningLevelCap": "max",
        "recallMode": "tools",
        "contextTokens": 1500,
        "contextCadence": 3,
        "injectionFrequency": "first-turn",
        "firstTurnBaseWait": 0.5,
        "queryRewrite": True,
        "initOnSessionStart": True,
        "messageMaxChars": 20000,
        "observationMode": "unified",
        "observation": json.loads(HONCHO_OBSERVATION),
    }
    assert read_env(agent_home) == {"HONCHO_API_KEY": "hch-v2-test-key-1"}
    assert mode(shared) == 0o600


def test_it_updates_an_existing_profile_honcho_file_and_keeps_other_hosts(agent_home):
    existing = {"workspace": "root-ws", "hosts": {"other-app": {"workspace": "theirs", "apiKey": "other-key"}}}
    (agent_home / "honcho.json").write_text(json.dumps(existing), encoding="utf-8")
    save(agent_home, "honcho", {"workspace": "team-ws", "recallMode": "context"})
    stored = read_json(agent_home / "honcho.json")
    assert stored["workspace"] == "root-ws"
    assert stored["hosts"]["other-app"] == {"workspace": "theirs", "apiKey": "other-key"}
    assert stored["hosts"]["hermes"] == {"workspace": "team-ws", "recallMode": "context"}
    assert not (Path.home() / ".honcho" / "config.json").exists()


def test_it_stores_mem0_platform_settings_in_mem0_json(agent_home):
    save(agent_home, *SCENARIOS["mem0-platform"])
    assert read_json(agent_home / "mem0.json") == {
        "mode": "platform",
        "host": "http://localhost:8000",
        "user_id": "alice",
        "agent_id": "hermes-work",
        "rerank": True,
    }
    assert read_env(agent_home) == {"MEM0_API_KEY": "m0-test-key-1"}


def test_it_stores_the_mem0_oss_backend_as_a_json_object(agent_home):
    save(agent_home, *SCENARIOS["mem0-oss"])
    assert read_json(agent_home / "mem0.json") == {
        "mode": "oss",
        "user_id": "alice",
        "oss": {
            "llm": {"provider": "ollama", "config": {"model": "llama3.1"}},
            "vector_store": {"provider": "qdrant", "config": {"path": "/var/lib/mem0"}},
        },
    }


def test_it_stores_openviking_connection_and_recall_in_dotenv_and_two_keys_in_config_yaml(agent_home):
    save(agent_home, *SCENARIOS["openviking"])
    assert read_yaml(agent_home)["memory"]["openviking"] == {
        "use_ovcli_config": True,
        "ovcli_config_path": "~/ov/profile.conf",
    }
    assert read_env(agent_home) == {
        "OPENVIKING_ENDPOINT": "http://10.0.0.5:1933",
        "OPENVIKING_API_KEY": "ov-test-key-1",
        "OPENVIKING_ACCOUNT": "acme",
        "OPENVIKING_USER": "alice",
        "OPENVIKING_AGENT": "hermes-bot",
        "OPENVIKING_RECALL_LIMIT": "12",
        "OPENVIKING_RECALL_SCORE_THRESHOLD": "0.4",
        "OPENVIKING_RECALL_MAX_INJECTED_CHARS": "6000",
        "OPENVIKING_RECALL_TIMEOUT_SECONDS": "5.5",
        "OPENVIKING_RECALL_REQUEST_TIMEOUT_SECONDS": "2.5",
        "OPENVIKING_RECALL_FULL_READ_LIMIT": "4",
        "OPENVIKING_RECALL_PREFER_ABSTRACT": "true",
        "OPENVIKING_RECALL_RESOURCES": "true",
    }


def test_it_removes_an_openviking_line_when_the_field_is_cleared(agent_home):
    save(agent_home, *SCENARIOS["openviking"])
    save(agent_home, "openviking", {"account": "", "recall_limit": ""})
    env = read_env(agent_home)
    # Never an empty line: a present but empty variable would override the CLI profile.
    assert "OPENVIKING_ACCOUNT" not in env
    assert "OPENVIKING_RECALL_LIMIT" not in env
    assert env["OPENVIKING_USER"] == "alice"


def test_it_stores_retaindb_in_dotenv_only(agent_home):
    save(agent_home, *SCENARIOS["retaindb"])
    assert read_env(agent_home) == {
        "RETAINDB_API_KEY": "rdb-test-key-1",
        "RETAINDB_BASE_URL": "https://rdb.example.com/v1",
        "RETAINDB_PROJECT": "my-project",
    }
    assert not (agent_home / "config.yaml").exists()


def test_it_stores_supermemory_in_its_json_file_and_keeps_the_identity_placeholder(agent_home):
    save(agent_home, *SCENARIOS["supermemory"])
    assert read_json(agent_home / "supermemory.json") == {
        "container_tag": "hermes_{identity}",
        "base_url": "https://sm.example.com",
        "api_timeout": 8,
        "auto_recall": False,
        "auto_capture": False,
        "capture_mode": "everything",
        "search_mode": "memories",
        "max_recall_results": 15,
        "profile_frequency": 25,
        "entity_context": "Remember projects and people.\nIgnore small talk.",
        "enable_custom_container_tags": True,
        "custom_containers": ["work", "family"],
        "custom_container_instructions": "Use work for job topics and family for home life.",
    }
    assert read_env(agent_home) == {"SUPERMEMORY_API_KEY": "sm-test-key-1"}


def test_it_keeps_every_other_key_and_line_when_saving_next_to_existing_settings(agent_home):
    (agent_home / "config.yaml").write_text(
        "# my agent\nmodel: gpt-x  # keep me\nmemory:\n  provider: holographic\n  memory_char_limit: 3000\n",
        encoding="utf-8",
    )
    (agent_home / ".env").write_text("# secrets\nOPENAI_API_KEY=sk-keep\n", encoding="utf-8")
    save(agent_home, *SCENARIOS["byterover"])
    text = (agent_home / "config.yaml").read_text(encoding="utf-8")
    assert text.startswith("# my agent\nmodel: gpt-x  # keep me\n")
    config = read_yaml(agent_home)
    assert config["memory"]["provider"] == "holographic"  # saving never activates
    assert config["memory"]["memory_char_limit"] == 3000
    assert config["memory"]["byterover"] == {"auto_extract": False}
    assert (agent_home / ".env").read_text(encoding="utf-8") == (
        "# secrets\nOPENAI_API_KEY=sk-keep\nBRV_API_KEY=brv-test-key-1\n"
    )


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_it_keeps_secrets_in_the_keyring_and_out_of_every_file_when_the_keyring_is_chosen(
    agent_home, dict_keyring, scenario
):
    name, values = SCENARIOS[scenario]
    schema = provider_schemas.load_schema(BUNDLED_DIR / name / "config_schema.py")
    secrets = {f.key: f.env_key for f in schema.fields if f.is_secret and f.key in values}
    save(agent_home, name, values, secret_store="keyring")
    service = keyring_service(agent_home)
    assert {user: value for (svc, user), value in dict_keyring.entries.items() if svc == service} == {
        env_key: values[key] for key, env_key in secrets.items()
    }
    # No secret value in any file the save wrote (the honcho host-block copy is dropped too).
    written = [p for p in agent_home.parent.rglob("*") if p.is_file()]
    for path in written:
        text = path.read_text(encoding="utf-8", errors="replace")
        for key in secrets:
            assert values[key] not in text, (key, path.name)
    state = provider_schemas.read_provider(home=agent_home, name=name, secret_store="keyring")
    for key in secrets:
        field = next(f for f in state.fields if f.key == key)
        assert field.is_set, key

"""Per bundled provider: the values its 0.19.0 plugin uses as given (accepted) and the values it drops,
clamps, coerces or misreads (refused), written from reading the plugin (docs/provider_findings.md).
Every field with a constraint appears in its provider's table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import provider_schemas
from provider_schemas.constraints import has_constraints
from provider_schemas.values import FieldError, coerce

BUNDLED = Path(provider_schemas.__file__).resolve().parent / "bundled"

# provider -> field -> (accepted, refused)
TABLES: dict[str, dict[str, tuple[list[str], list[str]]]] = {
    "hindsight": {
        # int() at start: a fraction is truncated, so whole numbers only; 0 or less is no timeout.
        "timeout": (["1", "120", "3600"], ["0", "-5", "2.5", "3601", "abc"]),
        "recall_max_tokens": (["1", "4096", "100000"], ["-5", "0", "100001", "1.5"]),
        # 0 means "do not shorten the query" (the plugin only cuts when the value is truthy).
        "recall_max_input_chars": (["0", "1", "800"], ["-1", "8.5"]),
        # max(1, int(...)): 0 and negatives silently become 1.
        "retain_every_n_turns": (["1", "3", "1000"], ["0", "-2", "1.5"]),
        "idle_timeout": (["0", "300", "86400"], ["-1", "0.5", "86401"]),
        # float(); a negative value is ignored with a log line.
        "port_health_grace_timeout": (["0", "30", "2.5"], ["-1", "3601"]),
        "api_url": (["http://localhost:8888", "https://api.hindsight.vectorize.io"], ["localhost:8888", "htp:/x"]),
        "llm_base_url": (["https://openrouter.ai/api/v1"], ["openrouter.ai/api/v1"]),
        # passed to the server as the tag filter: a list of strings.
        "recall_tags": (['["project:hermes"]', "[]"], ['{"a": 1}', "[1]"]),
        # keywords, or JSON: a flat list of tags (one scope), a list of tag lists (one scope each), or
        # both mixed (a bare tag is a scope of its own); anything else silently becomes "no scopes",
        # and numbers become text, padded tags are stripped, other entries dropped.
        "observation_scopes": (
            ["per_tag", "combined", "all_combinations", '[["a"], ["b", "c"]]', '["a", "b"]', '["project:hermes"]',
             '[["a"], "b"]', '["a b"]'],
            ["per-tag-typo", "Combined", "[]", '[[]]', '{"a": 1}', "[[1]]", '[[""]]', '[[" a"]]', '[" a", "b"]',
             '["", "a"]', '[1, "a"]', '["a", 2]', '[[["a"]]]', "[null]", '"combined"'],
        ),
        "llm_model": (["gpt-4o-mini", "my-own-model"], []),  # suggestions only
    },
    "holographic": {
        "db_path": (["$HERMES_HOME/memory_store.db", "~/facts.db"], []),
        "default_trust": (["0", "0.5", "1"], ["-0.1", "1.5"]),
        "min_trust_threshold": (["0", "0.3", "1"], ["-1", "2"]),
        # int() at load: a fraction is truncated.
        "hrr_dim": (["1", "1024", "65536"], ["0", "-8", "1024.5", "65537"]),
        "hrr_weight": (["0", "0.3", "1"], ["-0.5", "1.01"]),
        "temporal_decay_half_life": (["0", "30", "36500"], ["-1", "7.5", "36501"]),
    },
    "honcho": {
        "baseUrl": (["http://localhost:8000", "https://honcho.example.com"], ["htp:/broken url", "localhost:8000"]),
        # a positive float; 0 or less is skipped and the next source applies.
        "timeout": (["0.1", "12.5", "600"], ["0", "-3", "601"]),
        # values are turned into text and empty ones dropped: only non-empty text is used as given.
        "userPeerAliases": (['{"telegram_123": "eri"}', "{}"], ['{"a": 1}', '{"a": ""}', '["a"]']),
        "sessions": (['{"/work/main": "main"}'], ['{"/work": 5}', '["x"]']),
        # int() when it parses, else the text; only async/turn/session and N >= 1 mean anything.
        "writeFrequency": (["async", "turn", "session", "3"], ["often", "0", "-1", "Async", "2.5"]),
        "dialecticMaxChars": (["1", "600", "100000"], ["0", "-1", "600.5"]),
        # clamped to 1-3.
        "dialecticDepth": (["1", "2", "3"], ["0", "4", "1.5"]),
        # unknown levels silently become "low".
        "dialecticDepthLevels": (['["low", "high"]', '["max"]'], ['["low", "huge"]', "[]", '{"a": "low"}']),
        "dialecticMaxInputChars": (["1", "10000"], ["0", "-10"]),
        "dialecticCadence": (["1", "5"], ["0", "-1", "1.5"]),
        # clamped to >= 0.
        "firstTurnDialecticWait": (["0", "2.0", "60"], ["-1", "61"]),
        "contextTokens": (["1", "1500", "100000"], ["-300", "0", "100001"]),
        "contextCadence": (["1", "3"], ["0", "-2"]),
        "firstTurnBaseWait": (["0", "0.5", "60"], ["-0.5", "61"]),
        "messageMaxChars": (["1", "25000"], ["0", "-1"]),
        # per-peer booleans; other keys are never read.
        "observation": (
            ['{"user": {"observeMe": true, "observeOthers": false}}', '{"ai": {"observeMe": false}}', "{}"],
            ['{"user": {"observeMe": "yes"}}', '{"users": {}}', '{"user": {"observe": true}}', "[]"],
        ),
    },
    "mem0": {
        "host": (["http://localhost:8000", "https://mem0.example.com"], ["localhost:8000", "mem0 server"]),
        # the OSS backend is only available with a vector store.
        "oss": (
            ['{"vector_store": {"provider": "qdrant", "config": {"path": "/var/lib/mem0"}}}'],
            ['{"llm": {"provider": "openai"}}', '{"vector_store": {}}', '{"vector_store": {"provider": 5}}'],
        ),
    },
    "openviking": {
        "endpoint": (["http://127.0.0.1:1933", "https://ov.example.com"], ["127.0.0.1:1933", "ov host"]),
        "ovcli_config_path": (["~/.openviking/ovcli.conf"], []),
        # int(float(env)) clamped to 1-100: a fraction is truncated, out-of-range clamped.
        "recall_limit": (["1", "6", "100"], ["0", "101", "6.5"]),
        "recall_score_threshold": (["0", "0.15", "1"], ["-0.1", "1.1"]),
        "recall_max_injected_chars": (["100", "4000", "50000"], ["99", "50001", "4000.5"]),
        "recall_timeout_seconds": (["0.25", "4.0", "60"], ["0.24", "61"]),
        "recall_request_timeout_seconds": (["0.25", "3.0", "60"], ["0", "60.5"]),
        "recall_full_read_limit": (["0", "2", "100"], ["-1", "101", "2.5"]),
    },
    "retaindb": {
        "base_url": (["https://api.retaindb.com", "http://localhost:9000"], ["api.retaindb.com", "https://x y"]),
    },
    "supermemory": {
        # rewritten to [A-Za-z0-9_] with single inner underscores after {identity} is filled in.
        "container_tag": (["hermes", "hermes_{identity}", "Team_2"], ["my-tag", "a b", "_x", "x_", "a__b"]),
        "base_url": (["https://api.supermemory.ai", "http://localhost:6767"], ["api.supermemory.ai"]),
        "api_timeout": (["0.5", "5.0", "15"], ["0.4", "0", "15.5"]),  # clamped 0.5-15
        "max_recall_results": (["1", "10", "20"], ["0", "21", "10.5"]),  # clamped 1-20
        "profile_frequency": (["1", "50", "500"], ["0", "501"]),  # clamped 1-500
        "entity_context": (["Remember projects.", "x" * 1500], ["x" * 1501]),  # cut at 1500
        # each tag is rewritten like container_tag.
        "custom_containers": (['["work", "family_2"]', "[]"], ['["work-stuff"]', '["a b"]', "[1]"]),
    },
    "byterover": {},  # a secret and a bool: nothing the plugin reads can be out of range
}

ROWS = [
    (provider, key, value, accepted)
    for provider, table in TABLES.items()
    for key, (good, bad) in table.items()
    for value, accepted in [*((v, True) for v in good), *((v, False) for v in bad)]
]


def _field(provider: str, key: str):
    schema = provider_schemas.load_schema(BUNDLED / provider / "config_schema.py")
    field = next(f for f in schema.fields if f.key == key)
    return field, field.storage or schema.storage


@pytest.mark.parametrize(("provider", "key", "value", "accepted"), ROWS)
def test_it_accepts_what_the_plugin_uses_and_refuses_what_it_would_not(provider, key, value, accepted):
    field, storage = _field(provider, key)

    if accepted:
        result = coerce(field, value, storage=storage)
        assert result.action == "set"
        expected = json.loads(value) if field.kind == "json" else result.value
        assert result.value == expected
    else:
        with pytest.raises(FieldError) as caught:
            coerce(field, value, storage=storage)
        assert caught.value.violation is not None, "refused by a declared constraint, with a message for people"


@pytest.mark.parametrize("provider", provider_schemas.BUNDLED_PROVIDERS)
def test_every_constrained_field_has_a_row_in_its_providers_table(provider):
    schema = provider_schemas.load_schema(BUNDLED / provider / "config_schema.py")
    constrained = {f.key for f in schema.fields if has_constraints(f) or f.suggestions}

    assert constrained == set(TABLES[provider])


def test_the_cases_of_the_issue_are_refused_with_a_clear_message(tmp_path):
    home = tmp_path / "hermes"
    home.mkdir()
    cases = {
        "hindsight": ({"observation_scopes": "per-tag-typo", "recall_max_tokens": "-5"},
                      {"observation_scopes": "Enter one of: per_tag, combined, all_combinations, or JSON such as "
                                             '[["text"]].',
                       "recall_max_tokens": "Enter a whole number of tokens from 1 to 100000."}),
        "honcho": ({"contextTokens": "-300", "baseUrl": "htp:/broken url"},
                   {"contextTokens": "Enter a whole number of tokens from 1 to 100000.",
                    "baseUrl": "Enter a web address that starts with http:// or https://, for example "
                               "https://example.com."}),
    }
    for provider, (values, human) in cases.items():
        with pytest.raises(provider_schemas.ValidationFailed) as caught:
            provider_schemas.save_provider(home=home, name=provider, values=values)
        assert {k: v.message for k, v in caught.value.details.items()} == human
    # nothing written (the panel's own lock and journal folder aside)
    assert [p for p in home.rglob("*") if p.is_file() and "panel" not in p.relative_to(home).parts] == []

"""Valid and invalid values per field, for ``bench/readback_check.py --values``.

Each field names where the real 0.19.0 plugin reports the value it uses (a path into readback.py's
output for that provider) and two lists, written from reading the plugin (docs/provider_findings.md):

* ``valid``: values the panel must accept; the plugin must then report exactly the expected native
  value (``SAME`` means the value as the panel stores it);
* ``invalid``: values the panel must refuse; each is planted in the files anyway (bypassing the
  panel's constraints) to show what the plugin does with it. ``CHANGED`` means the plugin must load
  something else (it clamps, truncates, drops or replaces it); a text reason means the plugin passes
  the value on unchanged but it cannot work (a negative budget, an address without a scheme). Such
  values are counted separately, with their reason.

``context`` values are saved with every value of the provider (a field shown only in one mode);
``after`` values are saved next, when the plugin only reports the field's value in another mode.
"""

from __future__ import annotations

from typing import Any

SAME: Any = object()
CHANGED = ""
EFF = "effective"
NO_SCHEME = "not an http(s) address: every request to it fails"
NEGATIVE = "a count or budget below 1 is passed on and breaks the feature"


def f(
    path: tuple[str, ...],
    valid: list[Any],
    invalid: list[tuple[str, str]],
    after: dict[str, Any] | None = None,
    **context: Any,
) -> dict[str, Any]:
    return {"path": path, "valid": valid, "invalid": invalid, "context": context, "after": after or {}}


FIELDS: dict[str, dict[str, dict[str, Any]]] = {
    "hindsight": {
        "api_url": f((EFF, "api_url"), ["http://127.0.0.1:9077", "https://api.example.com"],
                     [("localhost:8888", NO_SCHEME), ("htp:/broken", NO_SCHEME)], mode="local_external"),
        "timeout": f((EFF, "timeout"), ["1", "45", "3600"],
                     [("2.5", CHANGED), ("0", "a zero timeout fails every request"),
                      ("-5", "a negative timeout fails every request")]),
        "recall_max_tokens": f((EFF, "recall_max_tokens"), ["1", "2048", "100000"],
                               [("-5", NEGATIVE), ("0", NEGATIVE), ("1.5", CHANGED)]),
        "recall_max_input_chars": f((EFF, "recall_max_input_chars"), ["0", "1", "600"],
                                    [("-1", NEGATIVE), ("8.5", CHANGED)]),
        "retain_every_n_turns": f((EFF, "retain_every_n_turns"), ["1", "3"], [("0", CHANGED), ("-2", CHANGED),
                                                                              ("1.5", CHANGED)]),
        "recall_tags": f((EFF, "recall_tags"), ['["project:hermes"]'],
                         [('{"a": 1}', "the server expects a list of tags"), ("[1]", "the server expects text tags")]),
        "observation_scopes": f((EFF, "observation_scopes"), ["per_tag", "combined", "all_combinations"],
                                [("per-tag-typo", CHANGED), ("Combined", CHANGED), ("[]", CHANGED),
                                 ('[[""]]', CHANGED), ('[[" a"]]', CHANGED)]),
        "idle_timeout": f((EFF, "idle_timeout"), ["0", "300"], [("0.5", CHANGED),
                                                                 ("-1", "a negative idle timeout is meaningless")],
                          # saved in embedded mode; the plugin reports the parsed value once it starts
                          # in another mode (the embedded runtime is not installed here)
                          after={"mode": "local_external"}, mode="local_embedded"),
    },
    "holographic": {
        "default_trust": f((EFF, "default_trust"), ["0", "0.7", "1"],
                           [("1.5", "trust is a score from 0 to 1"), ("-0.1", "trust is a score from 0 to 1")]),
        "min_trust_threshold": f((EFF, "min_trust_threshold"), ["0", "0.2", "1"],
                                 [("2", "trust is a score from 0 to 1 (nothing would be recalled)")]),
        "hrr_dim": f((EFF, "hrr_dim"), ["1", "2048"], [("1024.5", CHANGED), ("0", "zero-length vectors"),
                                                       ("-8", "negative vector length")]),
        "hrr_weight": f((EFF, "hrr_weight"), ["0", "0.5", "1"], [("1.5", "a blend weight from 0 to 1")]),
        "temporal_decay_half_life": f((EFF, "temporal_decay_half_life"), ["0", "30"],
                                      [("7.5", CHANGED), ("-1", "a negative half-life is meaningless")]),
    },
    "honcho": {
        "baseUrl": f((EFF, "base_url"), ["http://localhost:8000", "https://honcho.example.com"],
                     [("htp:/broken url", NO_SCHEME), ("localhost:8000", NO_SCHEME)]),
        "timeout": f((EFF, "timeout"), ["0.5", "12.5", "600"], [("0", CHANGED), ("-3", CHANGED)]),
        "userPeerAliases": f((EFF, "user_peer_aliases"), ['{"telegram_123": "eri"}'],
                             [('{"a": 1}', CHANGED), ('{"a": ""}', CHANGED)]),
        "sessions": f((EFF, "sessions"), ['{"/work/main": "main"}'],
                      [('{"/work": 5}', "a session name must be text")]),
        "writeFrequency": f((EFF, "write_frequency"), ["async", "turn", "session", ("3", 3)],
                            [("often", "an unknown word: nothing is written on any schedule"),
                             ("0", "every 0 turns is not a schedule"), ("2.5", "an unknown word")]),
        "dialecticMaxChars": f((EFF, "dialectic_max_chars"), ["1", "900"], [("0", NEGATIVE), ("600.5", CHANGED)]),
        "dialecticDepth": f((EFF, "dialectic_depth"), ["1", "2", "3"], [("0", CHANGED), ("4", CHANGED),
                                                                       ("1.5", CHANGED)]),
        "dialecticDepthLevels": f((EFF, "dialectic_depth_levels"), ['["medium"]'],
                                  [('["huge"]', CHANGED), ("[]", CHANGED)]),
        "dialecticMaxInputChars": f((EFF, "dialectic_max_input_chars"), ["1", "8000"], [("-10", NEGATIVE)]),
        "dialecticCadence": f((EFF, "dialectic_cadence"), ["1", "2"], [("0", "a cadence below 1 acts as 1"),
                                                                      ("1.5", CHANGED)]),
        "firstTurnDialecticWait": f((EFF, "first_turn_dialectic_wait"), ["0", "1.5", "60"], [("-1", CHANGED)]),
        "contextTokens": f((EFF, "context_tokens"), ["1", "1500", "100000"], [("-300", NEGATIVE), ("0", NEGATIVE)]),
        "contextCadence": f((EFF, "context_cadence"), ["1", "3"], [("0", "a cadence below 1 acts as 1")]),
        "firstTurnBaseWait": f((EFF, "first_turn_base_wait"), ["0", "0.5"], [("-0.5", CHANGED)]),
        "messageMaxChars": f((EFF, "message_max_chars"), ["1", "20000"], [("0", NEGATIVE)]),
        "observation": f((EFF, "user_observe_others"), [('{"user": {"observeMe": true, "observeOthers": false}}',
                                                         False)],
                         [('{"user": {"observeOthers": "no"}}', "a string where a bool belongs: any text is true")]),
    },
    "mem0": {
        "host": f((EFF, "host"), ["http://localhost:8000"], [("localhost:8000", NO_SCHEME)]),
    },
    "openviking": {
        "endpoint": f((EFF, "endpoint"), ["http://10.0.0.5:1933"], [("10.0.0.5:1933", NO_SCHEME)]),
        "recall_limit": f((EFF, "recall", "limit"), ["1", "12", "100"], [("0", CHANGED), ("101", CHANGED),
                                                                        ("6.5", CHANGED)]),
        "recall_score_threshold": f((EFF, "recall", "score_threshold"), ["0", "0.4", "1"],
                                    [("1.1", CHANGED), ("-0.1", CHANGED)]),
        "recall_max_injected_chars": f((EFF, "recall", "max_injected_chars"), ["100", "6000", "50000"],
                                       [("99", CHANGED), ("50001", CHANGED)]),
        "recall_timeout_seconds": f((EFF, "recall", "timeout_seconds"), ["0.25", "5.5", "60"],
                                    [("0.24", CHANGED), ("61", CHANGED)]),
        "recall_request_timeout_seconds": f((EFF, "recall", "request_timeout_seconds"), ["2.5"],
                                            [("0", CHANGED), ("60.5", CHANGED)]),
        "recall_full_read_limit": f((EFF, "recall", "full_read_limit"), ["0", "4", "100"],
                                    [("-1", CHANGED), ("101", CHANGED), ("2.5", CHANGED)]),
    },
    "retaindb": {
        "base_url": f((EFF, "base_url"), ["https://rdb.example.com/v1"], [("rdb.example.com", NO_SCHEME)]),
    },
    "supermemory": {
        "container_tag": f((EFF, "container_tag"), ["hermes", "Team_2"],
                           [("my-tag", CHANGED), ("a b", CHANGED), ("_x", CHANGED), ("a__b", CHANGED)]),
        "base_url": f((EFF, "base_url"), ["https://sm.example.com"], [("sm.example.com", NO_SCHEME)]),
        "api_timeout": f((EFF, "api_timeout"), ["0.5", "8", "15"], [("0.4", CHANGED), ("15.5", CHANGED)]),
        "max_recall_results": f((EFF, "max_recall_results"), ["1", "15", "20"], [("0", CHANGED), ("21", CHANGED),
                                                                                ("10.5", CHANGED)]),
        "profile_frequency": f((EFF, "profile_frequency"), ["1", "25", "500"], [("0", CHANGED), ("501", CHANGED)]),
        "entity_context": f((EFF, "entity_context"), ["Remember projects."], [("x" * 1501, CHANGED)]),
        "custom_containers": f((EFF, "custom_containers"), ['["work", "family"]'],
                               [('["work-stuff"]', CHANGED), ("[1]", CHANGED)], enable_custom_container_tags=True),
    },
}

"""Save a realistic configuration for every bundled provider, then ask the real hermes-agent 0.19.0
plugins what they load from that home, and compare.

Usage:
    /work/venv/bin/python bench/readback_check.py [--hermes-python PATH] [--readback PATH] [--keep]

Each scenario gets a fresh temporary HERMES_HOME and a fresh temporary user home (for
``~/.honcho``, ``~/.hindsight``, ``~/ov``). The panel's public save API writes the values; then
``readback.py`` runs under the scratch interpreter that has hermes-agent 0.19.0 installed and
prints what each plugin's own code loaded. The table shows, per saved field, the value the plugin
ended up with and whether it is the one that was saved. Secrets are compared as "set" only.

Then, per field, a few valid and invalid values (bench/readback_values.py) go through the HTTP
API (``PUT /api/memory/providers/<name>/config`` with a signed-in owner): every valid value must be
accepted and loaded by the plugin exactly as saved; every invalid value must be refused (400), and,
planted in the files anyway, must be one the plugin does not use as given (it changes it, or passes
on something that cannot work, with the reason). The two figures to keep at zero are printed last:
accepted-but-unused and usable-refused. ``--scenarios-only`` skips this part.

Not part of CI (CI has no hermes-agent). Exit status: 0 all match, 1 mismatches, 2 not runnable.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import provider_schemas  # noqa: E402 - after the path setup above

HERMES_PYTHON = Path(os.environ.get("HERMES_0190_PYTHON", "/tmp/hermes-0190/bin/python"))
READBACK = Path("/work/shared/tools/readback.py")

# A check: (field key, submitted value, path into the provider's readback entry, what the plugin
# must have loaded). A path element "*" means "the first path that exists" is not supported on
# purpose: every expectation names exactly where the plugin's value is reported.
Check = tuple[str, Any, tuple[str, ...], Any]


@dataclass(frozen=True)
class Scenario:
    label: str
    provider: str
    checks: tuple[Check, ...]
    # Files created in the user home before saving (relative path -> text).
    user_files: tuple[tuple[str, str], ...] = ()

    @property
    def values(self) -> dict[str, Any]:
        return {key: submitted for key, submitted, _path, _expected in self.checks}


HOME_MARK = "<HERMES_HOME>"
EFF = "effective"

SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        "byterover",
        "byterover",
        (
            ("api_key", "brv-key", ("env", "BRV_API_KEY"), True),
            ("auto_extract", False, (EFF, "auto_extract"), False),
        ),
    ),
    Scenario(
        "hindsight (local_external)",
        "hindsight",
        (
            ("mode", "local_external", (EFF, "mode"), "local_external"),
            ("api_key", "hs-key", (EFF, "api_key_set"), True),
            ("api_url", "http://127.0.0.1:9077", (EFF, "api_url"), "http://127.0.0.1:9077"),
            ("timeout", "45", (EFF, "timeout"), 45),
            # The template below wins over bank_id at start, so bank_id is checked as loaded from the file.
            ("bank_id", "team-bank", ("loaded", "bank_id"), "team-bank"),
            ("bank_id_template", "hermes-{profile}", (EFF, "bank_id_template"), "hermes-{profile}"),
            ("bank_mission", "Remember projects.", (EFF, "bank_mission"), "Remember projects."),
            ("bank_retain_mission", "Extract decisions.", (EFF, "bank_retain_mission"), "Extract decisions."),
            ("recall_budget", "high", (EFF, "recall_budget"), "high"),
            ("memory_mode", "context", (EFF, "memory_mode"), "context"),
            ("recall_prefetch_method", "reflect", (EFF, "recall_prefetch_method"), "reflect"),
            ("auto_recall", False, (EFF, "auto_recall"), False),
            ("recall_max_tokens", "2048", (EFF, "recall_max_tokens"), 2048),
            ("recall_max_input_chars", "600", (EFF, "recall_max_input_chars"), 600),
            ("recall_types", "observation,world", (EFF, "recall_types"), ["observation", "world"]),
            ("recall_tags", '["project:hermes"]', (EFF, "recall_tags"), ["project:hermes"]),
            ("recall_tags_match", "all_strict", (EFF, "recall_tags_match"), "all_strict"),
            ("recall_prompt_preamble", "You remember:", (EFF, "recall_prompt_preamble"), "You remember:"),
            ("auto_retain", False, (EFF, "auto_retain"), False),
            ("retain_async", False, (EFF, "retain_async"), False),
            ("retain_every_n_turns", "3", (EFF, "retain_every_n_turns"), 3),
            ("retain_context", "chat with Eri", (EFF, "retain_context"), "chat with Eri"),
            ("retain_tags", "project:hermes,team:core", (EFF, "retain_tags"), ["project:hermes", "team:core"]),
            ("observation_scopes", "per_tag", (EFF, "observation_scopes"), "per_tag"),
            ("retain_source", "cli", (EFF, "retain_source"), "cli"),
            ("retain_user_prefix", "Eri", (EFF, "retain_user_prefix"), "Eri"),
            ("retain_assistant_prefix", "Hermes", (EFF, "retain_assistant_prefix"), "Hermes"),
        ),
    ),
    Scenario(
        "hindsight (local_embedded)",
        "hindsight",
        (
            ("mode", "local_embedded", ("loaded", "mode"), "local_embedded"),
            ("llm_provider", "openrouter", ("loaded", "llm_provider"), "openrouter"),
            ("llm_model", "qwen/qwen3.5-9b", ("loaded", "llm_model"), "qwen/qwen3.5-9b"),
            (
                "llm_base_url",
                "https://openrouter.ai/api/v1",
                ("loaded", "llm_base_url"),
                "https://openrouter.ai/api/v1",
            ),
            ("llm_api_key", "or-key", ("env", "HINDSIGHT_LLM_API_KEY"), True),
            ("idle_timeout", "0", ("loaded", "idle_timeout"), 0),
            ("port_health_grace_timeout", "45", ("loaded", "port_health_grace_timeout"), 45),
            ("profile", "hermes-work", ("loaded", "profile"), "hermes-work"),
        ),
    ),
    Scenario(
        "holographic",
        "holographic",
        (
            (
                "db_path",
                "$HERMES_HOME/facts.db",
                (EFF, "db_path (MemoryStore then applies Path.expanduser)"),
                f"{HOME_MARK}/facts.db",
            ),
            ("auto_extract", True, (EFF, "auto_extract_runs_on_session_end"), True),
            ("default_trust", "0.7", (EFF, "default_trust"), 0.7),
            ("min_trust_threshold", "0.2", (EFF, "min_trust_threshold"), 0.2),
            ("hrr_dim", "2048", (EFF, "hrr_dim"), 2048),
            ("hrr_weight", "0.5", (EFF, "hrr_weight"), 0.5),
            ("temporal_decay_half_life", "30", (EFF, "temporal_decay_half_life"), 30),
        ),
    ),
    Scenario(
        "honcho",
        "honcho",
        (
            ("apiKey", "hch-v2-key", (EFF, "api_key_set"), True),
            ("baseUrl", "http://localhost:8000", (EFF, "base_url"), "http://localhost:8000"),
            ("environment", "local", (EFF, "environment"), "local"),
            ("workspace", "team-ws", (EFF, "workspace_id"), "team-ws"),
            ("timeout", "12", (EFF, "timeout"), 12),
            ("peerName", "eri", (EFF, "peer_name"), "eri"),
            ("aiPeer", "hermes-ai", (EFF, "ai_peer"), "hermes-ai"),
            ("pinUserPeer", True, (EFF, "pin_peer_name"), True),
            ("runtimePeerPrefix", "telegram_", (EFF, "runtime_peer_prefix"), "telegram_"),
            ("userPeerAliases", '{"telegram_123": "eri"}', (EFF, "user_peer_aliases"), {"telegram_123": "eri"}),
            ("sessionStrategy", "per-repo", (EFF, "session_strategy"), "per-repo"),
            ("sessionPeerPrefix", True, (EFF, "session_peer_prefix"), True),
            ("sessions", '{"/work/main": "main"}', (EFF, "sessions"), {"/work/main": "main"}),
            ("writeFrequency", "turn", (EFF, "write_frequency"), "turn"),
            ("dialecticReasoningLevel", "medium", (EFF, "dialectic_reasoning_level"), "medium"),
            ("dialecticDynamic", False, (EFF, "dialectic_dynamic"), False),
            ("dialecticMaxChars", "900", (EFF, "dialectic_max_chars"), 900),
            ("dialecticDepth", "2", (EFF, "dialectic_depth"), 2),
            ("dialecticDepthLevels", '["low", "high"]', (EFF, "dialectic_depth_levels"), ["low", "high"]),
            ("dialecticMaxInputChars", "8000", (EFF, "dialectic_max_input_chars"), 8000),
            ("dialecticCadence", "2", (EFF, "dialectic_cadence"), 2),
            ("firstTurnDialecticWait", "1.5", (EFF, "first_turn_dialectic_wait"), 1.5),
            ("reasoningHeuristic", False, (EFF, "reasoning_heuristic"), False),
            ("reasoningLevelCap", "max", (EFF, "reasoning_level_cap"), "max"),
            ("recallMode", "tools", (EFF, "recall_mode"), "tools"),
            ("contextTokens", "1500", (EFF, "context_tokens"), 1500),
            ("contextCadence", "3", (EFF, "context_cadence"), 3),
            ("injectionFrequency", "first-turn", (EFF, "injection_frequency"), "first-turn"),
            ("firstTurnBaseWait", "0.5", (EFF, "first_turn_base_wait"), 0.5),
            ("queryRewrite", True, (EFF, "query_rewrite"), True),
            ("initOnSessionStart", True, (EFF, "init_on_session_start"), True),
            ("messageMaxChars", "20000", (EFF, "message_max_chars"), 20000),
            ("observationMode", "directional", (EFF, "observation_mode"), "directional"),
            (
                "observation",
                '{"user": {"observeMe": true, "observeOthers": false}}',
                (EFF, "user_observe_others"),
                False,
            ),
        ),
    ),
    Scenario(
        "mem0 (platform, self-hosted)",
        "mem0",
        (
            ("mode", "platform", (EFF, "mode"), "platform"),
            ("api_key", "m0-key", (EFF, "api_key_set"), True),
            ("host", "http://localhost:8000", (EFF, "host"), "http://localhost:8000"),
            ("user_id", "alice", (EFF, "user_id"), "alice"),
            ("agent_id", "hermes-work", (EFF, "agent_id"), "hermes-work"),
            ("rerank", True, (EFF, "rerank_default"), True),
        ),
    ),
    Scenario(
        "mem0 (oss)",
        "mem0",
        (
            ("mode", "oss", (EFF, "backend"), "OSSBackend"),
            (
                "oss",
                '{"vector_store": {"provider": "qdrant", "config": {"path": "/var/lib/mem0"}}}',
                ("loaded", "oss"),
                {"vector_store": {"provider": "qdrant", "config": {"path": "/var/lib/mem0"}}},
            ),
        ),
    ),
    Scenario(
        "openviking",
        "openviking",
        (
            ("endpoint", "http://10.0.0.5:1933", (EFF, "endpoint"), "http://10.0.0.5:1933"),
            ("api_key", "ov-key", (EFF, "api_key_set"), True),
            ("account", "acme", (EFF, "account"), "acme"),
            ("user", "alice", (EFF, "user"), "alice"),
            ("agent", "hermes-bot", (EFF, "agent"), "hermes-bot"),
            ("use_ovcli_config", True, ("loaded_config_yaml_memory_openviking", "use_ovcli_config"), True),
            ("ovcli_config_path", "~/ov/profile.conf", ("ovcli_config", "exists"), True),
            ("recall_limit", "12", (EFF, "recall", "limit"), 12),
            ("recall_score_threshold", "0.4", (EFF, "recall", "score_threshold"), 0.4),
            ("recall_max_injected_chars", "6000", (EFF, "recall", "max_injected_chars"), 6000),
            ("recall_timeout_seconds", "5.5", (EFF, "recall", "timeout_seconds"), 5.5),
            ("recall_request_timeout_seconds", "2.5", (EFF, "recall", "request_timeout_seconds"), 2.5),
            ("recall_full_read_limit", "4", (EFF, "recall", "full_read_limit"), 4),
            ("recall_prefer_abstract", True, (EFF, "recall", "prefer_abstract"), True),
            ("recall_resources", True, (EFF, "recall", "resources"), True),
        ),
        # The CLI profile exists and names other values: the .env values must still win.
        user_files=(
            (
                "ov/profile.conf",
                '{"url": "http://profile-host:9", "account": "p-acct", "user": "p-user", "agent_id": "p-agent"}',
            ),
        ),
    ),
    Scenario(
        "retaindb",
        "retaindb",
        (
            ("api_key", "rdb-key", (EFF, "api_key_set"), True),
            ("base_url", "https://rdb.example.com/v1/", (EFF, "base_url"), "https://rdb.example.com/v1"),
            ("project", "my-project", (EFF, "project"), "my-project"),
        ),
    ),
    Scenario(
        "supermemory",
        "supermemory",
        (
            ("api_key", "sm-key", (EFF, "api_key_set"), True),
            ("container_tag", "hermes_{identity}", ("loaded", "container_tag"), "hermes_{identity}"),
            ("base_url", "https://sm.example.com", (EFF, "base_url"), "https://sm.example.com"),
            ("api_timeout", "8", (EFF, "api_timeout"), 8),
            ("auto_recall", False, (EFF, "auto_recall"), False),
            ("auto_capture", False, (EFF, "auto_capture"), False),
            ("capture_mode", "everything", (EFF, "capture_mode"), "everything"),
            ("search_mode", "memories", (EFF, "search_mode"), "memories"),
            ("max_recall_results", "15", (EFF, "max_recall_results"), 15),
            ("profile_frequency", "25", (EFF, "profile_frequency"), 25),
            (
                "entity_context",
                "Remember projects.\nIgnore small talk.",
                (EFF, "entity_context"),
                "Remember projects.\nIgnore small talk.",
            ),
            ("enable_custom_container_tags", True, (EFF, "enable_custom_container_tags"), True),
            ("custom_containers", '["work", "family"]', (EFF, "custom_containers"), ["work", "family"]),
            (
                "custom_container_instructions",
                "Use work for job topics.",
                (EFF, "custom_container_instructions"),
                "Use work for job topics.",
            ),
        ),
    ),
)

_MISSING = object()


def dig(entry: Any, path: tuple[str, ...]) -> Any:
    for part in path:
        if not isinstance(entry, dict) or part not in entry:
            return _MISSING
        entry = entry[part]
    return entry


def same(actual: Any, expected: Any) -> bool:
    if isinstance(expected, bool) or isinstance(actual, bool):
        return actual is expected
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        return float(actual) == float(expected)
    return actual == expected


def show(value: Any, width: int = 34) -> str:
    text = "(missing)" if value is _MISSING else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 1] + "…"


@dataclass
class Row:
    scenario: str
    key: str
    saved: Any
    plugin: Any
    ok: bool
    secret: bool


def run_scenario(scenario: Scenario, *, hermes_python: Path, readback: Path, workdir: Path) -> list[Row]:
    home = workdir / "hermes"
    user = workdir / "user"
    home.mkdir()
    user.mkdir()
    for relative, text in scenario.user_files:
        target = user / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    # The panel resolves ~ through HOME (honcho's shared file, hindsight's legacy file).
    saved_home = os.environ.get("HOME")
    os.environ["HOME"] = str(user)
    try:
        provider_schemas.save_provider(home=home, name=scenario.provider, values=scenario.values)
    finally:
        if saved_home is None:
            os.environ.pop("HOME", None)
        else:
            os.environ["HOME"] = saved_home
    completed = subprocess.run(
        [str(hermes_python), str(readback), str(home), "--home", str(user)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=workdir,
    )
    if completed.returncode != 0:
        raise RuntimeError(f"readback failed for {scenario.label}: {completed.stderr.strip()[-400:]}")
    report = json.loads(completed.stdout)[scenario.provider]
    schema = provider_schemas.get_provider_config_schema(scenario.provider, home=home)
    secrets = {f.key for f in getattr(schema, "fields", ()) if f.is_secret}
    rows = []
    for key, submitted, path, expected in scenario.checks:
        if isinstance(expected, str):
            expected = expected.replace(HOME_MARK, str(home.resolve()))
        actual = dig(report, path)
        ok = actual is not _MISSING and same(actual, expected)
        rows.append(Row(scenario.label, key, submitted, actual, ok, key in secrets))
    if any(not row.ok for row in rows):
        (workdir / "readback.json").write_text(json.dumps(report, indent=2), encoding="utf-8")
    return rows


# --- valid and invalid values per field, through the API -----------------------------------------


def _api_client(workdir: Path) -> Any:
    """A Django test client signed in as an owner, on a throw-away panel database."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "admin_panel.settings")
    os.environ["PANEL_DATA_DIR"] = str(workdir / "panel-data")
    os.environ.setdefault("HERMES_HOME", str(workdir / "unused-home"))
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client
    from django.test.utils import setup_test_environment

    setup_test_environment()
    logging.getLogger("django.request").setLevel(logging.ERROR)  # every refusal would log a warning
    call_command("migrate", verbosity=0)
    user = get_user_model().objects.create_user(username="bench", password="x" * 16, is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(user)
    return client


def _api_put(client: Any, *, home: Path, user: Path, name: str, values: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    from django.test import override_settings

    saved_home = os.environ.get("HOME")
    os.environ["HOME"] = str(user)
    try:
        with override_settings(HERMES_HOME=home):
            response = client.put(
                f"/api/memory/providers/{name}/config", json.dumps({"values": values}), content_type="application/json"
            )
    finally:
        os.environ["HOME"] = saved_home or ""
    return response.status_code, response.json()


def _plant(*, home: Path, user: Path, name: str, values: dict[str, Any]) -> None:
    """Write values the panel refuses, as a hand edit would, to see what the plugin does with them."""
    from unittest import mock

    import provider_schemas.values as values_module

    saved_home = os.environ.get("HOME")
    os.environ["HOME"] = str(user)
    try:
        with mock.patch.object(values_module, "violation", lambda _field, _value: None):
            provider_schemas.save_provider(home=home, name=name, values=values)
    finally:
        os.environ["HOME"] = saved_home or ""


def _native(name: str, key: str, value: Any, home: Path) -> Any:
    """What the panel stores for ``value`` (constraints aside): the value the plugin should load."""
    from unittest import mock

    import provider_schemas.values as values_module

    schema = provider_schemas.get_provider_config_schema(name, home=home)
    field = next(f for f in schema.fields if f.key == key)
    with mock.patch.object(values_module, "violation", lambda _field, _value: None):
        return values_module.coerce(field, value, storage=field.storage or schema.storage).value


def _readback(home: Path, user: Path, *, hermes_python: Path, readback: Path) -> dict[str, Any]:
    completed = subprocess.run(
        [str(hermes_python), str(readback), str(home), "--home", str(user)],
        capture_output=True, text=True, timeout=300, check=False, cwd=home.parent,
    )  # fmt: skip
    if completed.returncode != 0:
        raise RuntimeError(f"readback failed: {completed.stderr.strip()[-400:]}")
    return json.loads(completed.stdout)


@dataclass
class ValueRow:
    provider: str
    key: str
    value: Any
    valid: bool
    api_status: int
    outcome: str  # loaded-as-saved | accepted-but-unused | refused-by-api-but-valid | changed-by-plugin
    #               | passed-on-unusable | usable-refused | accepted-but-invalid
    plugin: Any = None
    note: str = ""


def run_values(*, hermes_python: Path, readback: Path, root: Path) -> list[ValueRow]:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from readback_values import CHANGED, FIELDS, SAME

    client = _api_client(root)
    rows: list[ValueRow] = []
    # Valid values: one home per round, every provider saved in it, one value per field per round;
    # fields that need another context (a mode) get rounds of their own.
    rounds: dict[int, dict[str, dict[str, Any]]] = {}
    afterwards: dict[int, dict[str, dict[str, Any]]] = {}
    checks: dict[int, list[tuple[str, str, Any, Any, tuple[str, ...]]]] = {}
    for provider, fields in FIELDS.items():
        groups: dict[str, list[str]] = {}
        for key, spec in fields.items():
            groups.setdefault(json.dumps([spec["context"], spec["after"]], sort_keys=True), []).append(key)
        offset = 0
        for context_text, keys in groups.items():
            depth = max(len(fields[k]["valid"]) for k in keys)
            context, after = json.loads(context_text)
            for i in range(depth):
                values = dict(context)
                for key in keys:
                    valid = fields[key]["valid"]
                    if i < len(valid):
                        value, expected = valid[i] if isinstance(valid[i], tuple) else (valid[i], SAME)
                        values[key] = value
                        checks.setdefault(offset + i, []).append((provider, key, value, expected, fields[key]["path"]))
                rounds.setdefault(offset + i, {})[provider] = values
                if after:
                    afterwards.setdefault(offset + i, {})[provider] = after
            offset += depth
    for index in sorted(rounds):
        home, user = root / f"valid-{index:02d}" / "hermes", root / f"valid-{index:02d}" / "user"
        home.mkdir(parents=True)
        user.mkdir()
        statuses = {}
        for provider, values in rounds[index].items():
            statuses[provider] = _api_put(client, home=home, user=user, name=provider, values=values)
        for provider, values in afterwards.get(index, {}).items():
            _api_put(client, home=home, user=user, name=provider, values=values)
        report = _readback(home, user, hermes_python=hermes_python, readback=readback)
        for provider, key, value, expected, path in checks.get(index, []):
            status, body = statuses[provider]
            if status != 200:
                note = (body.get("errors") or {}).get(key) or body.get("detail", "")
                rows.append(ValueRow(provider, key, value, True, status, "refused-by-api-but-valid", note=str(note)))
                continue
            want = _native(provider, key, value, home) if expected is SAME else expected
            actual = dig(report[provider], path)
            ok = actual is not _MISSING and same(actual, want)
            rows.append(ValueRow(provider, key, value, True, status,
                                 "loaded-as-saved" if ok else "accepted-but-unused", plugin=actual))
    # Invalid values: the API must refuse each; then one planted value per provider per round.
    planted: dict[int, list[tuple[str, str, Any, str, tuple[str, ...], dict[str, Any], dict[str, Any]]]] = {}
    for provider, fields in FIELDS.items():
        cases = [(key, value, reason) for key, spec in fields.items() for value, reason in spec["invalid"]]
        for i, (key, value, reason) in enumerate(cases):
            spec = fields[key]
            planted.setdefault(i, []).append((provider, key, value, reason, spec["path"], spec["context"],
                                              spec["after"]))
    for index in sorted(planted):
        home, user = root / f"invalid-{index:02d}" / "hermes", root / f"invalid-{index:02d}" / "user"
        home.mkdir(parents=True)
        user.mkdir()
        refused: dict[tuple[str, str], tuple[int, str]] = {}
        for provider, key, value, _reason, _path, context, after in planted[index]:
            status, body = _api_put(client, home=home, user=user, name=provider, values={**context, key: value})
            constraint = ((body.get("field_errors") or {}).get(key) or {}).get("constraint", "")
            refused[(provider, key)] = (status, constraint)
            if status == 400:
                _plant(home=home, user=user, name=provider, values={**context, key: value})
                if after:
                    _api_put(client, home=home, user=user, name=provider, values=after)
        report = _readback(home, user, hermes_python=hermes_python, readback=readback)
        for provider, key, value, reason, path, _context, _after in planted[index]:
            status, constraint = refused[(provider, key)]
            if status != 400:
                rows.append(ValueRow(provider, key, value, False, status, "accepted-but-invalid"))
                continue
            actual = dig(report[provider], path)
            used_as_given = actual is not _MISSING and same(actual, _native(provider, key, value, home))
            if not used_as_given:
                outcome, note = "changed-by-plugin", f"refused: {constraint}"
            elif reason != CHANGED:
                outcome, note = "passed-on-unusable", reason
            else:
                outcome, note = "usable-refused", f"refused: {constraint}"
            rows.append(ValueRow(provider, key, value, False, status, outcome, plugin=actual, note=note))
    return rows


def print_values(rows: list[ValueRow]) -> tuple[int, int]:
    print()
    print(f"{'provider':<12} {'field':<31} {'value':<24} {'API':<4} {'plugin loaded':<26} outcome")
    print("-" * 132)
    for row in rows:
        print(f"{row.provider:<12} {row.key:<31} {show(row.value, 24):<24} {row.api_status:<4} "
              f"{show(row.plugin, 26):<26} {row.outcome}{' (' + row.note + ')' if row.note else ''}")
    print("-" * 132)
    counts: dict[str, int] = {}
    for row in rows:
        counts[row.outcome] = counts.get(row.outcome, 0) + 1
    valid = [r for r in rows if r.valid]
    invalid = [r for r in rows if not r.valid]
    fields = len({(r.provider, r.key) for r in rows})
    print(f"{len(valid)} valid values over {fields} fields: {counts.get('loaded-as-saved', 0)} accepted and loaded "
          f"as saved, {counts.get('refused-by-api-but-valid', 0)} refused by the API")
    print(f"{len(invalid)} invalid values: {len(invalid) - counts.get('accepted-but-invalid', 0)} refused by the API "
          f"(400); planted anyway, the plugin changes {counts.get('changed-by-plugin', 0)} and passes on "
          f"{counts.get('passed-on-unusable', 0)} it cannot use")
    unused = counts.get("accepted-but-unused", 0) + counts.get("accepted-but-invalid", 0)
    usable_refused = counts.get("usable-refused", 0) + counts.get("refused-by-api-but-valid", 0)
    print(f"accepted-but-unused: {unused}    usable-refused: {usable_refused}")
    return unused, usable_refused


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hermes-python", type=Path, default=HERMES_PYTHON)
    parser.add_argument("--readback", type=Path, default=READBACK)
    parser.add_argument("--keep", action="store_true", help="keep the temporary homes and print where")
    parser.add_argument("--scenarios-only", action="store_true", help="skip the per-field valid/invalid values")
    parser.add_argument("--values-only", action="store_true", help="skip the scenarios")
    args = parser.parse_args(argv)
    if not args.hermes_python.exists():
        print(f"not run: no hermes-agent 0.19.0 interpreter at {args.hermes_python}")
        return 2
    if not args.readback.exists():
        print(f"not run: readback tool not found at {args.readback}")
        return 2

    os.environ.pop("HERMES_HONCHO_HOST", None)
    root = Path(tempfile.mkdtemp(prefix="readback-check-"))
    rows: list[Row] = []
    value_rows: list[ValueRow] = []
    started = time.perf_counter()
    try:
        for index, scenario in enumerate(() if args.values_only else SCENARIOS):
            workdir = root / f"{index:02d}-{scenario.provider}"
            workdir.mkdir()
            rows.extend(
                run_scenario(scenario, hermes_python=args.hermes_python, readback=args.readback, workdir=workdir)
            )
        if not args.scenarios_only:
            value_root = root / "values"
            value_root.mkdir()
            value_rows = run_values(hermes_python=args.hermes_python, readback=args.readback, root=value_root)
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    elapsed = time.perf_counter() - started

    bad = [row for row in rows if not row.ok]
    if rows:
        print(f"{'scenario':<29} {'field':<31} {'saved':<34} {'plugin loaded':<34} ok")
        print("-" * 132)
        for row in rows:
            saved = "(secret, set)" if row.secret else show(row.saved)
            print(f"{row.scenario:<29} {row.key:<31} {saved:<34} {show(row.plugin):<34} {'yes' if row.ok else 'NO'}")
        print("-" * 132)
        print(
            f"{len(rows)} values in {len(SCENARIOS)} scenarios over {len({s.provider for s in SCENARIOS})} providers: "
            f"{len(rows) - len(bad)} loaded by the 0.19.0 plugin as saved, {len(bad)} mismatched"
        )
    unused = usable_refused = 0
    if value_rows:
        unused, usable_refused = print_values(value_rows)
    print(f"({elapsed:.1f} s)")
    if args.keep:
        print(f"homes kept under {root}")
    return 1 if bad or unused or usable_refused else 0


if __name__ == "__main__":
    sys.exit(main())

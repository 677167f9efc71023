"""A hand-edited ``.env``: ``export`` prefixes, quotes, comments, CRLF, duplicate keys, no final
newline. A save changes only the lines of the key it writes; every other byte stays as it was,
and the agent's own parser (python-dotenv) still reads every other value unchanged. A .env the
panel cannot rewrite safely is refused, with nothing written."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.bad_input.helpers import api_put, assert_refused, assert_unchanged, others_still_work, snapshot

pytestmark = pytest.mark.django_db

HERMES_PYTHON = Path("/tmp/hermes-0190/bin/python")
MESSY = (
    "# written by hand\r\n"
    'export OPENAI_API_KEY="sk-quoted # not a comment"\r\n'
    "SINGLE='single quoted value'\r\n"
    "SPACED = spaced value   # trailing comment\r\n"
    "\r\n"
    "HINDSIGHT_API_KEY=old-key-1\r\n"
    "EMPTY=\r\n"
    "DUP=first\r\n"
    "DUP=second\r\n"
    "export HINDSIGHT_API_KEY='old-key-2'\r\n"
    "MULTI='line one\r\nline two'\r\n"
    "UNICODE=héllo wörld ✓\r\n"
    "\tINDENTED=tab before\n"
    "LAST=no trailing newline"
)
OTHER_VALUES = {
    "OPENAI_API_KEY": "sk-quoted # not a comment",
    "SINGLE": "single quoted value",
    "SPACED": "spaced value",
    "EMPTY": "",
    "DUP": "second",
    "UNICODE": "héllo wörld ✓",
    "INDENTED": "tab before",
    "LAST": "no trailing newline",
}


def _defines(line: str, key: str) -> bool:
    return re.match(rf"\s*(export\s+)?{re.escape(key)}\s*=", line) is not None


def _other_lines(text: str, key: str) -> list[str]:
    """The file's lines, minus those defining ``key``, with line terminators taken off the last one
    (appending a variable adds the missing final newline)."""
    lines = [line for line in text.splitlines(keepends=True) if not _defines(line, key)]
    if lines:
        lines[-1] = lines[-1].rstrip("\r\n")
    return lines


def _dotenv_values(path: Path) -> dict[str, str | None]:
    if not HERMES_PYTHON.exists():
        pytest.skip("hermes-agent 0.19.0's virtualenv (with python-dotenv) is not installed")
    script = "import json, sys, dotenv; print(json.dumps(dotenv.dotenv_values(sys.argv[1])))"
    result = subprocess.run([str(HERMES_PYTHON), "-c", script, str(path)], capture_output=True, text=True,
                            timeout=180, check=True)
    return json.loads(result.stdout)


@pytest.fixture
def messy_env(home) -> Path:
    path = home / ".env"
    path.write_bytes(MESSY.encode("utf-8"))
    return path


def test_it_replaces_a_secret_and_keeps_every_other_byte(owner_client, home, messy_env):
    response = api_put(owner_client, "/api/memory/providers/hindsight/config", {"values": {"api_key": "new-key"}})

    text = messy_env.read_bytes().decode("utf-8")
    assert response.status_code == 200, response.content
    assert _other_lines(text, "HINDSIGHT_API_KEY") == _other_lines(MESSY, "HINDSIGHT_API_KEY")
    assert [line for line in text.splitlines() if _defines(line, "HINDSIGHT_API_KEY")] == ["HINDSIGHT_API_KEY=new-key"]
    values = _dotenv_values(messy_env)
    assert values["HINDSIGHT_API_KEY"] == "new-key"
    assert {k: values.get(k) for k in OTHER_VALUES} == OTHER_VALUES
    assert values["MULTI"].replace("\r\n", "\n") == "line one\nline two"


def test_it_appends_a_new_variable_after_a_last_line_without_newline(owner_client, home, messy_env):
    response = api_put(owner_client, "/api/memory/providers/retaindb/config",
                       {"values": {"project": "team project x"}})

    text = messy_env.read_bytes().decode("utf-8")
    assert response.status_code == 200, response.content
    assert text.startswith(MESSY)
    assert text[len(MESSY):] in ('\nRETAINDB_PROJECT="team project x"\n',
                                 '\r\nRETAINDB_PROJECT="team project x"\n',
                                 '\nRETAINDB_PROJECT="team project x"',
                                 '\r\nRETAINDB_PROJECT="team project x"\r\n')
    values = _dotenv_values(messy_env)
    assert values["RETAINDB_PROJECT"] == "team project x"
    assert values["LAST"] == "no trailing newline"


def test_it_clears_every_definition_of_a_secret_and_nothing_else(owner_client, home, messy_env):
    response = api_put(owner_client, "/api/memory/providers/hindsight/config", {"values": {}, "clear": ["api_key"]})

    text = messy_env.read_bytes().decode("utf-8")
    assert response.status_code == 200, response.content
    assert not any(_defines(line, "HINDSIGHT_API_KEY") for line in text.splitlines())
    assert _other_lines(text, "HINDSIGHT_API_KEY") == _other_lines(MESSY, "HINDSIGHT_API_KEY")
    assert messy_env.stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("value", ["has space", "has#hash", 'has"quote', "has'single", "back\\slash",
                                   "ünïcödé", "trailing\\"])
def test_it_writes_values_the_agent_reads_back_exactly(owner_client, home, messy_env, value):
    response = api_put(owner_client, "/api/memory/providers/retaindb/config", {"values": {"project": value}})

    assert response.status_code == 200, response.content
    values = _dotenv_values(messy_env)
    assert values["RETAINDB_PROJECT"] == value
    assert {k: values.get(k) for k in OTHER_VALUES} == OTHER_VALUES


def test_it_reports_duplicate_definitions_by_the_last_one_like_the_agent(owner_client, home, messy_env):
    payload = owner_client.get("/api/memory/providers/hindsight/config").json()

    api_key = next(f for f in payload["fields"] if f["key"] == "api_key")
    assert api_key["is_set"] is True and api_key["value"] == ""
    assert "old-key" not in json.dumps(payload)


@pytest.mark.parametrize(("name", "data", "problem"), [
    ("not_utf8", b"GOOD=1\nBAD=\xff\xfe\n", "UTF-8"),
])
def test_it_refuses_to_rewrite_an_env_file_it_cannot_read(owner_client, home, name, data, problem):
    (home / ".env").write_bytes(data)
    before = snapshot(home)

    response = api_put(owner_client, "/api/memory/providers/hindsight/config", {"values": {"api_key": "k"}})

    assert_refused(response, ".env", problem, statuses=(409,))
    assert_unchanged(home, before)
    assert owner_client.get("/providers/hindsight/").status_code == 200


def test_it_refuses_an_env_directory(owner_client, home):
    (home / ".env").mkdir()
    before = snapshot(home)

    response = api_put(owner_client, "/api/memory/providers/retaindb/config", {"values": {"base_url": "https://x"}})

    assert_refused(response, ".env", statuses=(409,))
    assert_unchanged(home, before)
    assert owner_client.get("/providers/retaindb/").status_code == 200
    others_still_work(owner_client, home)


def test_it_handles_a_large_env_file(owner_client, home):
    body = "".join(f"VAR_{i}=value {i}  # note\n" for i in range(40_000))
    (home / ".env").write_text(body)

    response = api_put(owner_client, "/api/memory/providers/hindsight/config", {"values": {"api_key": "k2"}})

    assert response.status_code in (200, 409), response.content[:300]
    if response.status_code == 200:
        text = (home / ".env").read_text()
        assert text.startswith(body) and text.endswith("HINDSIGHT_API_KEY=k2\n")

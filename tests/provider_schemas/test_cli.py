"""`manage.py schema ...` and `manage.py secrets exec` (plain functions and the Django commands)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command

from provider_schemas import keyring_service, provider_config_payload, read_provider
from provider_schemas.cli import run_list, run_show, secrets_exec

from .conftest import FIXTURES, install_plugin

REPO = Path(__file__).resolve().parents[2]


def test_it_lists_every_provider_with_status_shadowing_and_bad_names(agent_home: Path, plugin) -> None:
    plugin("jsonprov")
    install_plugin(agent_home, "honcho", source="CONFIG_SCHEMA = None\n")
    install_plugin(agent_home, "bad.name")
    install_plugin(agent_home, "broken", source="(\n")
    out = io.StringIO()
    assert run_list(home=agent_home, out=out) == 0
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("builtin ")
    text = out.getvalue()
    assert "jsonprov" in text and "needs_config (missing JSONPROV_API_KEY)" in text
    assert "schema_error: SyntaxError" in text
    assert 'shadowed by the bundled provider "honcho" (its config_schema.py is ignored)' in text
    assert any(line.startswith("honcho") and "plugins/honcho" in line and "shadowed" in line for line in lines)
    assert "bad.name" in text and "name cannot be addressed" in text


def test_it_shows_the_api_payload_as_json(agent_home: Path, plugin) -> None:
    plugin("jsonprov")
    out, err = io.StringIO(), io.StringIO()
    assert run_show("jsonprov", home=agent_home, out=out, err=err, as_json=True) == 0
    assert json.loads(out.getvalue()) == provider_config_payload(read_provider(home=agent_home, name="jsonprov"))
    assert run_show("../x", home=agent_home, out=out, err=err) == 1
    assert "Unknown memory provider: ../x" in err.getvalue()


def test_it_runs_a_command_with_keyring_secrets_added_to_its_environment(
    agent_home: Path, plugin, dict_keyring
) -> None:
    plugin("jsonprov")
    dict_keyring.set_password(keyring_service(agent_home), "JSONPROV_API_KEY", "ring-value")
    dict_keyring.set_password(keyring_service(agent_home), "HINDSIGHT_API_KEY", "hs-value")
    dict_keyring.set_password(keyring_service(agent_home), "UNDECLARED", "never-exported")
    captured: dict = {}

    def fake_exec(file, args, env):
        captured.update(file=file, args=args, env=env)

    err = io.StringIO()
    status = secrets_exec(
        home=agent_home, argv=["hermes", "chat"], err=err, environ={"PATH": "/bin"}, execvpe=fake_exec
    )
    assert status == 0
    assert captured["file"] == "hermes" and captured["args"] == ["hermes", "chat"]
    assert captured["env"]["JSONPROV_API_KEY"] == "ring-value" and captured["env"]["HINDSIGHT_API_KEY"] == "hs-value"
    assert "UNDECLARED" not in captured["env"] and captured["env"]["PATH"] == "/bin"
    assert captured["env"]["HERMES_HOME"] == str(agent_home)
    assert "ring-value" not in err.getvalue() and "2 secret(s)" in err.getvalue()


def test_it_refuses_secrets_exec_without_a_command(agent_home: Path) -> None:
    err = io.StringIO()
    assert secrets_exec(home=agent_home, argv=[], err=err, execvpe=lambda *a: pytest.fail("ran")) == 1


def test_the_schema_command_checks_a_file_and_exits_1_on_errors(settings, agent_home: Path) -> None:
    settings.HERMES_HOME = agent_home
    out = io.StringIO()
    call_command("schema", "check", str(FIXTURES / "example" / "config_schema.py"), stdout=out)
    assert out.getvalue().strip().endswith("OK")
    with pytest.raises(SystemExit) as caught:
        call_command("schema", "check", str(FIXTURES / "lintme" / "config_schema.py"), stdout=io.StringIO())
    assert caught.value.code == 1


def test_the_schema_command_lists_and_shows(settings, agent_home: Path, plugin) -> None:
    settings.HERMES_HOME = agent_home
    plugin("flatprov")
    out = io.StringIO()
    call_command("schema", "list", stdout=out)
    assert "flatprov" in out.getvalue() and "plugins/flatprov" in out.getvalue()
    out = io.StringIO()
    call_command("schema", "show", "flatprov", "--json", stdout=out)
    assert json.loads(out.getvalue())["name"] == "flatprov"


def test_the_secrets_command_execs_the_given_command(tmp_path: Path) -> None:
    home = tmp_path / "hermes"
    home.mkdir()
    script = (
        "import keyring, sys\n"
        "sys.path.insert(0, {repo!r})\n"
        "from tests.keyrings import DictKeyring\n"
        "backend = DictKeyring()\n"
        "backend.set_password('memory-panel:' + {home!r}, 'RETAINDB_API_KEY', 'rdb-secret')\n"
        "keyring.set_keyring(backend)\n"
        "sys.argv = ['manage.py', 'secrets', 'exec', '--', sys.executable, '-c',\n"
        "            'import os; print(os.environ.get(\"RETAINDB_API_KEY\"))']\n"
        "import runpy\n"
        "runpy.run_path({manage!r}, run_name='__main__')\n"
    ).format(repo=str(REPO), home=str(home.resolve()), manage=str(REPO / "manage.py"))
    env = {
        "HERMES_HOME": str(home),
        "HOME": str(tmp_path),
        "PATH": "/usr/bin:/bin",
        "PANEL_DATA_DIR": str(tmp_path / "panel"),
    }
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True, timeout=180
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "rdb-secret"
    assert "rdb-secret" not in result.stderr

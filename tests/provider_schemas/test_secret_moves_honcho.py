"""Moving Honcho's key: the plain-text copy in its host block of honcho.json goes too, and comes not back.

With the env file store the panel (like 0.19.0) mirrors the key into ``hosts.<host>.apiKey``, which
the plugin reads before ``HONCHO_API_KEY``. A move to the keyring that left it there would leave the
secret in plain text; the real 0.19.0 plugin (readback.py) must load the key the same way after the
move (through ``secrets exec``) and after the move back.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from provider_schemas import keyring_service
from provider_schemas.saving import journal
from provider_schemas.saving.locks import recover
from provider_schemas.saving.secret_moves import every_profile_home, move_secrets, move_secrets_of_homes, plan_move
from tests.agent_readback import AGENT_PYTHON, READBACK, READBACK_MISSING

REPO = Path(__file__).resolve().parents[2]
KEY = "hc-mirrored key"
SHARED = {"hosts": {"hermes": {"apiKey": KEY}, "hermes_work": {"apiKey": "work-key"}}}
ENV_TEXT = f'# kept\nOTHER=1\nHONCHO_API_KEY="{KEY}"\n'


def panel_entries(service, home: Path) -> dict[str, str]:
    own = keyring_service(home)
    return {user: value for (svc, user), value in service.items().items() if svc == own}


def files_holding(root: Path, value: str) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and value.encode() in p.read_bytes()]


def write_json(path: Path, data: dict) -> None:
    path.write_text(json.dumps(data, indent=2) + "\n")
    path.chmod(0o600)


@pytest.fixture
def honcho_home(home: Path) -> Path:
    (home / ".env").write_text(ENV_TEXT)
    (home / ".env").chmod(0o600)
    write_json(home / "honcho.json", {"baseUrl": "", "hosts": {"hermes": {"apiKey": KEY, "workspace": "ws-1"}}})
    return home


def honcho_file(home: Path) -> dict:
    return json.loads((home / "honcho.json").read_text())


def test_it_takes_the_host_block_copy_out_of_honcho_json_when_moving_to_the_keyring(honcho_home, real_keyring):
    plan = move_secrets(home=honcho_home, to="keyring")

    assert plan.variables == ["HONCHO_API_KEY"]
    assert panel_entries(real_keyring, honcho_home) == {"HONCHO_API_KEY": KEY}
    assert honcho_file(honcho_home) == {"baseUrl": "", "hosts": {"hermes": {"workspace": "ws-1"}}}
    assert (honcho_home / ".env").read_text() == "# kept\nOTHER=1\n"
    assert files_holding(honcho_home, KEY) == []  # not in .env, honcho.json, the journal or a temp
    assert (honcho_home / "honcho.json").stat().st_mode & 0o777 == 0o600


def test_it_does_not_put_the_key_back_into_the_host_block_when_moving_back_to_env(honcho_home, real_keyring):
    move_secrets(home=honcho_home, to="keyring")
    in_keyring = (honcho_home / "honcho.json").read_bytes()

    plan = move_secrets(home=honcho_home, to="env_file")

    assert plan.names == ["HONCHO_API_KEY"]
    assert (honcho_home / "honcho.json").read_bytes() == in_keyring
    assert f'HONCHO_API_KEY="{KEY}"' in (honcho_home / ".env").read_text()
    assert panel_entries(real_keyring, honcho_home) == {}


def test_it_keeps_the_host_block_value_the_plugin_reads_first_when_env_holds_another(honcho_home, real_keyring):
    (honcho_home / ".env").write_text("HONCHO_API_KEY=an-older-key\n")

    move_secrets(home=honcho_home, to="keyring")

    assert panel_entries(real_keyring, honcho_home) == {"HONCHO_API_KEY": KEY}
    assert files_holding(honcho_home, "an-older-key") == []
    assert "apiKey" not in honcho_file(honcho_home)["hosts"]["hermes"]


def test_it_moves_a_key_held_only_in_the_host_block(honcho_home, real_keyring):
    (honcho_home / ".env").write_text("# nothing here\n")

    move_secrets(home=honcho_home, to="keyring")

    assert panel_entries(real_keyring, honcho_home) == {"HONCHO_API_KEY": KEY}
    assert (honcho_home / ".env").read_text() == "# nothing here\n"
    assert files_holding(honcho_home, KEY) == []


def test_it_never_touches_an_oauth_access_token_in_the_host_block(honcho_home, real_keyring):
    write_json(honcho_home / "honcho.json", {"hosts": {"hermes": {"apiKey": "hch-at-token", "oauth": {"r": 1}}}})
    before = (honcho_home / "honcho.json").read_bytes()

    move_secrets(home=honcho_home, to="keyring")

    assert (honcho_home / "honcho.json").read_bytes() == before
    assert panel_entries(real_keyring, honcho_home) == {"HONCHO_API_KEY": KEY}  # the .env key still moves


def test_it_edits_only_the_profiles_own_host_block_in_the_shared_file(honcho_home, real_keyring):
    work = honcho_home / "profiles" / "work"
    work.mkdir(parents=True)
    (work / ".env").write_text("HONCHO_API_KEY=work-key\n")
    write_json(honcho_home / "honcho.json", SHARED)

    move_secrets(home=work, to="keyring")

    assert honcho_file(honcho_home) == {"hosts": {"hermes": {"apiKey": KEY}, "hermes_work": {}}}
    assert panel_entries(real_keyring, work) == {"HONCHO_API_KEY": "work-key"}


def test_it_moves_every_profile_sharing_one_honcho_json(honcho_home, real_keyring):
    work = honcho_home / "profiles" / "work"
    work.mkdir(parents=True)
    (work / ".env").write_text("HONCHO_API_KEY=work-key\n")
    write_json(honcho_home / "honcho.json", SHARED)

    move_secrets_of_homes(homes=every_profile_home(honcho_home), to="keyring")

    assert honcho_file(honcho_home) == {"hosts": {"hermes": {}, "hermes_work": {}}}
    assert panel_entries(real_keyring, honcho_home) == {"HONCHO_API_KEY": KEY}
    assert panel_entries(real_keyring, work) == {"HONCHO_API_KEY": "work-key"}
    assert files_holding(honcho_home, "work-key") == []


def test_it_finishes_a_honcho_move_killed_before_any_file_was_replaced(honcho_home, real_keyring):
    (honcho_home / ".env").write_text("HONCHO_API_KEY=an-older-key\nMEM0_API_KEY=m0\n")
    child = subprocess.run(
        [sys.executable, "-m", "tests.killing_keyring", str(honcho_home), "keyring", "set_password", "2"],
        cwd=REPO, env=dict(os.environ), capture_output=True, timeout=300,
    )
    assert child.returncode == -signal.SIGKILL, child.stderr.decode()
    assert journal.journal_path(honcho_home).exists()
    assert honcho_file(honcho_home)["hosts"]["hermes"]["apiKey"] == KEY  # still there: nothing lost

    recovery = recover(home=honcho_home)

    assert recovery is not None and recovery.completed
    assert panel_entries(real_keyring, honcho_home) == {"HONCHO_API_KEY": KEY, "MEM0_API_KEY": "m0"}
    assert honcho_file(honcho_home)["hosts"]["hermes"] == {"workspace": "ws-1"}
    assert files_holding(honcho_home, KEY) == [] and files_holding(honcho_home, "an-older-key") == []


def _readback(home: Path, user_home: Path, *, through_keyring: bool) -> dict:
    reader = [str(AGENT_PYTHON), str(READBACK), str(home), "--home", str(user_home)]
    env = {k: v for k, v in os.environ.items() if not k.startswith("HONCHO_")}
    if through_keyring:  # how a keyring user starts the agent
        env.update(HERMES_HOME=str(home), DJANGO_SETTINGS_MODULE="admin_panel.settings")
        argv = [sys.executable, "manage.py", "secrets", "exec", "--", *reader, "--inherit-env"]
    else:
        argv = reader
    out = subprocess.run(argv, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)["honcho"]


@pytest.mark.skipif(READBACK_MISSING, reason="hermes-agent 0.19.0 readback not installed")
def test_it_leaves_the_real_plugin_loading_the_key_as_before_after_each_move(honcho_home, user_home, real_keyring):
    before = _readback(honcho_home, user_home, through_keyring=False)
    assert before["effective"]["api_key_set"] is True

    move_secrets(home=honcho_home, to="keyring")
    in_keyring = _readback(honcho_home, user_home, through_keyring=True)
    without_exec = _readback(honcho_home, user_home, through_keyring=False)
    move_secrets(home=honcho_home, to="env_file")
    after = _readback(honcho_home, user_home, through_keyring=False)

    assert in_keyring["effective"] == before["effective"]
    assert without_exec["effective"]["api_key_set"] is False  # the plain-text copy really is gone
    assert after["effective"] == before["effective"]
    assert "apiKey" not in after["loaded_file"]["hosts"]["hermes"]  # loaded from HONCHO_API_KEY now
    assert panel_entries(real_keyring, honcho_home) == {}
    assert f'HONCHO_API_KEY="{KEY}"' in (honcho_home / ".env").read_text()


def test_it_says_before_the_move_when_a_top_level_key_would_win_over_the_moved_one(honcho_home, real_keyring):
    write_json(honcho_home / "honcho.json", {"apiKey": "root-key", "hosts": {"hermes": {"apiKey": KEY}}})

    plan = plan_move(home=honcho_home, to="keyring")

    assert plan.shadowed == ["HONCHO_API_KEY"] and plan.shadowing_file == "honcho.json"
    assert plan_move(home=honcho_home, to="env_file").shadowed == []
    write_json(honcho_home / "honcho.json", {"hosts": {"hermes": {"apiKey": KEY}}})
    assert plan_move(home=honcho_home, to="keyring").shadowed == []


def test_it_edits_the_shared_honcho_config_in_the_users_home_when_that_is_the_file_read(
    honcho_home, user_home, real_keyring
):
    (honcho_home / "honcho.json").unlink()
    shared = user_home / ".honcho" / "config.json"
    shared.parent.mkdir()
    write_json(shared, {"hosts": {"hermes": {"apiKey": KEY}, "other-app": {"apiKey": "not-ours"}}})

    move_secrets(home=honcho_home, to="keyring")

    assert json.loads(shared.read_text()) == {"hosts": {"hermes": {}, "other-app": {"apiKey": "not-ours"}}}
    assert panel_entries(real_keyring, honcho_home) == {"HONCHO_API_KEY": KEY}
    assert not (honcho_home / "honcho.json").exists()  # never created: it would hide the shared file
    assert files_holding(user_home, KEY) == [] and files_holding(honcho_home, KEY) == []

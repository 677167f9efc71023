"""The ``memory:`` section of config.yaml read with the rules of the agent that runs in the home
(docs/memory_core.md "Newer agents"): the store flags are read differently after 0.19.0."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from memory_core.config import read_memory_config, set_write_approval
from memory_core.history.schema import create_state_db, upgrade_to_v30

CONFIG = """# the user's own notes
memory:
  memory_enabled: "off"      # quoted: a string, not a YAML boolean
  user_profile_enabled: null
  nudge_interval: 4
  some_future_key: {nested: [1, 2]}
  memory_char_limit: 3000
display:
  skin: dark
"""


def _home(home: Path, release: str) -> Path:
    (home / "config.yaml").write_text(CONFIG, encoding="utf-8")
    if release != "none":
        conn = create_state_db(home / "state.db")
        if release == "v30":
            upgrade_to_v30(conn)
        conn.close()
    return home


@pytest.mark.parametrize(("release", "memory_on", "user_on"), [
    ("none", True, False), ("0.19.0", True, False), ("v30", False, True)])
def test_the_store_flags_follow_the_agent_that_runs_in_the_home(home, release, memory_on, user_on):
    config = read_memory_config(_home(home, release))
    assert (config.memory_enabled, config.user_profile_enabled) == (memory_on, user_on)
    assert config.memory_char_limit == 3000 and config.error == ""


def test_the_agent_upgrading_its_file_changes_the_reading_at_once(home):
    _home(home, "0.19.0")
    assert read_memory_config(home).memory_enabled is True
    conn = __import__("sqlite3").connect(home / "state.db")
    upgrade_to_v30(conn)
    conn.close()
    assert read_memory_config(home).memory_enabled is False
    # Turning write approval on rewrites the file: every other key, unknown ones included, and
    # the comments stay.
    set_write_approval(home, True)
    text = (home / "config.yaml").read_text(encoding="utf-8")
    expected = yaml.safe_load(CONFIG)
    expected["memory"]["write_approval"] = True
    assert yaml.safe_load(text) == expected
    assert "# the user's own notes" in text and "# quoted: a string, not a YAML boolean" in text
    assert read_memory_config(home).write_approval is True

"""Provider states for ``serve --demo``: one of each thing the provider pages can show.

* Hindsight configured for a local server, with a legacy key (``budget``) and its API key in
  ``.env``: the form shows "stored", "legacy key budget" and "default" badges and a set secret.
* Supermemory with a boolean stored as text (a warning beside the field) and no API key (needs
  configuration; activation is refused with the reason).
* A user plugin whose ``config_schema.py`` has a syntax error (its card shows the error).
* Mem0 values coming from ``.env`` fallbacks.

Files that already exist are left alone, like the rest of the demo.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

BROKEN_PLUGIN_INIT = '''\
"""Demo user plugin whose settings schema does not load."""

from agent.memory_provider import MemoryProvider  # noqa: F401
'''

BROKEN_PLUGIN_SCHEMA = '''\
from plugins.memory.config_schema import ProviderConfigSchema, ProviderField

CONFIG_SCHEMA = ProviderConfigSchema(
    name="scratchpad",
    label="Scratchpad (demo: broken schema)",
    fields=(
        ProviderField("path", "Folder"
    ),
)
'''

ENV_LINES = {
    "HINDSIGHT_API_KEY": "demo-hindsight-key-not-real",
    "MEM0_HOST": "http://127.0.0.1:8000",
    "MEM0_AGENT_ID": "demo-agent",
}


def _write_new(path: Path, text: str) -> None:
    if path.exists():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    os.chmod(path, 0o600)


def _add_env_lines(env: Path) -> None:
    """Append the demo variables that ``.env`` does not define yet (nothing else is touched)."""
    text = env.read_text(encoding="utf-8") if env.exists() else ""
    defined = {line.split("=", 1)[0].strip() for line in text.splitlines() if "=" in line}
    missing = [f"{name}={value}\n" for name, value in ENV_LINES.items() if name not in defined]
    if not missing:
        return
    if text and not text.endswith("\n"):
        text += "\n"
    env.parent.mkdir(parents=True, exist_ok=True)
    # Atomic, like every panel write of a file the agent reads.
    fd, temp = tempfile.mkstemp(dir=env.parent, prefix=".env.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text + "".join(missing))
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, 0o600)
        os.replace(temp, env)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def seed_demo_providers(home: Path) -> None:
    """Write the demo provider files into ``home``."""
    _write_new(
        home / "hindsight" / "config.json",
        json.dumps({"mode": "local_external", "api_url": "http://127.0.0.1:8888", "budget": "high"}, indent=2) + "\n",
    )
    _write_new(
        home / "supermemory.json",
        json.dumps({"container_tag": "hermes-{identity}", "auto_recall": "false"}, indent=2) + "\n",
    )
    _write_new(home / "plugins" / "scratchpad" / "__init__.py", BROKEN_PLUGIN_INIT)
    _write_new(home / "plugins" / "scratchpad" / "config_schema.py", BROKEN_PLUGIN_SCHEMA)
    _add_env_lines(home / ".env")

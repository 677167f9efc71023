"""A fresh process reads settings without importing the keyring or the round-trip YAML parser.

Those packages are a large share of a fresh process's start (docs/performance.md); they are
imported where a secret is asked of the keyring or a file is written, and those paths still work
(test_keyring_probe.py, test_storage.py, test_save.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

READ_ONLY = r"""
import json, sys
from pathlib import Path
import provider_schemas
from provider_schemas.secret_stores.keyring_store import KeyringStore
from provider_schemas.secret_stores.probe import current_platform
from provider_schemas.storage.yaml_doc import read_yaml_doc

home = Path(sys.argv[1])
(home / "config.yaml").write_text("memory:\n  provider: hindsight\n", encoding="utf-8")
document = read_yaml_doc(home / "config.yaml")
KeyringStore(home)
current_platform()
loaded = sorted(name for name in ("keyring", "secretstorage", "jeepney", "ruamel.yaml") if name in sys.modules)
print(json.dumps({"loaded": loaded, "provider": document.data["memory"]["provider"]}))
"""


def _run(code: str, *args: str) -> dict:
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=REPO, capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_it_reads_a_config_without_importing_the_keyring_or_ruamel(tmp_path):
    result = _run(READ_ONLY, str(tmp_path))

    assert result == {"loaded": [], "provider": "hindsight"}

"""Project-wide properties: layering, deployment checks."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.serving import child_env

REPO = Path(__file__).resolve().parent.parent.parent


def test_it_keeps_django_out_of_the_engine_packages():
    script = (
        "import importlib, pkgutil, sys\n"
        "for package_name in ('memory_core', 'provider_schemas'):\n"
        "    package = importlib.import_module(package_name)\n"
        "    for info in pkgutil.walk_packages(package.__path__, package_name + '.'):\n"
        "        if not info.name.endswith('.__main__'):  # a command-line entry point runs when imported\n"
        "            importlib.import_module(info.name)\n"
        "leaked = sorted(name for name in sys.modules if name == 'django' or name.startswith('django.'))\n"
        "print(leaked)\n"
        "sys.exit(1 if leaked else 0)\n"
    )
    result = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True,
                            timeout=180)

    assert result.returncode == 0, result.stdout + result.stderr


def test_it_passes_the_deploy_check_except_for_https_only_warnings(tmp_path):
    env = child_env(HERMES_HOME=str(tmp_path / "home"), PANEL_DATA_DIR=str(tmp_path / "data"),
                    DJANGO_SETTINGS_MODULE="admin_panel.settings")
    result = subprocess.run([sys.executable, "manage.py", "check", "--deploy"], cwd=REPO, env=env,
                            capture_output=True, text=True, timeout=120)
    output = result.stdout + result.stderr
    reported = set(re.findall(r"\((\w+\.[EW]\d+)\)", output))

    assert result.returncode == 0, output
    assert reported <= {"security.W004", "security.W008", "security.W012", "security.W016"}, output


def test_it_passes_the_deploy_check_cleanly_behind_https(tmp_path):
    env = child_env(HERMES_HOME=str(tmp_path / "home"), PANEL_DATA_DIR=str(tmp_path / "data"), PANEL_HTTPS="1",
                    DJANGO_SETTINGS_MODULE="admin_panel.settings")
    result = subprocess.run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
                            cwd=REPO, env=env, capture_output=True, text=True, timeout=120)

    assert result.returncode == 0, result.stdout + result.stderr

"""``python manage.py memory``: the Django wrapper around memory_core.cli (needs pytest-django)."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest

from .conftest import write_file

# The command records its changes in the panel's audit log (a database table).
pytestmark = [pytest.mark.django_db]


@pytest.fixture
def configured_home(request, tmp_path: Path) -> Path:
    if not request.config.pluginmanager.hasplugin("django"):
        pytest.skip("needs pytest-django")
    settings = request.getfixturevalue("settings")
    home = tmp_path / "configured"
    home.mkdir()
    settings.HERMES_HOME = home
    return home


def test_it_works_on_the_configured_home(configured_home: Path) -> None:
    from django.core.management import call_command

    out = StringIO()
    call_command("memory", "add", "user", "Name: Dana", stdout=out)
    assert out.getvalue() == "Entry added. (0% — 10/1,375 chars, 1 entries)\n"
    assert (configured_home / "memories" / "USER.md").read_bytes() == b"Name: Dana"
    out = StringIO()
    call_command("memory", "show", "user", stdout=out)
    assert "1. [10 chars] Name: Dana" in out.getvalue()


def test_it_exits_with_the_cli_code(configured_home: Path) -> None:
    from django.core.management import call_command

    write_file(configured_home, "MEMORY.md", "fact")
    err = StringIO()
    with pytest.raises(SystemExit) as exit_info:
        call_command("memory", "remove", "memory", "absent", stdout=StringIO(), stderr=err)
    assert exit_info.value.code == 1
    assert err.getvalue().startswith("Error: No entry matched 'absent'.")
    with pytest.raises(SystemExit) as exit_info:
        call_command("memory", "add", "soul", "x", stdout=StringIO(), stderr=StringIO())
    assert exit_info.value.code == 2


def test_it_accepts_an_explicit_home(configured_home: Path, tmp_path: Path) -> None:
    from django.core.management import call_command

    other = tmp_path / "other"
    call_command("memory", "add", "memory", "elsewhere", "--home", str(other), stdout=StringIO())
    assert (other / "memories" / "MEMORY.md").read_bytes() == b"elsewhere"
    assert not (configured_home / "memories").exists()

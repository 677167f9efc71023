"""Which files the preview may open: the browser names a choice, the server maps it to a file
under an allowed root and refuses everything else without reading it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from admin_panel.selectors import preview as selectors
from tests.preview.conftest import NOTES_SCHEMA, make_plugin, write_schema

pytestmark = pytest.mark.django_db


def _ids(groups: list[selectors.ChoiceGroup]) -> list[str]:
    return [c.id for group in groups for c in group.choices]


def test_it_lists_bundled_providers_user_plugins_and_files_under_allowed_dirs(home, tmp_path, settings):
    make_plugin(home, "notes", NOTES_SCHEMA)
    (home / "plugins" / "nothing-here").mkdir()
    authors = tmp_path / "src"
    write_schema(authors / "notes" / "config_schema.py", NOTES_SCHEMA)
    write_schema(authors / "deep" / "er" / "still" / "config_schema.py", NOTES_SCHEMA)
    write_schema(authors / ".git" / "config_schema.py", NOTES_SCHEMA)
    (authors / "notes" / "other.py").write_text("x = 1\n")
    settings.PANEL_SCHEMA_PREVIEW_DIRS = [authors]

    ids = _ids(selectors.list_choices(home=home))

    assert "bundled:hindsight" in ids and "bundled:honcho" in ids
    assert "plugin:notes" in ids
    assert "plugin:nothing-here" not in ids  # no config_schema.py there
    assert "dir:0:notes/config_schema.py" in ids
    assert "dir:0:deep/er/still/config_schema.py" in ids
    assert not any(".git" in i or "other.py" in i for i in ids)


@pytest.mark.parametrize(
    "choice_id",
    [
        "",
        "/etc/passwd",
        "bundled:nope",
        "bundled:../hindsight",
        "plugin:../notes",
        "plugin:a/b",
        "plugin:.hidden",
        "plugin:_private",
        "dir:1:config_schema.py",
        "dir:x:config_schema.py",
        "dir:0:../config_schema.py",
        "dir:0:/etc/config_schema.py",
        "dir:0:notes/other.py",
        "dir:0:notes//config_schema.py",
        "dir:0:notes\\config_schema.py",
    ],
)
def test_it_refuses_choice_ids_it_never_lists(home, tmp_path, settings, choice_id):
    settings.PANEL_SCHEMA_PREVIEW_DIRS = [tmp_path / "src"]

    with pytest.raises(selectors.ChoiceRefused):
        selectors.resolve_choice(home=home, choice_id=choice_id)


def test_it_maps_a_choice_to_the_file_and_its_provider_name(home, tmp_path, settings):
    settings.PANEL_SCHEMA_PREVIEW_DIRS = [tmp_path / "src"]

    choice = selectors.resolve_choice(home=home, choice_id="dir:0:notes/config_schema.py")

    assert choice.path == tmp_path / "src" / "notes" / "config_schema.py"
    assert choice.expected_name == "notes"
    assert choice.provider_name is None  # a file outside the home is never a provider of it
    assert selectors.resolve_choice(home=home, choice_id="plugin:notes").provider_name == "notes"


def test_it_refuses_a_symlink_that_leads_out_of_the_allowed_directory(home, tmp_path, settings):
    outside = tmp_path / "elsewhere" / "config_schema.py"
    proof = tmp_path / "executed"
    write_schema(outside, f"open({str(proof)!r}, 'w').write('ran')\n")
    allowed = tmp_path / "src"
    (allowed / "notes").mkdir(parents=True)
    os.symlink(outside, allowed / "notes" / "config_schema.py")
    settings.PANEL_SCHEMA_PREVIEW_DIRS = [allowed]
    choice = selectors.resolve_choice(home=home, choice_id="dir:0:notes/config_schema.py")

    loaded = selectors.load_choice(home=home, choice=choice)

    assert loaded.schema is None
    assert loaded.error is not None and loaded.error.kind == "refused"
    assert "outside the allowed directory" in loaded.error.message
    assert not proof.exists()


def test_it_refuses_a_plugin_directory_symlinked_out_of_the_home(home, tmp_path):
    elsewhere = tmp_path / "elsewhere" / "notes"
    write_schema(elsewhere / "config_schema.py", NOTES_SCHEMA)
    (home / "plugins").mkdir()
    os.symlink(elsewhere, home / "plugins" / "notes")
    choice = selectors.resolve_choice(home=home, choice_id="plugin:notes")

    assert selectors.file_problem(choice) is not None


def test_it_refuses_a_file_larger_than_the_cap_without_executing_it(home, tmp_path):
    proof = tmp_path / "executed"
    big = f"open({str(proof)!r}, 'w').write('ran')\n" + "#" * (selectors.MAX_SCHEMA_BYTES + 10) + "\n"
    make_plugin(home, "notes", big)
    choice = selectors.resolve_choice(home=home, choice_id="plugin:notes")

    loaded = selectors.load_choice(home=home, choice=choice)

    assert loaded.error is not None and "larger than 256 KB" in loaded.error.message
    assert not proof.exists()


def test_it_reports_a_missing_file_and_changes_fingerprint_when_it_appears(home):
    choice = selectors.resolve_choice(home=home, choice_id="plugin:notes")
    assert selectors.file_fingerprint(choice) == "missing"
    assert selectors.load_choice(home=home, choice=choice).error.type == "FileNotFoundError"

    make_plugin(home, "notes", NOTES_SCHEMA)
    first = selectors.file_fingerprint(choice)
    write_schema(Path(choice.path), NOTES_SCHEMA + "\n")

    assert first != "missing"
    assert selectors.file_fingerprint(choice) != first

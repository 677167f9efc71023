"""Loading config_schema.py files by path (docs/agent_formats.md §Loading declarations)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from provider_schemas import (
    SchemaLoadError,
    discover,
    get_provider,
    get_provider_config_schema,
    load_schema,
)
from provider_schemas.config_schema import ProviderConfigSchema, ProviderField
from provider_schemas.loading import loader
from provider_schemas.loading.loader import cache_stats

from .conftest import FIXTURES, install_plugin

VALID = """from plugins.memory.config_schema import ProviderConfigSchema, ProviderField

CONFIG_SCHEMA = ProviderConfigSchema(name="{name}", label="{label}", fields=(ProviderField("a", "A"),))
"""


def copy_fixture(tmp_path: Path, fixture: str, name: str | None = None) -> Path:
    directory = tmp_path / (name or fixture)
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / "config_schema.py"
    shutil.copyfile(FIXTURES / fixture / "config_schema.py", target)
    return target


def bump_mtime(path: Path) -> None:
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


def test_it_loads_a_file_written_for_hermes_agent_into_our_classes(tmp_path: Path) -> None:
    schema = load_schema(copy_fixture(tmp_path, "example"))
    assert isinstance(schema, ProviderConfigSchema)
    assert [f.key for f in schema.fields] == ["mode", "api_key", "url"]
    assert all(isinstance(f, ProviderField) for f in schema.fields)
    assert schema.fields[1].required_when == {"mode": "cloud"}


def test_it_leaves_no_trace_of_the_import_mapping_in_sys_modules(tmp_path: Path) -> None:
    before = {k: sys.modules.get(k) for k in ("plugins", "plugins.memory", "plugins.memory.config_schema")}
    load_schema(copy_fixture(tmp_path, "example"))
    after = {k: sys.modules.get(k) for k in before}
    assert after == before
    assert not [m for m in sys.modules if m.startswith("_hermes_memory_config_schema")]


def test_it_reports_a_syntax_error_with_its_line(tmp_path: Path) -> None:
    with pytest.raises(SchemaLoadError) as caught:
        load_schema(copy_fixture(tmp_path, "broken_syntax"))
    assert caught.value.type == "SyntaxError"
    assert caught.value.line == 5
    assert caught.value.path.endswith("config_schema.py")


def test_it_reports_an_exception_at_import_with_the_line_in_the_schema_file(tmp_path: Path) -> None:
    with pytest.raises(SchemaLoadError) as caught:
        load_schema(copy_fixture(tmp_path, "broken_raises"))
    assert caught.value.type == "NameError"
    assert "UNDEFINED_NAME" in caught.value.message
    assert caught.value.line == 4


def test_it_catches_system_exit_so_a_schema_cannot_stop_the_panel(tmp_path: Path) -> None:
    with pytest.raises(SchemaLoadError) as caught:
        load_schema(copy_fixture(tmp_path, "broken_exit"))
    assert caught.value.type == "SystemExit"
    assert caught.value.line == 3


def test_it_reports_a_missing_config_schema_as_a_type_error(tmp_path: Path) -> None:
    with pytest.raises(SchemaLoadError) as caught:
        load_schema(copy_fixture(tmp_path, "broken_missing"))
    assert caught.value.type == "TypeError"
    assert caught.value.message == "CONFIG_SCHEMA must be a ProviderConfigSchema, got NoneType"


def test_it_reports_a_wrongly_typed_config_schema(tmp_path: Path) -> None:
    with pytest.raises(SchemaLoadError) as caught:
        load_schema(copy_fixture(tmp_path, "broken_wrong_type"))
    assert caught.value.message == "CONFIG_SCHEMA must be a ProviderConfigSchema, got dict"


def test_it_reports_a_failed_declaration_check_naming_the_field_and_its_line(tmp_path: Path) -> None:
    with pytest.raises(SchemaLoadError) as caught:
        load_schema(copy_fixture(tmp_path, "broken_check"))
    assert caught.value.type == "ValueError"
    assert caught.value.message == "field 'mode': default 'x' is not one of the options"
    assert caught.value.line == 8


def test_it_refuses_a_schema_whose_name_differs_from_its_directory(tmp_path: Path) -> None:
    path = copy_fixture(tmp_path, "example", name="renamed")
    with pytest.raises(SchemaLoadError) as caught:
        load_schema(path)
    assert "does not match the provider directory 'renamed'" in caught.value.message


def test_it_returns_the_cached_instance_while_the_file_is_unchanged(tmp_path: Path) -> None:
    path = copy_fixture(tmp_path, "example")
    first = load_schema(path)
    loads = cache_stats().loads
    assert load_schema(path) is first
    assert cache_stats().loads == loads


def test_it_picks_up_a_fixed_file_without_restart(tmp_path: Path) -> None:
    path = tmp_path / "fixme" / "config_schema.py"
    path.parent.mkdir()
    path.write_text("CONFIG_SCHEMA = (\n", encoding="utf-8")
    with pytest.raises(SchemaLoadError):
        load_schema(path)
    path.write_text(VALID.format(name="fixme", label="Fixed"), encoding="utf-8")
    bump_mtime(path)
    assert load_schema(path).label == "Fixed"


def test_it_picks_up_an_edited_valid_file_on_the_next_call(tmp_path: Path) -> None:
    path = tmp_path / "edited" / "config_schema.py"
    path.parent.mkdir()
    path.write_text(VALID.format(name="edited", label="One"), encoding="utf-8")
    assert load_schema(path).label == "One"
    path.write_text(VALID.format(name="edited", label="Two!"), encoding="utf-8")
    assert load_schema(path).label == "Two!"  # size changed: a new key even within one mtime tick


def test_it_never_caches_a_failure_and_tries_again_on_the_next_call(tmp_path: Path) -> None:
    path = tmp_path / "flaky" / "config_schema.py"
    path.parent.mkdir()
    counter = tmp_path / "runs.txt"
    path.write_text(
        "from pathlib import Path\n"
        f"p = Path({str(counter)!r})\n"
        "p.write_text(p.read_text() + 'x' if p.exists() else 'x')\n"
        "raise RuntimeError('not yet')\n",
        encoding="utf-8",
    )
    for _ in range(3):
        with pytest.raises(SchemaLoadError) as caught:
            load_schema(path)
        assert caught.value.type == "RuntimeError"
    assert counter.read_text() == "xxx"


class _StepDeadline:
    """The load time limit counted in traced steps instead of seconds: the loop below always stops
    at the same place, after its write, however busy the machine is."""

    def __init__(self, seconds: float) -> None:
        self.steps_left = 20_000

    def __call__(self, frame, event, arg):  # type: ignore[no-untyped-def]
        self.steps_left -= 1
        if self.steps_left < 0:
            raise loader._LoadTimeout
        return self


def _counting_loop(path: Path, counter: Path, *, label: str = "") -> None:
    """A schema that records each run in ``counter``, then loops until stopped."""
    path.write_text(
        "from pathlib import Path\n"
        f"p = Path({str(counter)!r})\n"
        "p.write_text(p.read_text() + 'x' if p.exists() else 'x')\n"
        f"# {label}\n"
        "while True:\n    pass\n",
        encoding="utf-8",
    )


def test_it_remembers_a_load_that_ran_out_of_time_until_the_file_changes(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(loader, "_Deadline", _StepDeadline)
    path = tmp_path / "stuck" / "config_schema.py"
    path.parent.mkdir()
    counter = tmp_path / "runs.txt"
    _counting_loop(path, counter)

    errors = []
    for _ in range(3):
        with pytest.raises(SchemaLoadError) as caught:
            load_schema(path, display_path="plugins/stuck/config_schema.py")
        errors.append(caught.value.info)
    assert counter.read_text() == "x"  # run once; the later calls were answered from memory
    assert {info.type for info in errors} == {"TimeoutError"}
    assert len(set(errors)) == 1 and errors[0].path == "plugins/stuck/config_schema.py"

    raising = tmp_path / "raises" / "config_schema.py"
    raising.parent.mkdir()
    raising.write_text(f"open({str(counter)!r}, 'a').write('r')\nraise TimeoutError('the network is slow')\n")
    for _ in range(2):
        with pytest.raises(SchemaLoadError) as caught:
            load_schema(raising)
        assert caught.value.type == "TimeoutError"
    assert counter.read_text() == "xrr"  # a schema's own TimeoutError is tried again like any failure

    _counting_loop(path, counter, label="edited, still looping")
    with pytest.raises(SchemaLoadError):
        load_schema(path)
    assert counter.read_text() == "xrrx"

    path.write_text(VALID.format(name="stuck", label="Fixed"), encoding="utf-8")
    assert load_schema(path).label == "Fixed"


def test_it_forgets_the_remembered_time_out_once_the_file_loads(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(loader, "_Deadline", _StepDeadline)
    path = tmp_path / "again" / "config_schema.py"
    path.parent.mkdir()
    counter = tmp_path / "runs.txt"
    _counting_loop(path, counter)
    looping, first = path.read_bytes(), path.stat()
    with pytest.raises(SchemaLoadError):
        load_schema(path)
    path.write_text(VALID.format(name="again", label="Fixed"), encoding="utf-8")
    assert load_schema(path).label == "Fixed"

    # The looping bytes come back with the very same mtime and size as the first time: run again.
    path.write_bytes(looping)
    os.utime(path, ns=(first.st_atime_ns, first.st_mtime_ns))
    with pytest.raises(SchemaLoadError):
        load_schema(path)
    assert counter.read_text() == "xx"


def test_it_resolves_the_same_provider_name_under_two_homes_to_two_files(tmp_path: Path, user_home: Path) -> None:
    home_a, home_b = tmp_path / "a", tmp_path / "b"
    install_plugin(home_a, "mytool", source=VALID.format(name="mytool", label="Tool of A"))
    install_plugin(home_b, "mytool", source=VALID.format(name="mytool", label="Tool of B"))
    schema_a = get_provider_config_schema("mytool", home=home_a)
    schema_b = get_provider_config_schema("mytool", home=home_b)
    assert isinstance(schema_a, ProviderConfigSchema) and isinstance(schema_b, ProviderConfigSchema)
    assert (schema_a.label, schema_b.label) == ("Tool of A", "Tool of B")


def test_it_never_runs_a_provider_init_that_raises(agent_home: Path) -> None:
    sentinel = agent_home / "init-ran"
    directory = install_plugin(agent_home, "sneaky", source=VALID.format(name="sneaky", label="Sneaky"))
    (directory / "__init__.py").write_text(
        "# register_memory_provider\n"
        f"open({str(sentinel)!r}, 'w').write('ran')\n"
        "raise RuntimeError('the package must never be imported')\n",
        encoding="utf-8",
    )
    entry = get_provider(home=agent_home, name="sneaky")
    assert entry is not None and entry.schema is not None and entry.schema.label == "Sneaky"
    assert [p.name for p in discover(home=agent_home).providers if p.origin == "user"] == ["sneaky"]
    assert not sentinel.exists()
    assert "sneaky" not in sys.modules


def test_it_does_not_write_bytecode_next_to_a_schema(tmp_path: Path) -> None:
    path = copy_fixture(tmp_path, "example")
    load_schema(path)
    assert not (path.parent / "__pycache__").exists()


def test_it_reports_a_missing_file_as_a_load_error(tmp_path: Path) -> None:
    with pytest.raises(SchemaLoadError) as caught:
        load_schema(tmp_path / "nothing" / "config_schema.py")
    assert caught.value.type == "FileNotFoundError"


def test_it_gives_the_conflict_text_of_the_api(tmp_path: Path) -> None:
    with pytest.raises(SchemaLoadError) as caught:
        load_schema(copy_fixture(tmp_path, "broken_syntax"))
    assert caught.value.detail_for("mytool").startswith("Config schema for 'mytool' failed to load: SyntaxError: ")
    assert caught.value.detail_for("mytool").endswith("(line 5)")
    assert set(caught.value.as_dict()) == {"type", "message", "line", "path"}

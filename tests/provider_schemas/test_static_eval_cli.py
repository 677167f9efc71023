"""`manage.py schema check --static PATH` proves a schema file is pure data without running it."""

from __future__ import annotations

import io
import textwrap
from pathlib import Path

import pytest
from django.core.management import call_command

import provider_schemas
from provider_schemas.loading.static_eval import run_static_check

BUNDLED_DIR = Path(provider_schemas.__file__).resolve().parent / "bundled"


def check(path: Path, *, name: str | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = run_static_check(path, out=out, err=err, name=name)
    return status, out.getvalue(), err.getvalue()


def write(tmp_path: Path, text: str, filename: str = "config_schema.py") -> Path:
    # In a directory named like the provider, as a plain check expects (the name is checked too).
    path = tmp_path / "demo" / filename
    path.parent.mkdir(exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


@pytest.mark.parametrize("name", provider_schemas.BUNDLED_PROVIDERS)
def test_it_proves_each_bundled_schema_is_pure_data(name):
    path = BUNDLED_DIR / name / "config_schema.py"
    status, out, _ = check(path, name=name)
    fields = len(provider_schemas.load_schema(path).fields)
    assert (status, out) == (0, f"{path}: pure data, {fields} field(s)\n")


def test_the_command_exits_1_with_the_file_line_and_message_for_code(tmp_path, settings):
    settings.HERMES_HOME = tmp_path
    target = tmp_path / "pwned"
    path = write(
        tmp_path,
        f"""\
        from plugins.memory.config_schema import ProviderConfigSchema

        CONFIG_SCHEMA = ProviderConfigSchema("demo", "Demo")
        LEAK = open({str(target)!r}, "w")
        """,
    )
    out = io.StringIO()
    with pytest.raises(SystemExit) as caught:
        call_command("schema", "check", "--static", str(path), stdout=out)
    assert caught.value.code == 1
    assert out.getvalue().splitlines()[0] == (
        f"{path}:4:8: error: calling 'open' is not allowed: a schema file may only import from the "
        "declaration module, assign names, and call ProviderField, ProviderFieldOption and ProviderConfigSchema"
    )
    assert not target.exists()


def test_the_command_exits_0_for_a_pure_data_file(tmp_path, settings):
    settings.HERMES_HOME = tmp_path
    out = io.StringIO()
    call_command("schema", "check", "--static", str(BUNDLED_DIR / "mem0" / "config_schema.py"), stdout=out)
    assert out.getvalue().endswith("pure data, 7 field(s)\n")


def test_it_lists_every_declaration_problem_of_a_pure_data_file_at_its_field(tmp_path):
    path = write(
        tmp_path,
        """\
        from provider_schemas.config_schema import KIND_BOOL, KIND_SELECT, ProviderConfigSchema, ProviderField

        CONFIG_SCHEMA = ProviderConfigSchema(
            name="demo",
            label="Demo",
            fields=(
                ProviderField("flag", "Flag", kind=KIND_BOOL, default="yes"),
                ProviderField("mode", "Mode", kind=KIND_SELECT),
            ),
        )
        """,
    )
    status, out, _ = check(path)
    assert status == 1
    assert f"{path}:7: error: field 'flag': default 'yes' must be '', 'true' or 'false'\n" in out
    assert f"{path}:8: error: field 'mode': a select needs at least one option\n" in out
    assert out.endswith("pure data, 2 field(s); 2 error(s), 0 warning(s)\n")


def test_it_checks_the_provider_name_only_when_asked(tmp_path):
    path = write(
        tmp_path,
        """\
        from provider_schemas.config_schema import ProviderConfigSchema

        CONFIG_SCHEMA = ProviderConfigSchema(name="demo", label="Demo")
        """,
    )
    assert check(path)[0] == 0
    status, out, _ = check(path, name="other")
    assert status == 1
    assert "name 'demo' does not match the provider directory 'other'" in out


def test_it_reports_a_config_schema_of_the_wrong_type_at_its_line(tmp_path):
    path = write(tmp_path, '"""Doc."""\n\nCONFIG_SCHEMA = ("not", "a schema")\n')
    status, out, _ = check(path)
    assert (status, out) == (1, f"{path}:3: error: CONFIG_SCHEMA must be a ProviderConfigSchema, got tuple\n")


def test_it_refuses_unreadable_and_non_utf8_files(tmp_path):
    status, out, err = check(tmp_path / "missing.py")
    assert status == 1 and "cannot read the file" in err and out == ""
    binary = tmp_path / "latin1.py"
    binary.write_bytes(b"X = '\xe9'\n")
    status, out, _ = check(binary)
    assert (status, out) == (1, f"{binary}: error: not UTF-8 text (byte 5)\n")

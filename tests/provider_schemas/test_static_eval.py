"""The static evaluator accepts pure-data schema files and refuses everything else, without running it."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import provider_schemas
from provider_schemas import config_schema as cs
from provider_schemas.loading.static_eval import MAX_SOURCE_BYTES, StaticEvalError, evaluate_schema_source

BUNDLED_DIR = Path(provider_schemas.__file__).resolve().parent / "bundled"
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "static"

HEADER = """\
from plugins.memory.config_schema import (
    KIND_TEXT,
    ProviderConfigSchema,
    ProviderField,
)
"""  # five lines: a rejected construct appended after it is on line 6
SCHEMA = 'CONFIG_SCHEMA = ProviderConfigSchema(name="demo", label="Demo", fields=(ProviderField("a", "A"),))\n'


def paste(body: str) -> str:
    return HEADER + textwrap.dedent(body) + SCHEMA


def rejected(text: str) -> StaticEvalError:
    with pytest.raises(StaticEvalError) as info:
        evaluate_schema_source(text)
    return info.value


# --- what it accepts -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", provider_schemas.BUNDLED_PROVIDERS)
def test_it_accepts_each_bundled_schema_and_builds_what_the_loader_builds(name):
    path = BUNDLED_DIR / name / "config_schema.py"
    schema = evaluate_schema_source(path.read_text(encoding="utf-8"), filename=str(path))
    assert isinstance(schema, cs.ProviderConfigSchema)
    assert schema == provider_schemas.load_schema(path)


@pytest.mark.parametrize(("fixture", "name"), [("hindsight_like.py", "hindsight"), ("honcho_like.py", "honcho")])
def test_it_accepts_files_shaped_like_the_ones_hermes_agent_ships(fixture, name):
    path = FIXTURES / fixture
    schema = evaluate_schema_source(path.read_text(encoding="utf-8"), filename=str(path))
    assert schema == provider_schemas.load_schema(path, name=name)


def test_it_evaluates_module_level_option_tuples_helper_constants_and_string_joins():
    schema = evaluate_schema_source((FIXTURES / "honcho_like.py").read_text(encoding="utf-8"))
    by_key = {f.key: f for f in schema.fields}
    assert [o.value for o in by_key["dialecticReasoningLevel"].options] == ["minimal", "low", "medium", "high", "max"]
    assert [o.value for o in by_key["reasoningLevelCap"].options][-1] == "auto"
    assert schema.docs_url == "https://docs.honcho.dev/v3/guides/integrations/hermes"
    assert by_key["timeout"].placeholder == "30"
    assert by_key["timeout"].scope == "root"
    assert by_key["dialecticReasoningLevel"].group == "Dialectic"


@pytest.mark.parametrize(
    "imports",
    [
        "import provider_schemas.config_schema as m\n",
        "import plugins.memory.config_schema as m\n",
        "from provider_schemas import config_schema as m\n",
        "from plugins.memory import config_schema as m\n",
        "import plugins.memory.config_schema\nm = plugins.memory.config_schema\n",
        "import provider_schemas.config_schema\nm = provider_schemas.config_schema\n",
    ],
)
def test_it_accepts_every_import_style_of_the_declaration_module(imports):
    text = imports + textwrap.dedent(
        """\
        CONFIG_SCHEMA = m.ProviderConfigSchema(
            name="demo",
            label="Demo",
            storage=m.STORAGE_JSON_FILE,
            storage_path="demo.json",
            fields=(m.ProviderField("mode", "Mode", kind=m.KIND_SELECT, options=(m.ProviderFieldOption("a", "A"),)),),
        )
        """
    )
    schema = evaluate_schema_source(text)
    assert schema.storage == "json_file"
    assert schema.fields[0].options == (cs.ProviderFieldOption("a", "A"),)


def test_it_accepts_docstrings_future_imports_annotations_unpacking_and_negative_numbers():
    text = textwrap.dedent(
        '''\
        """Module docstring."""

        from __future__ import annotations

        from provider_schemas.config_schema import KIND_NUMBER as NUMBER, ProviderConfigSchema, ProviderField

        LOW, HIGH = ("-1.5", "10")
        [GROUP] = ["Limits"]
        FIELDS: tuple[ProviderField, ...] = (
            ProviderField("low", "Low", NUMBER, default=LOW, group=GROUP),
            ProviderField("high", "High", NUMBER, default=HIGH, group=GROUP),
        )
        OFFSET = -3
        RATIO = +0.25
        WHEN = {"low": "-1.5"}
        MORE = FIELDS + (ProviderField("ratio", "Ratio", NUMBER, when=WHEN),)
        CONFIG_SCHEMA = ProviderConfigSchema("demo", "Demo", fields=MORE)
        '''
    )
    schema = evaluate_schema_source(text)
    assert [(f.key, f.default, f.group) for f in schema.fields] == [
        ("low", "-1.5", "Limits"),
        ("high", "10", "Limits"),
        ("ratio", "", ""),
    ]
    assert schema.fields[2].when == {"low": "-1.5"}


def test_it_tolerates_a_byte_order_mark():
    text = "\ufeff" + (FIXTURES / "hindsight_like.py").read_text(encoding="utf-8")
    assert evaluate_schema_source(text).name == "hindsight"


# --- what it rejects, and where ------------------------------------------------------------------

REJECTED = [
    # (id, body appended after the 5-line header (so its first line is line 6), line, message part)
    ("dunder import", "X = __import__('os')\n", 6, "calling '__import__' is not allowed"),
    ("open", "X = 1\nopen('/tmp/never', 'w')\n", 7, "calling 'open' is not allowed"),
    ("import os", "import os\n", 6, "importing 'os' is not allowed"),
    ("attribute on a value", "X = ProviderField('a', 'A').key\n", 6, "attribute access is only allowed"),
    ("attribute on an unknown name", "X = os.environ\n", 6, "name 'os' is not defined"),
    ("method call", "X = 'a'.upper()\n", 6, '.upper" is not allowed'),
    ("lambda", "X = 1\nY = lambda: 1\n", 7, "lambdas are not allowed"),
    ("list comprehension", "X = [i for i in ()]\n", 6, "comprehensions are not allowed"),
    ("dict comprehension", "X = {i: i for i in ()}\n", 6, "comprehensions are not allowed"),
    ("generator", "X = tuple(i for i in ())\n", 6, "calling 'tuple' is not allowed"),
    ("f-string", "X = f'{KIND_TEXT}'\n", 6, "f-strings are not allowed"),
    ("walrus", "X = (Y := 1)\n", 6, "assignment expressions (':=') are not allowed"),
    ("exec", "X = exec('import os')\n", 6, "calling 'exec' is not allowed"),
    ("eval", "X = eval('1')\n", 6, "calling 'eval' is not allowed"),
    ("dunder name", "X = __builtins__\n", 6, "dunder names such as '__builtins__' are not allowed"),
    ("dunder attribute", "import provider_schemas.config_schema as m\nX = m.__dict__\n", 7, "dunder names"),
    ("dunder target", "__all__ = ('x',)\n", 6, "dunder names such as '__all__' are not allowed"),
    ("decorator", "X = 1\n@property\ndef f():\n    return 1\n", 7, "decorators are not allowed"),
    ("function", "def f():\n    return 1\n", 6, "function definitions ('def') are not allowed"),
    ("class", "class A:\n    pass\n", 6, "class definitions are not allowed"),
    ("starred call", "X = ProviderField(*('a', 'A'))\n", 6, "'*args' in a call is not allowed"),
    ("double-starred call", "X = ProviderField(**{'key': 'a', 'label': 'A'})\n", 6, "'**kwargs' in a call"),
    ("starred in a tuple", "X = (*(), 1)\n", 6, "'*' unpacking are not allowed"),
    ("dict unpacking", "X = {**{}}\n", 6, "'**' unpacking is not allowed"),
    ("if", "if KIND_TEXT:\n    X = 1\n", 6, "'if' statements are not allowed"),
    ("for", "for X in ():\n    pass\n", 6, "loops are not allowed"),
    ("while", "while False:\n    pass\n", 6, "loops are not allowed"),
    ("with", "with A:\n    pass\n", 6, "'with' statements are not allowed"),
    ("try", "try:\n    X = 1\nexcept Exception:\n    pass\n", 6, "'try' statements are not allowed"),
    ("conditional expression", "X = 1 if KIND_TEXT else 2\n", 6, "conditional expressions are not allowed"),
    ("comparison", "X = 1 < 2\n", 6, "comparisons are not allowed"),
    ("boolean operator", "X = KIND_TEXT or 'x'\n", 6, "'and'/'or' expressions are not allowed"),
    ("subscript", "X = ('a', 'b')[0]\n", 6, "subscripts (x[...]) are not allowed"),
    ("augmented assignment", "X = 'a'\nX += 'b'\n", 7, "augmented assignments ('+=') are not allowed"),
    ("del", "X = 1\ndel X\n", 7, "'del' are not allowed"),
    ("assert", "assert KIND_TEXT\n", 6, "'assert' are not allowed"),
    ("global", "global X\n", 6, "'global' are not allowed"),
    ("set", "X = {'a'}\n", 6, "sets are not allowed"),
    ("bytes", "X = b'secret'\n", 6, "bytes literals are not allowed"),
    ("complex", "X = 2j\n", 6, "complex literals are not allowed"),
    ("power", "X = 10 ** 1000\n", 6, "the operator '**' is not allowed"),
    ("repetition", "X = 'a' * 1000000000\n", 6, "the operator '*' is not allowed"),
    ("mixed addition", "X = 'a' + 1\n", 6, "'+' only joins two strings, two tuples or two lists"),
    ("number addition", "X = 1 + 1\n", 6, "'+' only joins"),
    ("not", "X = not KIND_TEXT\n", 6, "the operator 'not' is not allowed"),
    ("huge integer", "X = 1" + "0" * 30 + "\n", 6, "integer too large"),
    ("infinite float", "X = 1e999\n", 6, "numbers must be finite"),
    ("huge string", "X = '" + "a" * 20_001 + "'\n", 6, "string longer than 20000 characters"),
    ("string growth", "A = '" + "a" * 15_000 + "'\nB = A + A\n", 7, "string longer than 20000 characters"),
    ("huge tuple", "X = (" + "1, " * 2_001 + ")\n", 6, "more than 2000 items in one container"),
    ("deep nesting", "X = " + "[" * 80 + "]" * 80 + "\n", 6, "nested more than 64 levels deep"),
    ("unknown name", "X = ProviderFeld('a', 'A')\n", 6, "calling 'ProviderFeld' is not allowed"),
    ("other declaration name", "from plugins.memory.config_schema import dataclass\n", 6, "no public name"),
    ("star import", "from provider_schemas.config_schema import *\n", 6, "'import *' is not allowed"),
    ("relative import", "from .config_schema import KIND_TEXT\n", 6, "relative imports are not allowed"),
    ("other future import", "from __future__ import barry_as_FLUFL\n", 6, "only 'from __future__ import annotations'"),
    ("other module", "from provider_schemas import loader\n", 6, "only config_schema may be imported"),
    ("plain package import", "import provider_schemas\n", 6, "importing 'provider_schemas' is not allowed"),
    ("attribute target", "import provider_schemas.config_schema as m\nm.KIND_TEXT = 'x'\n", 7, "only names"),
    ("module as a value", "import provider_schemas.config_schema as m\nX = (m,)\n", 7, "a module cannot be used"),
    ("bare expression", "ProviderField('a', 'A')\n", 6, "a bare expression has no effect"),
    ("unpacking mismatch", "A, B = ('x',)\n", 6, "2 names but 1 values to unpack"),
    ("bad annotation", "X: open('/tmp/never') = 1\n", 6, "annotations may only be names, generics or strings"),
    ("bad keyword", "X = ProviderField('a', 'A', colour='red')\n", 6, "unexpected keyword argument 'colour'"),
]


@pytest.mark.parametrize(("body", "line", "message"), [r[1:] for r in REJECTED], ids=[r[0] for r in REJECTED])
def test_it_rejects_each_construct_outside_the_pure_data_subset_at_its_line(body, line, message):
    error = rejected(paste(body))
    assert message in error.message
    assert error.line == line
    assert error.col is not None and error.col >= 1
    assert str(error).startswith(f"line {line}, column {error.col}: ")


def test_it_reports_a_syntax_error_with_its_line_and_column():
    error = rejected(HEADER + "X = (\n  'a',\n  'b'\n\nY = 1\n")
    assert error.line is not None and error.line >= 6
    assert error.message.startswith("invalid syntax")


def test_it_reports_the_column_in_characters_on_lines_with_non_ascii_text():
    error = rejected(paste("X = ('ééé', open('x'))\n"))
    assert (error.line, error.col) == (6, 13)


def test_it_reports_a_missing_or_mistyped_config_schema():
    assert rejected(HEADER + "X = 1\n").message == "CONFIG_SCHEMA is not defined"
    assert rejected(HEADER + "CONFIG_SCHEMA = 'x'\n").message == (
        "CONFIG_SCHEMA must be a ProviderConfigSchema, got str"
    )


def test_it_runs_the_loaders_declaration_checks_and_points_at_the_field():
    text = HEADER + textwrap.dedent(
        """\
        CONFIG_SCHEMA = ProviderConfigSchema(
            name="demo",
            label="Demo",
            fields=(
                ProviderField("a", "A"),
                ProviderField("b", "B", when={"missing": "x"}),
            ),
        )
        """
    )
    error = rejected(text)
    assert error.message == "field 'b': when refers to 'missing', which is not a field declared earlier"
    assert error.line == 11


def test_it_refuses_a_source_larger_than_256_kb_before_parsing_it():
    text = paste("X = '" + "a" * 100 + "'\n") + "#" * MAX_SOURCE_BYTES
    error = rejected(text)
    assert error.message == "schema source is larger than 256 KB"
    assert error.line is None


def test_it_refuses_a_source_with_too_many_syntax_nodes():
    # 80 KB of source, well under the size cap, but 80,000 nodes (each name has a context node).
    text = paste("X = (" + "a," * 40_000 + ")\n")
    assert len(text.encode()) < MAX_SOURCE_BYTES
    assert "syntax nodes" in rejected(text).message


def test_it_stops_when_the_time_limit_is_used_up():
    path = BUNDLED_DIR / "honcho" / "config_schema.py"
    with pytest.raises(StaticEvalError, match="evaluation took longer than 0 s"):
        evaluate_schema_source(path.read_text(encoding="utf-8"), time_limit=0.0)


def test_it_rejects_text_that_is_not_a_string():
    with pytest.raises(StaticEvalError, match="must be text, got bytes"):
        evaluate_schema_source(b"CONFIG_SCHEMA = 1")  # type: ignore[arg-type]


# --- no side effects -----------------------------------------------------------------------------


def _file_creating_pastes(target: Path) -> list[str]:
    quoted = repr(str(target))
    return [
        f"open({quoted}, 'w').close()\n",
        f"X = open({quoted}, 'w')\n",
        f"X = __import__('pathlib').Path({quoted}).touch()\n",
        f"X = exec({f'open({quoted}, chr(119)).close()'!r})\n",
        f"X: open({quoted}, 'w') = 1\n",
        f"X = (lambda: open({quoted}, 'w'))()\n",
        f"X = [open({quoted}, 'w') for _ in (1,)]\n",
        f"class A:\n    f = open({quoted}, 'w')\n",
        f"X = f\"{{open({quoted}, 'w')}}\"\n",
    ]


def test_it_leaves_no_trace_of_a_rejected_paste_that_would_create_a_file(tmp_path):
    target = tmp_path / "created-by-paste"
    for body in _file_creating_pastes(target):
        # Without the header import, plain Python can run these bodies.
        text = body + "CONFIG_SCHEMA = None\n"
        with pytest.raises(StaticEvalError):
            evaluate_schema_source(text)
        assert not target.exists(), body


def test_it_would_have_created_the_file_had_the_paste_been_executed(tmp_path):
    # Proves the pastes above are real: plain Python creates the file from each of them.
    target = tmp_path / "created-by-python"
    for body in _file_creating_pastes(target):
        subprocess.run([sys.executable, "-c", body], check=True, cwd=tmp_path, timeout=180)
        assert target.exists(), body
        target.unlink()


# --- robustness ----------------------------------------------------------------------------------

_FRAGMENTS = [
    "(", ")", "[", "]", "{", "}", ",", "+", "-", "*", "**", ".", "=", ":", "\n", "  ", "#", "\\",
    "lambda", "__import__", "open", '"x"', "'y'", "1e999", "0x10", "1j", 'b"z"', 'f"{a}"', "...",
    "not ", "if ", "ProviderField", "KIND_TEXT", "cs.", "**{}", "*()", " as ", "import ", "from ",
    "CONFIG_SCHEMA", "ProviderConfigSchema(", "name=", "'demo'", "\x00", "\ufeff", "é",
]  # fmt: skip


@pytest.mark.filterwarnings("ignore::SyntaxWarning")  # ast.parse warns about odd literals in fuzzed text
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    base=st.sampled_from(["", HEADER + SCHEMA, (FIXTURES / "honcho_like.py").read_text(encoding="utf-8")]),
    edits=st.lists(st.tuples(st.integers(min_value=0), st.sampled_from(_FRAGMENTS)), max_size=6),
)
def test_it_answers_any_text_with_a_schema_or_a_static_eval_error(base, edits):
    text = base
    for position, fragment in edits:
        cut = position % (len(text) + 1)
        text = text[:cut] + fragment + text[cut:]
    try:
        schema = evaluate_schema_source(text)
    except StaticEvalError as error:
        assert error.message
        assert error.line is None or error.line >= 1
    else:
        assert isinstance(schema, cs.ProviderConfigSchema)


def test_it_parses_pasted_text_with_invalid_escapes_without_warning_into_the_log():
    source = 'NOTE = "C:\\extra"\n'  # "\e" is an invalid escape in Python source

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(StaticEvalError, match="CONFIG_SCHEMA"):
            evaluate_schema_source(source)

    assert caught == []

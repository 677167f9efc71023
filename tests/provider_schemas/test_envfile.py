"""The .env reader/writer: python-dotenv's reading rules, line-preserving edits (docs/agent_formats.md §Provider
storage)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings

from provider_schemas.storage.env_file import apply_changes, env_from_text, parse, quote_value, read_env
from tests.strategies import stripped_text

DOTENV_PYTHON = Path("/tmp/hermes-0190/bin/python")

SAMPLE = (
    "# agent secrets\n"
    "\n"
    "export OPENAI_API_KEY=sk-open\n"
    "HINDSIGHT_API_KEY = old-key   # set by hand\n"
    'QUOTED="two words \\"q\\""\n'
    "SINGLE='it''s'\n"
    "MULTI='line one\n"
    "line two'\n"
    "NOVALUE\n"
    'bad line "\n'
    "HINDSIGHT_API_KEY=later-key\n"
    "TAIL=1"
)


def test_it_reads_values_as_python_dotenv_does() -> None:
    values = env_from_text(SAMPLE)
    assert values["OPENAI_API_KEY"] == "sk-open"
    assert values["HINDSIGHT_API_KEY"] == "later-key"  # the last definition wins
    assert values["QUOTED"] == 'two words "q"'
    assert values["MULTI"] == "line one\nline two"
    assert "NOVALUE" not in values
    assert values["TAIL"] == "1"
    assert "bad" not in values


def test_it_keeps_every_other_byte_when_replacing_a_variable() -> None:
    new = apply_changes(_doc(SAMPLE), {"HINDSIGHT_API_KEY": "new-key"})
    expected = SAMPLE.replace("HINDSIGHT_API_KEY = old-key   # set by hand\n", "HINDSIGHT_API_KEY=new-key\n").replace(
        "HINDSIGHT_API_KEY=later-key\n", ""
    )
    assert new == expected


def test_it_replaces_the_export_form_in_place() -> None:
    new = apply_changes(_doc(SAMPLE), {"OPENAI_API_KEY": "sk-new"})
    assert new == SAMPLE.replace("export OPENAI_API_KEY=sk-open", "OPENAI_API_KEY=sk-new")


def test_it_appends_a_new_variable_adding_the_missing_final_newline() -> None:
    new = apply_changes(_doc(SAMPLE), {"NEW_VAR": "v"})
    assert new == SAMPLE + "\nNEW_VAR=v\n"
    assert apply_changes(_doc(""), {"A": "1"}) == "A=1\n"


def test_it_removes_every_line_defining_a_cleared_variable_and_never_writes_an_empty_value() -> None:
    new = apply_changes(_doc(SAMPLE), {"HINDSIGHT_API_KEY": None, "MULTI": None})
    assert "HINDSIGHT_API_KEY" not in new and "line two" not in new
    assert new.startswith("# agent secrets\n\nexport OPENAI_API_KEY=sk-open\nQUOTED=")
    assert apply_changes(_doc("A=1\n"), {"A": ""}) == ""


@pytest.mark.parametrize(
    ("value", "written"),
    [("plain", "plain"), ("two words", '"two words"'), ("a#b", '"a#b"'), ('say "hi"', '"say \\"hi\\""'),
     ("it's", '"it\'s"'), ("back\\slash", "back\\slash"), ("tab\there", '"tab\there"'),
     ("back\\ and space", '"back\\\\ and space"')],
)  # fmt: skip
def test_it_quotes_values_the_way_hermes_agent_does(value: str, written: str) -> None:
    assert quote_value(value) == written
    assert env_from_text(f"K={written}\n")["K"] == value


def test_it_refuses_to_write_line_breaks_or_nul() -> None:
    for bad in ("a\nb", "a\rb", "a\x00b"):
        with pytest.raises(ValueError):
            apply_changes(_doc(""), {"K": bad})


def test_it_tolerates_a_bom_when_reading_and_reports_it(tmp_path: Path) -> None:
    path = tmp_path / ".env"
    path.write_bytes(b"\xef\xbb\xbfFIRST=1\nSECOND=2\n")
    doc = read_env(path)
    assert doc.bom and doc.get("FIRST") == "1"
    assert apply_changes(doc, {"SECOND": "3"}) == "FIRST=1\nSECOND=3\n"


def test_it_reads_a_non_utf8_file_like_the_agent_and_marks_it(tmp_path: Path) -> None:
    path = tmp_path / ".env"
    path.write_bytes(b"NAME=caf\xe9\n")
    doc = read_env(path)
    assert doc.get("NAME") == "café" and doc.encoding_error is not None


def test_it_keeps_windows_line_endings_of_a_replaced_line() -> None:
    assert apply_changes(_doc("A=1\r\nB=2\r\n"), {"A": "9"}) == "A=9\r\nB=2\r\n"


@settings(max_examples=200)
@given(stripped_text(max_size=80, exclude="\r\n\x00"))
def test_it_reads_back_exactly_what_it_wrote(value: str) -> None:
    text = apply_changes(_doc("# keep me\nOTHER=x y\n"), {"K": value})
    assert env_from_text(text) == {"OTHER": "x y", "K": value}
    assert text.startswith("# keep me\nOTHER=x y\n")


@pytest.mark.skipif(not DOTENV_PYTHON.exists(), reason="hermes-agent 0.19.0 scratch venv not installed")
def test_it_matches_the_real_python_dotenv_on_tricky_files() -> None:
    corpus = [
        SAMPLE,
        "A = 'x' # c\nB=\"y\\nz\"\n  export   C=3\n",
        "K='unterminated\nL=1\n",
        "#only comment",
        "X=a #not a comment? yes it is\nY=a#b\n",
        "'QK'=quoted key\n=novalue\n",
        'E=\nF= \t\nG=""\n',
        "A=1\r\nB='2'\rC=\"3\"\n",
    ]
    corpus += [apply_changes(_doc(t), {"NEW": "has # and \"quotes\" and 'single'", "A": "x y"}) for t in corpus]
    program = (
        "import io, json, sys\n"
        "from dotenv.main import DotEnv\n"
        "print(json.dumps([dict(DotEnv(None, stream=io.StringIO(t), interpolate=False).dict()) "
        "for t in json.load(sys.stdin)]))\n"
    )
    result = subprocess.run(
        [str(DOTENV_PYTHON), "-c", program], input=json.dumps(corpus), capture_output=True, text=True, check=True
    )
    theirs = json.loads(result.stdout)
    for text, expected in zip(corpus, theirs, strict=True):
        mine = {b.key: b.value for b in parse(text) if b.key is not None}
        assert mine == expected, text


def _doc(text: str):
    from provider_schemas.storage.env_file import EnvDoc

    bindings = parse(text)
    return EnvDoc(
        Path(os.devnull), True, text, bindings, {b.key: b.value for b in bindings if b.key}, False, None, None
    )

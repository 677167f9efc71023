"""Engine messages are codes with parameters: the panel translates the code, never the English."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest
from django.utils import translation

from admin_panel.localisation import localise_message
from admin_panel.messages import MESSAGES
from provider_schemas import messages as engine_messages
from provider_schemas.config_schema import KIND_NUMBER, ProviderField
from provider_schemas.values import FieldError, coerce
from tests.i18n.catalog import load_po


@pytest.fixture(scope="module")
def catalog() -> dict[str, str]:
    return {e.msgid: e.msgstr.get(0, "") for e in load_po() if e.msgid and e.msgid_plural is None}


def test_it_words_every_code_in_english_as_the_api_does():
    for code, template in MESSAGES.items():
        assert engine_messages.ENGLISH[code] == template, code


def test_it_translates_a_message_by_its_code_whatever_its_english_says(monkeypatch, catalog):
    monkeypatch.setitem(engine_messages.ENGLISH, "invalid_number", "Not a number: %(key)s")
    with pytest.raises(FieldError) as raised:
        coerce(ProviderField("timeout", "Timeout", kind=KIND_NUMBER), "soon", storage="flat_json")

    with translation.override("zh-hans"):
        shown = localise_message(str(raised.value))

    assert str(raised.value) == "Not a number: timeout"  # what the API would answer
    assert shown == catalog["Invalid number for '%(key)s'"] % {"key": "timeout"}


def test_it_keeps_the_code_through_copies_of_the_message():
    import copy
    import pickle

    made = engine_messages.message("set_and_cleared", key="mode")

    for again in (copy.deepcopy(made), pickle.loads(pickle.dumps(made))):  # noqa: S301 - our own bytes
        assert (again, again.code, again.params) == ("'mode' cannot be both set and cleared", "set_and_cleared",
                                                     {"key": "mode"})


def test_it_translates_the_invisible_character_refusal_that_used_to_stay_english(catalog):
    with pytest.raises(FieldError) as raised:
        coerce(ProviderField("name", "Name"), "a\u200bb", storage="flat_json")

    with translation.override("zh-hans"):
        shown = localise_message(str(raised.value))

    template = "'%(key)s' must not contain invisible or direction-changing characters (%(characters)s)"
    assert str(raised.value) == template % {"key": "name", "characters": "U+200B"}
    assert shown == catalog[template] % {"key": "name", "characters": "U+200B"} != str(raised.value)


# --- no message is read back ------------------------------------------------------------------------

ADMIN_PANEL = Path(__file__).resolve().parents[2] / "admin_panel"
_REGEX_FUNCTIONS = {"compile", "match", "fullmatch", "search", "sub", "subn", "findall", "finditer", "split"}


def _fixed_fragments() -> set[str]:
    """The fixed runs of three or more words in the engines' English (between the parameters)."""
    fragments = set()
    for template in engine_messages.ENGLISH.values():
        for part in re.split(r"%\(\w+\)s", template):
            if len(part.split()) >= 3:
                fragments.add(part.strip())
    return fragments


def _regex_literals(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _REGEX_FUNCTIONS
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "re" and node.args):
            found += [n.value for n in ast.walk(node.args[0])
                      if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    return found


def _reads_a_message(literal: str, fragments: set[str]) -> bool:
    """Whether a pattern spells out part of an engine message: three or more of its words in a row
    between the pattern's special characters."""
    for piece in re.split(r"[\\\[\]().*+?{}|^$]+", literal):
        piece = piece.strip(" :")
        if len(piece.split()) >= 3 and any(piece in f for f in fragments):
            return True
    return False


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.add(node.module or "")
    return names


def test_it_reads_no_engine_message_back_with_a_regular_expression():
    for module in ("localisation.py", "messages.py", "services/memory.py"):
        assert "re" not in _imports(ADMIN_PANEL / module), module

    fragments = _fixed_fragments()
    reading = {
        (path.relative_to(ADMIN_PANEL).as_posix(), literal)
        for path in sorted(ADMIN_PANEL.rglob("*.py"))
        for literal in _regex_literals(path)
        if _reads_a_message(literal, fragments)
    }
    assert not reading, reading


# --- each family of codes, made by the engine, in Chinese -------------------------------------------


def _families() -> dict[str, Any]:
    import errno

    from memory_core import files
    from memory_core import messages as store_messages
    from memory_core.threats import first_threat_message
    from provider_schemas import constraints, declaration_problems
    from provider_schemas.config_schema import KIND_TEXT, ProviderConfigSchema
    from provider_schemas.errors import link_banner
    from provider_schemas.loading.lint import lint
    from provider_schemas.loading.static_eval import StaticEvalError, evaluate_schema_source

    def refused(source: str) -> str:
        with pytest.raises(StaticEvalError) as raised:
            evaluate_schema_source(source)
        return raised.value.message

    tokens = ProviderField("budget", "Budget", kind=KIND_NUMBER, minimum=1, maximum=100, integer=True, unit="tokens")
    schema = ProviderConfigSchema(name="p", label="P", fields=(ProviderField("api_token", "Token", kind=KIND_TEXT),))
    return {
        "store refusal": store_messages.no_match("Repo uses", "remove"),
        "threat scanner": first_threat_message("hello\u200bworld"),
        "drift": store_messages.drift_resolved("MEMORY.md", 4, "MEMORY.md.bak.1700000000"),
        "write failure": files.write_failure_reason(OSError(errno.EROFS, "Read-only file system"), folder="memories",
                                                    file_name="MEMORY.md"),
        "link": link_banner(".env"),
        "constraint": constraints.number_message(tokens),
        "json shape": constraints.shape_problem({"type": "object", "properties": {"on": {"type": "boolean"}}},
                                                {"on": "yes"}),
        "declaration check": declaration_problems(ProviderConfigSchema(name="", label="P", fields=()))[0].message,
        "lint": lint(schema, name="p")[0].message,
        "static evaluator": refused("from plugins.memory.config_schema import ProviderField\nX = lambda: 1\n"),
        "python": refused("X = (1,]\n"),
    }


@pytest.mark.parametrize("family", list(_families()))
def test_it_words_each_family_of_engine_messages_by_its_code(family, catalog):
    made = _families()[family]

    with translation.override("zh-hans"):
        shown = localise_message(made)

    assert isinstance(made, engine_messages.Message) and made.code in MESSAGES, family
    assert shown != made
    assert re.search(r"[\u4e00-\u9fff]", shown), shown
    for value in made.params.values():
        if not isinstance(value, engine_messages.Message) and value not in ("tokens",):
            assert str(value) in shown, (value, shown)  # the values are inserted as they are


def test_it_words_a_message_whose_parameters_are_messages_from_their_codes(monkeypatch, catalog):
    from provider_schemas.loading.static_eval import StaticEvalError, evaluate_schema_source

    monkeypatch.setitem(engine_messages.ENGLISH, "eval_invalid_syntax", "does not parse: %(message)s")

    with pytest.raises(StaticEvalError) as raised:
        evaluate_schema_source("X = (1,]\n")
    made = raised.value.message

    with translation.override("zh-hans"):
        shown = localise_message(made)

    assert made.startswith("does not parse: ")  # the engine's English, reworded
    inner = catalog["closing parenthesis %(closing)s does not match opening parenthesis %(opening)s"] % {
        "closing": "']'", "opening": "'('"}
    assert shown == catalog["invalid syntax: %(message)s"] % {"message": inner}


def test_it_shows_why_config_yaml_was_not_read_in_chinese_on_the_memory_page(home, owner_client, catalog,
                                                                           monkeypatch):
    from memory_core import messages as store_messages

    # reworded in the engine: the page still finds the words by the code
    monkeypatch.setitem(store_messages.TEXTS, "config_invalid_yaml_at", "config.yaml does not parse as YAML (%(line)s)")
    (home / "config.yaml").write_text("memory: [\n", encoding="utf-8")

    html = owner_client.get("/memory/", headers={"Accept-Language": "zh-CN"}).content.decode()

    assert catalog["config.yaml is not valid YAML (line %(line)s)"] % {"line": "2"} in html
    assert "does not parse" not in html


def test_it_shows_a_provider_notice_in_chinese_on_its_page(home, owner_client, catalog, monkeypatch):
    monkeypatch.setitem(engine_messages.ENGLISH, "notice_env_bom", ".env begins with a BOM.")
    (home / ".env").write_text("\ufeffHINDSIGHT_API_KEY=k\n", encoding="utf-8")

    from provider_schemas import read_provider

    html = owner_client.get("/providers/hindsight/", headers={"Accept-Language": "zh-CN"}).content.decode()

    # the engine's English (the API's), reworded
    assert ".env begins with a BOM." in [w.message for w in read_provider(home=home, name="hindsight").warnings]

    assert catalog[".env starts with a byte-order mark, which corrupts its first variable for the agent."] in html
    assert "begins with a BOM" not in html

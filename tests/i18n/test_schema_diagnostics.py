"""The schema author's diagnostics (lint findings, declaration-check problems, static-evaluator
refusals, load errors) reach a Chinese reader in Chinese, with their code values unchanged.

provider_schemas writes them as coded messages whose English the CLI and the API keep; the preview
shows them through ``admin_panel.localisation.localise_message``, which words them by their codes.
The bad schemas below are built to trip every rule of ``provider_schemas.loading.checks`` and
``provider_schemas.loading.lint``; the file fixtures and the static evaluator's refused constructs
are the ones the provider_schemas tests use.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.utils import translation

from admin_panel.localisation import localise_message
from provider_schemas import SchemaLoadError, declaration_problems, load_schema
from provider_schemas.config_schema import (
    KIND_BOOL,
    KIND_JSON,
    KIND_NUMBER,
    KIND_SECRET,
    KIND_SELECT,
    KIND_TEXT,
    STORAGE_CONFIG_YAML,
    STORAGE_ENV_FILE,
    STORAGE_JSON_FILE,
    ProviderConfigSchema,
    ProviderField,
    ProviderFieldOption,
)
from provider_schemas.loading.lint import lint
from provider_schemas.loading.static_eval import StaticEvalError, evaluate_schema_source
from provider_schemas.messages import message as coded
from tests.i18n.test_rendered_pages import (
    BADCHECK_SCHEMA,
    LINTY_SCHEMA,
    PASTED_LOOP,
    PASTED_UNCLOSED,
    english_runs,
)
from tests.provider_schemas.test_static_eval import REJECTED, paste

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "schemas"
OPTION = ProviderFieldOption("a", "A")
_CJK = re.compile(r"[\u4e00-\u9fff]")


def _schema(*fields: object, **kw: object) -> ProviderConfigSchema:
    kw.setdefault("fields", fields)
    return ProviderConfigSchema(name=kw.pop("name", "p"), label=kw.pop("label", "P"), **kw)


def _field(key: object = "f", **kw: object) -> ProviderField:
    return ProviderField(key, kw.pop("label", "F"), **kw)


# Each trips one or more declaration checks or lint rules (one schema may trip several).
BAD_SCHEMAS = {
    "empty name": _schema(name=""),
    "another directory's name": _schema(name="q"),
    "label not a string": _schema(_field(label=3), label=None),
    "unknown storage": _schema(storage="sqlite"),
    "json_file outside": _schema(storage=STORAGE_JSON_FILE, storage_path="../up.json"),
    "config_yaml undotted": _schema(storage=STORAGE_CONFIG_YAML, storage_path="memory..x"),
    "fallbacks not strings": _schema(storage_fallbacks=(1,)),
    "a field that is not a field": _schema("text"),
    "an empty key": _schema(_field("")),
    "a duplicate key": _schema(_field("a"), _field("a")),
    "unknown kind and scope": _schema(_field(kind="colour", scope="planet", storage="yaml")),
    "default not a string": _schema(_field(default=3)),
    "aliases not strings": _schema(_field(aliases=(1,))),
    "options not options": _schema(_field(kind=KIND_SELECT, options=("a",))),
    "env_key not a string": _schema(_field(env_key=5)),
    "select without options": _schema(_field(kind=KIND_SELECT)),
    "duplicate option": _schema(_field(kind=KIND_SELECT, options=(OPTION, OPTION), default="z")),
    "bool default": _schema(_field(kind=KIND_BOOL, default="yes")),
    "number default": _schema(_field(kind=KIND_NUMBER, default="inf")),
    "json default": _schema(_field(kind=KIND_JSON, default="3")),
    "env_file without env_key": _schema(_field(storage=STORAGE_ENV_FILE)),
    "bad variable names": _schema(_field(kind=KIND_SECRET, env_key="LD_PRELOAD", env_fallbacks=("9LIVES",))),
    "conditions": _schema(
        _field("a", when={"a": "x"}, required_when={"later": "x"}, required_unless=("zz",)),
        _field("b", when={"a": 1}),
        _field("later"),
    ),
    "lint advice": _schema(
        _field("mode", kind=KIND_SELECT, options=(OPTION,)),
        _field("limit", kind=KIND_NUMBER),
        _field("api_token", kind=KIND_TEXT),
        _field("password", kind=KIND_SECRET),
        _field("flag", label="", kind=KIND_BOOL),
        _field("shown", when={"mode": "b"}),
        _field("sized", when={"limit": "many"}),
        _field("k1", kind=KIND_SECRET, env_key="SHARED"),
        _field("k2", kind=KIND_SECRET, env_key="SHARED"),
        _field("host", env_fallbacks=("SHARED",)),
        _field("port", env_fallbacks=("OTHER",)),
        _field("url", env_overrides=("OTHER",)),
    ),
}


def _zh(text: str) -> str:
    with translation.override("zh-hans"):
        return localise_message(text)


def _prose(text: str) -> str:
    """``text`` without its quoted values (keys, code such as 'from __future__ import annotations')."""
    return re.sub(r"'[^']*'", " ", text)


def _assert_translated(messages: list[str]) -> None:
    untranslated = [m for m in messages if english_runs(m) and _zh(m) == m]
    assert not untranslated, "no template matches:\n" + "\n".join(untranslated)
    leftover = {m: _zh(m) for m in messages if english_runs(_prose(_zh(m)))}
    assert not leftover, "English left in the translation:\n" + "\n".join(f"{k} -> {v}" for k, v in leftover.items())


# Only the declaration checks read these (the linter's advice expects a tuple of fields).
CHECKED_ONLY = {"fields not a tuple": _schema(fields=None), "not a schema": {"name": "p"}}


@pytest.fixture(scope="module")
def lint_messages() -> list[str]:
    messages = [f.message for schema in BAD_SCHEMAS.values() for f in lint(schema, name="p")]
    messages += [p.message for schema in CHECKED_ONLY.values() for p in declaration_problems(schema)]
    messages += [f.message for path in sorted(FIXTURES.glob("*/config_schema.py")) for f in lint(path)]
    return sorted(set(messages))


def test_it_has_bad_schemas_that_trip_every_kind_of_finding(lint_messages):
    # guards the set above: if the engine stopped reporting these, the test below would prove little
    assert len(lint_messages) >= 45
    for fragment in ("empty label", "looks like a credential", "a value that field cannot take",
                     "expects number field", "is also the env_key", "is also read by", "duplicate key",
                     "is not one of the options", "must be a ProviderConfigSchema", "SyntaxError:", "NameError:"):
        assert any(fragment in m for m in lint_messages), fragment


def test_it_translates_every_message_the_linter_emits_for_the_bad_schemas(lint_messages):
    _assert_translated(lint_messages)


def _engine_message(messages: list[str], english: str) -> str:
    """The engine's (coded) message whose English is ``english``."""
    return next(m for m in messages if m == english)


def test_it_keeps_keys_types_and_line_numbers_as_they_are(tmp_path):
    credential = _engine_message(
        [f.message for f in lint(_schema(_field("api_token", kind=KIND_TEXT)), name="p")],
        "field 'api_token': the key looks like a credential but the kind is 'text'; use kind 'secret' "
        "so the value is never shown")
    not_a_field = _engine_message(
        [p.message for p in declaration_problems(_schema(_field("a"), _field("b"), "c"))],
        "fields[2] must be a ProviderField, got str")
    path = tmp_path / "p" / "config_schema.py"
    path.parent.mkdir()
    path.write_text("\n" * 4 + "X = [1 2]\n", encoding="utf-8")
    with pytest.raises(SchemaLoadError) as raised:
        load_schema(path)
    syntax = coded("typed_error", type=raised.value.type, message=raised.value.message)
    assert syntax == "SyntaxError: invalid syntax. Perhaps you forgot a comma? (config_schema.py, line 5)"

    assert _zh(credential).startswith("字段 'api_token'：")
    assert _zh(not_a_field) == "fields[2] 必须是 ProviderField，实际为 str"
    shown = _zh(syntax)
    assert shown.startswith("SyntaxError: ")
    assert "config_schema.py" in shown and "5" in shown and _CJK.search(shown)


def test_it_translates_every_refusal_of_the_static_evaluator():
    sources = [paste(body) for _id, body, _line, _message in REJECTED]
    sources += [PASTED_LOOP, PASTED_UNCLOSED, paste("X = 1)\n"), paste("X = (1,]\n"), paste('X = "open\n'),
                paste("X = ProviderField()\n"), paste("from provider_schemas.config_schema import nothing\n"),
                paste("X: int\n"), paste("X = ...\n"), paste("X = -'a'\n"), paste("A, B = 1\n"),
                paste("X = {(1,): 2}\n"), paste("X = ProviderField('a', 'A', key='b')\n"), "X = 1\n",
                "CONFIG_SCHEMA = 1\n", "\x00"]
    messages = []
    for source in sources:
        with pytest.raises(StaticEvalError) as raised:
            evaluate_schema_source(source)
        messages.append(raised.value.message)

    assert len(set(messages)) >= 50
    _assert_translated(sorted(set(messages)))


@pytest.mark.parametrize(
    "text",
    [
        BADCHECK_SCHEMA,
        "CONFIG_SCHEMA = dict(\n",
        "CONFIG_SCHEMA = UNDEFINED_NAME\n",
        "import no_such_module_here\n",
        "from plugins.memory.config_schema import Nothing\n",
        "from plugins.memory.config_schema import ProviderField\nCONFIG_SCHEMA = ProviderField('a', 'A', colour=1)\n",
        "#" * (1024 * 1024 + 1),
    ],
    ids=["declaration check", "syntax", "name", "module", "import", "keyword", "size"],
)
def test_it_translates_the_loaders_errors(text, tmp_path):
    path = tmp_path / "badcheck" / "config_schema.py"
    path.parent.mkdir()
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SchemaLoadError) as raised:
        load_schema(path)

    # as the preview shows it: the type, then the message (admin_panel.selectors.preview)
    typed = coded("typed_error", type=raised.value.type, message=raised.value.message)
    _assert_translated([raised.value.message, typed])


def test_it_shows_the_findings_and_errors_of_the_preview_in_chinese(home, owner_client):
    for name, text in (("linty", LINTY_SCHEMA), ("badcheck", BADCHECK_SCHEMA)):
        (home / "plugins" / name).mkdir(parents=True)
        (home / "plugins" / name / "config_schema.py").write_text(text, encoding="utf-8")
    chinese = {"headers": {"Accept-Language": "zh-CN"}}

    linty = owner_client.get("/schema-preview/?choice=plugin:linty", **chinese).content.decode()
    broken = owner_client.get("/schema-preview/?choice=plugin:badcheck", **chinese).content.decode()
    pasted = owner_client.post("/schema-preview/paste/", {"source": PASTED_LOOP}, **chinese).content.decode()

    findings = re.findall(r'<p class="finding__message">(.*?)</p>', linty, re.S)
    assert len(findings) == 8
    assert all(_CJK.search(f) for f in findings)
    assert "字段 &#x27;k2&#x27;：环境变量 LINTY_KEY 同时也是字段 &#x27;k1&#x27; 的 env_key" in findings
    assert "ValueError: 字段 &#x27;mode&#x27;：默认值 &#x27;x&#x27; 不在选项之中" in broken
    assert "不允许使用循环：" in pasted

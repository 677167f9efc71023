"""No user-visible English is left outside the translation machinery.

Templates: every text node and every text-bearing attribute (aria-label, title, placeholder, alt,
button values) outside ``{% translate %}``/``{% blocktranslate %}`` must hold no words, except the
technical names listed in ``UNTRANSLATABLE`` (file names, the product name). Python: messages for
the user (``django.contrib.messages``, ``Http404``, form ``ValidationError``) are never plain or
f-string literals.
"""

from __future__ import annotations

import ast
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.i18n.catalog import PYTHON_ROOTS, REPO, TEMPLATE_ROOTS

# Names that read the same in every language.
UNTRANSLATABLE = {
    "memory-panel",
    "MEMORY.md",
    "USER.md",
    "config.yaml",
    ".env",
    "config_schema.py",
    "§",
    "ⓘ",
    "UTC",
}
TEXT_ATTRIBUTES = ("aria-label", "aria-description", "title", "placeholder", "alt", "aria-roledescription")
MARK = "\u2063"  # stands for a template tag or variable: not a letter, so never flagged
_BLOCK = re.compile(r"\{%\s*(blocktranslate|blocktrans)\b.*?\{%\s*end(?:blocktranslate|blocktrans)\s*%\}", re.S)
_COMMENT = re.compile(r"\{%\s*comment\s*%\}.*?\{%\s*endcomment\s*%\}|\{#.*?#\}", re.S)
_TAG = re.compile(r"\{%.*?%\}|\{\{.*?\}\}", re.S)
_WORD = re.compile(r"[^\W\d_]{2,}")


def _words(text: str) -> str | None:
    text = " ".join(text.replace(MARK, " ").split())
    for name in UNTRANSLATABLE:
        text = text.replace(name, " ")
    return text.strip() if _WORD.search(text) else None


class _Scanner(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[int, str]] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style", "code", "pre", "kbd", "samp"):
            self._skip += 1
        values = dict(attrs)
        names = list(TEXT_ATTRIBUTES)
        if tag == "input" and (values.get("type") or "") in ("submit", "button", "reset"):
            names.append("value")
        for name in names:
            value = values.get(name)
            if value and _words(value):
                self.found.append((self.getpos()[0], f'{tag}[{name}="{value.strip()}"]'))

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "code", "pre", "kbd", "samp") and self._skip:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip and _words(data):
            self.found.append((self.getpos()[0], data.strip()))


def untranslated_in_template(source: str) -> list[tuple[int, str]]:
    def blank(match: re.Match[str]) -> str:
        return MARK + "\n" * match.group(0).count("\n")  # keep line numbers

    source = _COMMENT.sub(blank, source)
    source = _BLOCK.sub(blank, source)
    source = _TAG.sub(blank, source)
    scanner = _Scanner()
    scanner.feed(source)
    scanner.close()
    return scanner.found


def _templates() -> list[Path]:
    return [p for root in TEMPLATE_ROOTS if root.is_dir() for p in sorted(root.rglob("*.html"))]


def test_it_flags_words_outside_translate_tags():
    found = untranslated_in_template(
        '{% load i18n %}<h1>{% translate "Fine" %}</h1>\n<p>Not fine</p>\n'
        '<button aria-label="Close it">{% blocktranslate %}Fine {{ x }}{% endblocktranslate %}</button>\n'
        "<code>MEMORY.md and friends</code> <span>{{ value }} · MEMORY.md</span>"
    )

    assert found == [(2, "Not fine"), (3, 'button[aria-label="Close it"]')]


@pytest.mark.parametrize("path", _templates(), ids=lambda p: str(p.relative_to(REPO)))
def test_it_leaves_no_english_outside_translate_tags(path):
    found = untranslated_in_template(path.read_text(encoding="utf-8"))

    assert not found, "\n".join(f"{path.relative_to(REPO)}:{line}: {text!r}" for line, text in found)


_USER_MESSAGE_CALLS = {"success", "error", "warning", "info", "debug", "add_message", "Http404", "ValidationError"}


def _is_literal_text(node: ast.AST) -> bool:
    return (isinstance(node, ast.Constant) and isinstance(node.value, str)) or isinstance(node, ast.JoinedStr)


def untranslated_in_python(source: str) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if name not in _USER_MESSAGE_CALLS:
            continue
        owner = node.func.value if isinstance(node.func, ast.Attribute) else None
        if name in {"success", "error", "warning", "info", "debug", "add_message"}:
            # messages.success(request, text) / messages.add_message(request, level, text)
            if not (isinstance(owner, ast.Name) and owner.id == "messages"):
                continue
            index = 2 if name == "add_message" else 1
        else:
            index = 0
        if len(node.args) > index and _is_literal_text(node.args[index]):
            found.append((node.lineno, ast.unparse(node.args[index])[:80]))
    return found


def _python_files() -> list[Path]:
    return [
        p for root in PYTHON_ROOTS for p in sorted(root.rglob("*.py"))
        if "migrations" not in p.parts and "management" not in p.parts
    ]


def test_it_flags_literal_messages_in_python():
    found = untranslated_in_python(
        "messages.success(request, 'Saved.')\nmessages.error(request, _('Fine'))\nraise Http404(f'No {x}')\n"
    )

    assert [line for line, _text in found] == [1, 3]


@pytest.mark.parametrize("path", _python_files(), ids=lambda p: str(p.relative_to(REPO)))
def test_it_sends_no_literal_english_message_to_the_user(path):
    found = untranslated_in_python(path.read_text(encoding="utf-8"))

    assert not found, "\n".join(f"{path.relative_to(REPO)}:{line}: {text}" for line, text in found)

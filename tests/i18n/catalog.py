"""Read gettext catalogs and extract message ids from the sources, without the gettext binaries.

The extraction mirrors what ``makemessages`` finds for the common forms: in Python, calls of the
gettext family whose message arguments are string literals; in templates, what Django's own
``templatize`` turns ``{% translate %}``/``{% blocktranslate %}`` into.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LOCALE_DIR = REPO / "admin_panel" / "locale"
PO_PATH = LOCALE_DIR / "zh_Hans" / "LC_MESSAGES" / "django.po"
MO_PATH = PO_PATH.with_suffix(".mo")
PYTHON_ROOTS = (REPO / "admin_panel",)
TEMPLATE_ROOTS = (REPO / "templates", REPO / "admin_panel" / "templates")

Key = tuple[str | None, str]  # (context, msgid)


@dataclass
class PoEntry:
    msgid: str = ""
    msgid_plural: str | None = None
    msgctxt: str | None = None
    msgstr: dict[int, str] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)
    obsolete: bool = False
    line: int = 0

    @property
    def key(self) -> Key:
        return (self.msgctxt, self.msgid)

    @property
    def fuzzy(self) -> bool:
        return "fuzzy" in self.flags

    @property
    def translated(self) -> bool:
        return bool(self.msgstr) and all(self.msgstr.values())


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}


def _unquote(token: str, line: int) -> str:
    token = token.strip()
    if len(token) < 2 or token[0] != '"' or token[-1] != '"':
        raise ValueError(f"line {line}: expected a quoted string, got {token!r}")
    body, out, i = token[1:-1], [], 0
    while i < len(body):
        char = body[i]
        if char == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in _ESCAPES:
                out.append(_ESCAPES[nxt])
                i += 2
                continue
            raise ValueError(f"line {line}: unsupported escape \\{nxt}")
        out.append(char)
        i += 1
    return "".join(out)


_KEYWORD = re.compile(r"^(msgctxt|msgid_plural|msgid|msgstr(?:\[(\d+)\])?)\s+(\".*\")\s*$")


def parse_po(text: str) -> list[PoEntry]:
    """Every entry of a .po file, the header (msgid "") included."""
    entries: list[PoEntry] = []
    current = PoEntry()
    last: tuple[str, int | None] | None = None
    started = False

    def finish() -> None:
        nonlocal current, last, started
        if started:
            entries.append(current)
        current, last, started = PoEntry(), None, False

    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            finish()
            continue
        obsolete = line.startswith("#~")
        if obsolete:
            line = line[2:].strip()
            current.obsolete = True
        elif line.startswith("#,"):
            if started and last is not None:
                finish()
            current.flags |= {flag.strip() for flag in line[2:].split(",") if flag.strip()}
            continue
        elif line.startswith("#"):
            if started and last is not None and last[0] == "msgstr":
                finish()
            continue
        if line.startswith('"'):
            if last is None:
                raise ValueError(f"line {number}: a string continues nothing")
            piece = _unquote(line, number)
            name, index = last
            if name == "msgstr":
                current.msgstr[index or 0] += piece
            else:
                setattr(current, name, (getattr(current, name) or "") + piece)
            continue
        match = _KEYWORD.match(line)
        if not match:
            raise ValueError(f"line {number}: cannot parse {raw!r}")
        keyword, index_text, quoted = match.groups()
        if keyword in ("msgctxt", "msgid") and last is not None and last[0] == "msgstr":
            finish()
        if not started:
            current.line = number
            started = True
        value = _unquote(quoted, number)
        if keyword.startswith("msgstr"):
            index = int(index_text) if index_text is not None else 0
            current.msgstr[index] = value
            last = ("msgstr", index)
        else:
            setattr(current, keyword, value)
            last = (keyword, None)
    finish()
    return entries


def load_po(path: Path = PO_PATH) -> list[PoEntry]:
    return parse_po(path.read_text(encoding="utf-8"))


def header_fields(entries: list[PoEntry]) -> dict[str, str]:
    header = next(entry for entry in entries if entry.msgid == "" and entry.msgctxt is None)
    out = {}
    for line in header.msgstr.get(0, "").splitlines():
        name, sep, value = line.partition(":")
        if sep:
            out[name.strip()] = value.strip()
    return out


# --- extraction --------------------------------------------------------------------------------

# name -> (index of the context argument or None, indexes of the message arguments)
_CALLS: dict[str, tuple[int | None, tuple[int, ...]]] = {
    "_": (None, (0,)),
    "gettext": (None, (0,)),
    "gettext_lazy": (None, (0,)),
    "gettext_noop": (None, (0,)),
    "ngettext": (None, (0, 1)),
    "ngettext_lazy": (None, (0, 1)),
    "pgettext": (0, (1,)),
    "pgettext_lazy": (0, (1,)),
    "npgettext": (0, (1, 2)),
    "npgettext_lazy": (0, (1, 2)),
}


@dataclass(frozen=True)
class Message:
    msgctxt: str | None
    msgid: str
    msgid_plural: str | None
    where: str

    @property
    def key(self) -> Key:
        return (self.msgctxt, self.msgid)


def _call_name(node: ast.Call) -> str | None:
    if isinstance(node.func, ast.Name):
        return node.func.id
    if isinstance(node.func, ast.Attribute):
        return node.func.attr
    return None


def _literal(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def messages_in_python(source: str, where: str) -> list[Message]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        spec = _CALLS.get(_call_name(node) or "")
        if spec is None:
            continue
        context_index, message_indexes = spec
        args = list(node.args)
        needed = max((context_index or 0, *message_indexes))
        if len(args) <= needed:
            continue
        texts = [_literal(args[i]) for i in message_indexes]
        context = _literal(args[context_index]) if context_index is not None else None
        if texts[0] is None or (context_index is not None and context is None):
            continue
        plural = texts[1] if len(texts) > 1 else None
        found.append(Message(context, texts[0], plural, f"{where}:{node.lineno}"))
    return found


_TEMPLATE_CALL = re.compile(r"\b(" + "|".join(sorted(_CALLS, key=len, reverse=True)) + r")\(")
_ARGUMENT = re.compile(r"""\s*(?:[uU]?('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")|[^,)]*)\s*([,)])""", re.S)


def messages_in_template(source: str, where: str) -> list[Message]:
    """Messages of a Django template, read from Django's own ``templatize`` output."""
    from django.utils.translation.template import templatize

    code = templatize(source)
    found = []
    for call in _TEMPLATE_CALL.finditer(code):
        args: list[str | None] = []
        position = call.end()
        while True:
            argument = _ARGUMENT.match(code, position)
            if argument is None:
                break
            literal, closer = argument.groups()
            args.append(ast.literal_eval(literal) if literal else None)
            position = argument.end()
            if closer == ")":
                break
        context_index, message_indexes = _CALLS[call.group(1)]
        if len(args) <= max((context_index or 0, *message_indexes)):
            continue
        texts = [args[i] for i in message_indexes]
        context = args[context_index] if context_index is not None else None
        if texts[0] is None:
            continue
        plural = texts[1] if len(texts) > 1 else None
        line = code.count("\n", 0, call.start()) + 1
        found.append(Message(context, texts[0], plural, f"{where}:{line}"))
    return found


def source_messages() -> list[Message]:
    """Every message id the panel's Python code and templates mark for translation."""
    found: list[Message] = []
    for root in PYTHON_ROOTS:
        for path in sorted(root.rglob("*.py")):
            if "locale" in path.parts:
                continue
            found += messages_in_python(path.read_text(encoding="utf-8"), str(path.relative_to(REPO)))
    for root in TEMPLATE_ROOTS:
        if not root.is_dir():
            continue
        for path in sorted(root.rglob("*.html")) + sorted(root.rglob("*.txt")):
            found += messages_in_template(path.read_text(encoding="utf-8"), str(path.relative_to(REPO)))
    return found


# Placeholders that must survive translation: %(name)s, %s / %d, {name} / {0}.
PLACEHOLDER_RE = re.compile(r"%\([A-Za-z_]\w*\)[sdifr]|%[sdif]|\{[A-Za-z_0-9]*\}")


def placeholders(text: str) -> list[str]:
    return sorted(PLACEHOLDER_RE.findall(text.replace("%%", "")))

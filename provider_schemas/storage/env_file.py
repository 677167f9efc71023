"""The agent's ``.env`` file: read with python-dotenv's rules, edited line-preservingly.

Reading (docs/agent_formats.md §Provider storage): ``KEY=value``, ``export KEY=value``, ``KEY = value``, double-quoted
values with backslash escapes, single-quoted values (possibly spanning lines), ``#`` comments and
blank lines; the last definition of a name wins; a line that does not parse defines nothing.
Writing: the first binding of a name is replaced by ``KEY=<value>``, later ones are deleted, a
new name is appended; every other byte stays as it was. Values are quoted as hermes-agent 0.19.0
quotes them. An empty value is never written: clearing removes the lines.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

_HSPACE = r"[^\S\r\n]"
_EXPORT_RE = re.compile(rf"export{_HSPACE}+")
_SQ_KEY_RE = re.compile(r"'([^']+)'")
_KEY_RE = re.compile(r"[^=#\s]+")
_HSPACE_RE = re.compile(rf"{_HSPACE}*")
_EQUALS_RE = re.compile(rf"={_HSPACE}*")
_SQ_VALUE_RE = re.compile(r"'((?:\\'|[^'])*)'")
_DQ_VALUE_RE = re.compile(r'"((?:\\"|[^"])*)"')
_UNQUOTED_RE = re.compile(r"[^\r\n]*")
_COMMENT_RE = re.compile(rf"(?:{_HSPACE}*#[^\r\n]*)?")
_EOL_RE = re.compile(rf"{_HSPACE}*(?:\r\n|\n|\r|$)")
_REST_RE = re.compile(r"[^\r\n]*(?:\r\n|\n|\r)?")
_WS_RE = re.compile(r"\s*")
_DQ_ESCAPES = {
    "\\": "\\",
    "'": "'",
    '"': '"',
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
}
_NEEDS_QUOTES_RE = re.compile(r"[#\"'\s]")
BOM = "\ufeff"


@dataclass(frozen=True)
class Binding:
    """One parsed statement: ``start``/``end`` are character offsets covering its whole lines."""

    key: str | None
    value: str | None
    start: int
    end: int


@dataclass
class EnvDoc:
    path: Path
    exists: bool
    text: str = ""
    bindings: list[Binding] = field(default_factory=list)
    values: dict[str, str | None] = field(default_factory=dict)
    bom: bool = False
    encoding_error: str | None = None  # set when the file is not UTF-8 (read as latin-1, like the agent)
    raw: bytes | None = None

    def get(self, name: str) -> str | None:
        """The value the agent would load for ``name`` (None when absent or defined without '=')."""
        return self.values.get(name)

    def non_empty(self, name: str) -> str | None:
        value = self.values.get(name)
        return value if value else None

    def defines(self, name: str) -> bool:
        return any(b.key == name for b in self.bindings)


def _decode_double(text: str) -> str:
    return re.sub(r"\\([\\'\"abfnrtv])", lambda m: _DQ_ESCAPES[m.group(1)], text)


def _decode_single(text: str) -> str:
    return re.sub(r"\\([\\'])", lambda m: m.group(1), text)


def _line_start(text: str, pos: int, floor: int = 0) -> int:
    """Start of the line holding ``pos``; ``floor`` is a known line start at or before it (searching
    only from there keeps parsing linear: a search from 0 made large files take minutes)."""
    cut = max(text.rfind("\n", floor, pos), text.rfind("\r", floor, pos))
    return cut + 1 if cut >= 0 else floor


def parse(text: str) -> list[Binding]:
    """All statements of ``text`` in order (comments and unparseable lines have ``key=None``)."""
    out: list[Binding] = []
    pos = line_floor = 0
    n = len(text)
    while pos < n:
        pos = _WS_RE.match(text, pos).end()  # type: ignore[union-attr]
        if pos >= n:
            break
        start = _line_start(text, pos, line_floor)
        key: str | None = None
        value: str | None = None
        cur = pos
        ok = True
        m = _EXPORT_RE.match(text, cur)
        if m:
            cur = m.end()
        if text.startswith("#", cur):
            pass  # a comment line: no key; the comment regex below consumes it
        else:
            m = _SQ_KEY_RE.match(text, cur) if text.startswith("'", cur) else _KEY_RE.match(text, cur)
            if m is None:
                ok = False
            else:
                key = m.group(1) if m.re is _SQ_KEY_RE else m.group(0)
                cur = m.end()
                cur = _HSPACE_RE.match(text, cur).end()  # type: ignore[union-attr]
                if text.startswith("=", cur):
                    cur = _EQUALS_RE.match(text, cur).end()  # type: ignore[union-attr]
                    char = text[cur : cur + 1]
                    if char == "'":
                        m = _SQ_VALUE_RE.match(text, cur)
                        if m is None:
                            ok = False
                        else:
                            value, cur = _decode_single(m.group(1)), m.end()
                    elif char == '"':
                        m = _DQ_VALUE_RE.match(text, cur)
                        if m is None:
                            ok = False
                        else:
                            value, cur = _decode_double(m.group(1)), m.end()
                    elif char in ("", "\n", "\r"):
                        value = ""
                    else:
                        m = _UNQUOTED_RE.match(text, cur)
                        part = m.group(0)  # type: ignore[union-attr]
                        cur = m.end()  # type: ignore[union-attr]
                        value = re.sub(r"\s+#.*", "", part).rstrip()
        if ok:
            cur = _COMMENT_RE.match(text, cur).end()  # type: ignore[union-attr]
            m = _EOL_RE.match(text, cur)
            if m is None:
                ok = False
            else:
                cur = m.end()
        if not ok:
            key, value = None, None
            cur = _REST_RE.match(text, cur).end()  # type: ignore[union-attr]
        out.append(Binding(key, value, start, cur))
        pos = line_floor = cur
    return out


def read_env(path: Path, *, home: Path | None = None) -> EnvDoc:
    """Read ``path`` (missing → empty). Not UTF-8: decoded as latin-1 (the agent's fallback) and
    ``encoding_error`` set, so a save refuses to rewrite it. ``home`` (default: the folder of
    ``path``): a link leading out of it is not read, and ``encoding_error`` says so."""
    from memory_core.safe_paths import LINK_PROBLEM, LinkOutsideHome
    from provider_schemas.homes import read_confined

    try:
        raw = read_confined(Path(path), home=Path(path).parent if home is None else home)
    except LinkOutsideHome:
        return EnvDoc(path=Path(path), exists=True, encoding_error=LINK_PROBLEM)
    except FileNotFoundError:
        return EnvDoc(path=Path(path), exists=False)
    except NotADirectoryError:
        return EnvDoc(path=Path(path), exists=False)
    except IsADirectoryError:
        return EnvDoc(path=Path(path), exists=True, encoding_error="it is a directory")
    except OSError as exc:  # e.g. permission denied: report it; a save refuses to rewrite the file
        return EnvDoc(path=Path(path), exists=True, encoding_error=f"it cannot be read: {exc.strerror or exc}")
    encoding_error = None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = raw.decode("latin-1")
        encoding_error = f"byte {exc.start} is not UTF-8"
    bom = text.startswith(BOM)
    if bom:
        text = text[1:]
    bindings = parse(text)
    values: dict[str, str | None] = {}
    for b in bindings:
        if b.key is not None:
            values[b.key] = b.value
    return EnvDoc(Path(path), True, text, bindings, values, bom, encoding_error, raw)


def quote_value(value: str) -> str:
    """0.19.0's rule: double quotes (escaping ``\\`` and ``"``) when the value holds ``#``, a quote
    or whitespace; otherwise bare."""
    if _NEEDS_QUOTES_RE.search(value):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return value


def check_writable_value(value: str) -> None:
    if "\n" in value or "\r" in value or "\x00" in value:
        raise ValueError("a .env value must not contain line breaks or NUL characters")


def apply_changes(doc: EnvDoc, changes: Mapping[str, str | None]) -> str:
    """The new text after setting (str) or removing (None) each name. Other bytes are untouched."""
    text = doc.text
    pending = dict(changes)
    for value in pending.values():
        if value is not None:
            check_writable_value(value)
    pieces: list[str] = []
    cursor = 0
    done: set[str] = set()
    for b in doc.bindings:
        if b.key is None or b.key not in pending:
            continue
        pieces.append(text[cursor : b.start])
        new = pending[b.key]
        if new is not None and b.key not in done and new != "":
            # Keep the binding's own line ending.
            tail = text[b.start : b.end]
            ending = (
                "\r\n"
                if tail.endswith("\r\n")
                else ("\n" if tail.endswith("\n") else ("\r" if tail.endswith("\r") else "\n"))
            )
            pieces.append(f"{b.key}={quote_value(new)}{ending}")
            done.add(b.key)
        cursor = b.end
    pieces.append(text[cursor:])
    result = "".join(pieces)
    for name, new in pending.items():
        if new is None or new == "" or name in done:
            continue
        if result and not result.endswith(("\n", "\r")):
            result += "\n"
        result += f"{name}={quote_value(new)}\n"
    return result


def render(doc: EnvDoc, changes: Mapping[str, str | None]) -> bytes:
    """New file content (UTF-8, never a BOM)."""
    return apply_changes(doc, changes).encode("utf-8")


def env_from_text(text: str) -> dict[str, str]:
    """Names with a value, as the agent would load them (uninterpolated)."""
    values: dict[str, str] = {}
    for b in parse(text):
        if b.key is not None:
            if b.value is None:
                values.pop(b.key, None)
            else:
                values[b.key] = b.value
    return values


def display_name(path: Path, home: Path) -> str:
    return ".env" if os.path.realpath(path) == os.path.realpath(Path(home) / ".env") else str(path)

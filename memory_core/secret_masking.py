"""Masking stored secret values in text the panel shows (docs/api.md §Deviations from 0.19.0, docs/agent_formats.md
§Reading history safely "Secrets").

Pure and reusable: give it ``{ENV_NAME: value}`` (the values the panel holds in ``.env`` or the
keyring) and it replaces every occurrence of a value of at least ``MIN_SECRET_LENGTH`` characters
by ``[secret: ENV_NAME]``, also in the forms JSON gives it inside tool-call arguments (escaped once
and, for arguments that are JSON text inside JSON, twice; with and without ``\\uXXXX`` escapes).
It also says which names occur, so a page can warn without showing a value.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

MIN_SECRET_LENGTH = 6
# A cut snippet may start inside a value or end inside one: a leftover piece this long is masked too.
MIN_EDGE_FRAGMENT = 4


def placeholder(name: str) -> str:
    return f"[secret: {name}]"


def encoded_forms(value: str) -> list[str]:
    """``value`` as stored in plain text, in JSON strings, and in JSON text nested in JSON."""
    forms = [value]
    for ascii_only in (True, False):
        once = json.dumps(value, ensure_ascii=ascii_only)[1:-1]
        twice = json.dumps(once, ensure_ascii=ascii_only)[1:-1]
        forms.extend([once, twice])
    return list(dict.fromkeys(forms))


class SecretMasker:
    """Masks a fixed set of secret values; cheap to reuse for many texts."""

    def __init__(self, secrets: Mapping[str, str]) -> None:
        self._name_of: dict[str, str] = {}
        for name, value in secrets.items():
            if not isinstance(value, str) or len(value) < MIN_SECRET_LENGTH:
                continue
            for form in encoded_forms(value):
                self._name_of.setdefault(form, name)
        forms = sorted(self._name_of, key=len, reverse=True)  # longest first: a value inside another
        self._pattern = re.compile("|".join(re.escape(f) for f in forms)) if forms else None
        self.names = tuple(dict.fromkeys(self._name_of.values()))

    def __bool__(self) -> bool:
        return self._pattern is not None

    @property
    def forms(self) -> dict[str, str]:
        """Every searchable form → the name it belongs to."""
        return dict(self._name_of)

    def spans(self, text: str) -> list[tuple[int, int, str]]:
        if self._pattern is None or not text or not self._may_hold(text):
            return []
        return [(m.start(), m.end(), self._name_of[m.group(0)]) for m in self._pattern.finditer(text)]

    def _may_hold(self, text: str) -> bool:
        # Plain substring tests are much cheaper than the regex for the usual text holding none.
        return any(form in text for form in self._name_of)

    def mask(self, text: str) -> str:
        if self._pattern is None or not text or not self._may_hold(text):
            return text
        return self._pattern.sub(lambda m: placeholder(self._name_of[m.group(0)]), text)

    def names_in(self, text: str) -> list[str]:
        return list(dict.fromkeys(name for _, _, name in self.spans(text)))

    def mask_data(self, data: Any) -> Any:
        """Every string inside a JSON-shaped value masked (keys too)."""
        if isinstance(data, str):
            return self.mask(data)
        if isinstance(data, list):
            return [self.mask_data(item) for item in data]
        if isinstance(data, dict):
            return {self.mask(k) if isinstance(k, str) else k: self.mask_data(v) for k, v in data.items()}
        return data

    def mask_excerpt(self, text: str, *, markers: tuple[str, ...] = ()) -> str:
        """Mask a cut excerpt (a search snippet): values are found with the highlight ``markers``
        taken out (a hit may sit inside a value), and a piece of a value at either cut edge is
        masked as well. Markers inside a masked value are dropped."""
        if self._pattern is None or not text:
            return text
        plain, marks = _strip_markers(text, markers)
        spans = self.spans(plain)
        spans += self._edge_spans(plain, spans)
        spans.sort()
        out: list[str] = []
        cursor = 0
        mark_at = 0
        for start, end, name in spans:
            if start < cursor:
                continue
            out.append(_with_marks(plain, cursor, start, marks, mark_at))
            mark_at = _skip_marks(marks, end)
            out.append(placeholder(name))
            cursor = end
        out.append(_with_marks(plain, cursor, len(plain), marks, mark_at))
        return "".join(out)

    def _edge_spans(self, plain: str, found: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
        extra: list[tuple[int, int, str]] = []
        head = len(plain) - len(plain.lstrip(". "))
        tail_end = len(plain.rstrip(". "))
        for form, name in self._name_of.items():
            for size in range(len(form) - 1, MIN_EDGE_FRAGMENT - 1, -1):
                if plain.startswith(form[-size:], head) and not _covered(found, head):
                    extra.append((head, head + size, name))
                    break
            for size in range(len(form) - 1, MIN_EDGE_FRAGMENT - 1, -1):
                start = tail_end - size
                if start >= 0 and plain.endswith(form[:size], 0, tail_end) and not _covered(found, start):
                    extra.append((start, tail_end, name))
                    break
        return extra


def _covered(spans: list[tuple[int, int, str]], at: int) -> bool:
    return any(s <= at < e for s, e, _ in spans)


def _strip_markers(text: str, markers: tuple[str, ...]) -> tuple[str, list[tuple[int, str]]]:
    if not markers:
        return text, []
    pattern = re.compile("|".join(re.escape(m) for m in markers))
    plain: list[str] = []
    marks: list[tuple[int, str]] = []
    cursor = 0
    length = 0
    for m in pattern.finditer(text):
        piece = text[cursor:m.start()]
        plain.append(piece)
        length += len(piece)
        marks.append((length, m.group(0)))
        cursor = m.end()
    plain.append(text[cursor:])
    return "".join(plain), marks


def _skip_marks(marks: list[tuple[int, str]], end: int) -> int:
    return next((i for i, (pos, _) in enumerate(marks) if pos >= end), len(marks))


def _with_marks(plain: str, start: int, end: int, marks: list[tuple[int, str]], first: int) -> str:
    """``plain[start:end]`` with the markers at positions ``start..end`` (inclusive) put back."""
    out: list[str] = []
    cursor = start
    for pos, marker in marks[first:]:
        if pos > end:
            break
        if pos < start:
            continue
        out.append(plain[cursor:pos])
        out.append(marker)
        cursor = pos
    out.append(plain[cursor:end])
    return "".join(out)

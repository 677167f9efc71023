"""Hygiene findings: entries that go stale or do not belong in an always-injected store.

Each finding names its category, explains it in a sentence, points at the evidence (character
spans of the entry) and suggests an action (``rewrite`` or ``delete``). Words are recognised in
English and Chinese. The English texts here are the panel's message ids: it translates them.

Categories:

``relative_date``
    "yesterday", "next week", "3 days ago", "昨天", "上周", "三天前"... in an entry that has no
    absolute date (``2026-03-02``, ``2 March 2026``, ``March 2, 2026``, ``2026年3月2日``): a
    month later nobody knows which day it meant. "every Monday" and "每周一" are not relative.
``task_state``
    TODO, WIP, FIXME, "currently working on", "in progress", "next step", Markdown checkboxes,
    "进行中", "待办", "正在处理", "下一步": the state of one task, which belongs to session history.
``raw_dump``
    Code blocks, JSON blobs, stack traces and very long multi-line entries: they belong in files or
    skills, not in every prompt.
``credential``
    A credential-shaped string: the threat scanner's literal credential pattern, well-known key
    and token formats, private-key blocks, or "password: <value>" / "密码：<value>" with a value
    that has digits or symbols. Whatever is in the store is injected into every prompt.
``stale``
    Older than a chosen age, by provenance (only when provenance is given).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memory_core.threats import MAX_SCAN_CHARS, PATTERNS_BY_ID, scan_detailed

RELATIVE_DATE = "relative_date"
TASK_STATE = "task_state"
RAW_DUMP = "raw_dump"
CREDENTIAL = "credential"
STALE = "stale"
CATEGORIES = (CREDENTIAL, RELATIVE_DATE, TASK_STATE, RAW_DUMP, STALE)

ACTION_REWRITE = "rewrite"
ACTION_DELETE = "delete"

CATEGORY_LABELS: dict[str, str] = {
    RELATIVE_DATE: "Relative date",
    TASK_STATE: "Task progress",
    RAW_DUMP: "Raw dump",
    CREDENTIAL: "Credential",
    STALE: "Old entry",
}
EXPLANATIONS: dict[str, str] = {
    RELATIVE_DATE: "This entry says when something happened relative to the day it was written, without a date. "
    "A week later the agent cannot tell which day it meant.",
    TASK_STATE: "This entry records the state of a task in progress. It belongs to the session history; in memory "
    "it goes stale and takes budget from lasting facts.",
    RAW_DUMP: "This entry is raw material (code, data, a stack trace or a long text). It is injected into every "
    "prompt; it belongs in a file or a skill.",
    CREDENTIAL: "This entry holds what looks like a password, key or token. Memory is injected into every prompt "
    "and sent to the model provider.",
    STALE: "This entry was written longer ago than the age you chose.",
}
SUGGESTIONS: dict[str, str] = {
    RELATIVE_DATE: "Rewrite it with the absolute date, or delete it if it no longer matters.",
    TASK_STATE: "Delete it once the task is done, or rewrite it as the lasting fact it taught.",
    RAW_DUMP: "Move the material to a file or skill and keep a one-line pointer, or delete it.",
    CREDENTIAL: "Rewrite it without the secret (and rotate the secret), or delete it.",
    STALE: "Check that it is still true; rewrite or delete it.",
}
SUGGESTED_ACTIONS: dict[str, str] = {
    RELATIVE_DATE: ACTION_REWRITE,
    TASK_STATE: ACTION_DELETE,
    RAW_DUMP: ACTION_REWRITE,
    CREDENTIAL: ACTION_REWRITE,
    STALE: ACTION_REWRITE,
}

_MONTHS = (
    "jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?"
    "|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
)
_ABSOLUTE_DATE = re.compile(
    r"\b\d{4}-\d{1,2}-\d{1,2}\b"  # 2026-03-02
    r"|\b\d{4}/\d{1,2}/\d{1,2}\b"  # 2026/03/02
    r"|\b\d{1,2}/\d{1,2}/\d{4}\b"  # 02/03/2026
    rf"|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:{_MONTHS})\.?,?\s+\d{{4}}\b"  # 2 March 2026
    rf"|\b(?:{_MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}\b"  # March 2, 2026
    r"|\d{4}\s*年\s*\d{1,2}\s*月(?:\s*\d{1,2}\s*[日号])?",  # 2026年3月2日
    re.IGNORECASE,
)
_DAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend"
_NUMBER = r"\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|several|couple of"
_RELATIVE_EN = re.compile(
    r"\b(?:yesterday|today|tonight|tomorrow|the day before yesterday|the other day|recently|just now"
    r"|earlier this (?:week|month|year)|later this (?:week|month|year)"
    rf"|(?:last|next|this|coming) (?:week|month|year|quarter|{_DAYS})"
    rf"|(?:{_NUMBER}) (?:minutes?|hours?|days?|weeks?|months?|years?) (?:ago|from now)"
    rf"|in (?:{_NUMBER}) (?:days?|weeks?|months?))\b",
    re.IGNORECASE,
)
_CN_NUMBER = "[0-9一二三四五六七八九十两几]+"
_RELATIVE_ZH = re.compile(
    r"大前天|前天|昨天|昨晚|今天|今晚|明天|后天|刚才|刚刚|最近|上周|下周|本周|这周|上个?星期|下个?星期|这个?星期"
    r"|上个月|下个月|本月|这个月|去年|今年|明年|前年"
    rf"|{_CN_NUMBER}\s*(?:分钟|小时|天|周|个星期|个月|年)(?:前|以前|之前|后|以后|之后)"
)
# Upper case only: "a todo list" is a noun, "TODO:" is a task.
_TASK_MARKERS = re.compile(r"(?<![\w-])(?:TODO|WIP|FIXME|TBD)(?![\w-])")
_TASK_EN = re.compile(
    r"\b(?:(?:currently|now) (?:working on|debugging|fixing|investigating|implementing)"
    r"|in progress|work in progress|half[- ]done|not finished yet|still (?:working on|debugging|to do)"
    r"|next steps?:|step \d+ of \d+|blocked on)",
    re.IGNORECASE,
)
_TASK_ZH = re.compile(
    r"进行中|待办|待处理|正在(?:做|处理|修复|调试|开发|进行)|未完成|下一步[:：]|当前任务|尚未完成|做到一半"
)
_CHECKBOX = re.compile(r"^\s*(?:[-*+]|\d+\.)\s+\[[ xX]\]", re.MULTILINE)

_CODE_FENCE = re.compile(r"^\s*(?:```|~~~)", re.MULTILINE)
_STACK_TRACE = re.compile(
    r"Traceback \(most recent call last\):"
    r"|^\s*File \"[^\"]+\", line \d+"
    r"|^\s+at [\w$.<>]+\([^)]*(?:\.\w+:\d+|Native Method)\)"
    r"|^\s*(?:Exception|Error) in thread \"",
    re.MULTILINE,
)
LONG_LINES = 12  # an entry of this many lines or more is a dump, whatever it holds
LONG_MULTILINE_CHARS = 600  # or this many characters over at least LONG_MULTILINE_MIN_LINES lines
LONG_MULTILINE_MIN_LINES = 4

_KEY_FORMATS = re.compile(
    r"\b(?:sk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}"
    r"|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}"
    r"|xox[abprs]-[A-Za-z0-9-]{10,}"
    r"|AKIA[0-9A-Z]{16}"
    r"|AIza[0-9A-Za-z_-]{35}"
    r"|glpat-[A-Za-z0-9_-]{20,})"
    r"|-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----",
)
_SECRET_WORDS_EN = r"passwords?|passwd|pwd|passphrase|secret|token|api[ _-]?key|access[ _-]?key"  # noqa: S105 (words, not a password)
_LABELLED_SECRET_EN = re.compile(
    rf"\b(?:{_SECRET_WORDS_EN})\b\s*(?:is\s+|[:=]\s*)[\"'`]?(?P<value>[^\s\"'`,;]{{6,}})", re.IGNORECASE
)
_LABELLED_SECRET_ZH = re.compile(
    r"(?:密码|口令|密钥|秘钥|令牌|访问密钥)\s*(?:是|为|[:：=])\s*[\"'`“]?(?P<value>[^\s\"'`”，。；,;]{6,})"
)
_LETTER_OR_DIGIT = re.compile(r"[A-Za-z0-9]")
_HARDCODED_SECRET = PATTERNS_BY_ID["hardcoded_secret"]


@dataclass(frozen=True)
class Finding:
    category: str
    index: int  # position of the entry in the store
    text: str  # the entry
    spans: tuple[tuple[int, int], ...]  # evidence: (start, end) offsets into ``text``
    action: str  # "rewrite" or "delete"

    @property
    def label(self) -> str:
        return CATEGORY_LABELS[self.category]

    @property
    def explanation(self) -> str:
        return EXPLANATIONS[self.category]

    @property
    def suggestion(self) -> str:
        return SUGGESTIONS[self.category]

    @property
    def evidence(self) -> list[str]:
        return [self.text[start:end] for start, end in self.spans]


def _spans(*patterns: re.Pattern[str], text: str, group: int | str = 0) -> list[tuple[int, int]]:
    found = []
    for pattern in patterns:
        found.extend(match.span(group) for match in pattern.finditer(text))
    return found


def _relative_dates(text: str) -> list[tuple[int, int]]:
    if _ABSOLUTE_DATE.search(text):
        return []
    return _spans(_RELATIVE_EN, _RELATIVE_ZH, text=text)


def _task_state(text: str) -> list[tuple[int, int]]:
    return _spans(_TASK_MARKERS, _TASK_EN, _TASK_ZH, _CHECKBOX, text=text)


def _looks_like_json(text: str) -> bool:
    stripped = text.strip()
    if len(stripped) < 20 or stripped[0] not in "{[" or stripped[-1] not in "}]":
        return False
    try:
        value = json.loads(stripped)
    except ValueError:
        return False
    return isinstance(value, (dict, list)) and len(value) > 0


def _raw_dump(text: str) -> list[tuple[int, int]]:
    spans = _spans(_CODE_FENCE, _STACK_TRACE, text=text)
    if spans:
        return spans
    if _looks_like_json(text):
        return [(0, len(text))]
    lines = text.count("\n") + 1
    if lines >= LONG_LINES or (len(text) >= LONG_MULTILINE_CHARS and lines >= LONG_MULTILINE_MIN_LINES):
        return [(0, len(text))]
    return []


def _secret_value(value: str) -> bool:
    """A value worth flagging: it has a digit or a symbol, so it is not an ordinary word."""
    return any(char.isdigit() for char in value) or bool(_LETTER_OR_DIGIT.search(value) and re.search(r"[^\w]", value))


def _credentials(text: str) -> list[tuple[int, int]]:
    # The threat scanner's own credential pattern. ASCII text is scanned as it is (the scanner's
    # normalisation leaves it unchanged), so the one pattern is run directly; other text goes
    # through the scanner for its character mapping.
    prefix = text[:MAX_SCAN_CHARS]
    spans: list[tuple[int, int]] = []
    if prefix.isascii():
        if _HARDCODED_SECRET.may_match(prefix.lower()):
            spans.extend(match.span() for match in _HARDCODED_SECRET.regex.finditer(prefix))
    else:
        spans.extend(
            (finding.start, finding.end)
            for finding in scan_detailed(text, "strict")
            if finding.pattern_id == "hardcoded_secret" and finding.start is not None and finding.end is not None
        )
    spans.extend(_spans(_KEY_FORMATS, text=text))
    for pattern in (_LABELLED_SECRET_EN, _LABELLED_SECRET_ZH):
        spans.extend(m.span("value") for m in pattern.finditer(text) if _secret_value(m.group("value")))
    return spans


_DETECTORS: tuple[tuple[str, Callable[[str], list[tuple[int, int]]]], ...] = (
    (CREDENTIAL, _credentials),
    (RELATIVE_DATE, _relative_dates),
    (TASK_STATE, _task_state),
    (RAW_DUMP, _raw_dump),
)


def _occurrences(values: Sequence[str], text: str) -> list[tuple[int, int]]:
    found = []
    for value in values:
        start = text.find(value) if value else -1
        while start >= 0:
            found.append((start, start + len(value)))
            start = text.find(value, start + 1)
    return found


def _merge_spans(spans: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return tuple(merged)


REDACTED = "[credential hidden]"


def redact(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """``text`` with every span replaced by ``REDACTED`` (for output that must not carry a secret)."""
    out, position = [], 0
    for start, end in _merge_spans(list(spans)):
        out += [text[position:start], REDACTED]
        position = end
    out.append(text[position:])
    return "".join(out)


def find_hygiene_issues(
    entries: Sequence[str],
    *,
    provenance: Mapping[str, Any] | None = None,
    max_age_days: float | None = None,
    secrets: Sequence[str] = (),
) -> list[Finding]:
    """Findings per entry, in store order, categories in ``CATEGORIES`` order.

    ``provenance`` maps an entry's text to a record with an ``age_days`` attribute (None when the
    history has no record); with ``max_age_days`` entries older than that are ``stale``.
    ``secrets``: stored secret values; an entry holding one is a ``credential`` finding whatever
    the value looks like."""
    findings = []
    for index, text in enumerate(entries):
        for category, detect in _DETECTORS:
            spans = detect(text)
            if category == CREDENTIAL:
                spans += _occurrences(secrets, text)
            if spans:
                findings.append(Finding(category, index, text, _merge_spans(spans), SUGGESTED_ACTIONS[category]))
        if provenance is not None and max_age_days is not None:
            source = provenance.get(text)
            age = getattr(source, "age_days", None) if source is not None else None
            if age is not None and age > max_age_days:
                findings.append(Finding(STALE, index, text, (), SUGGESTED_ACTIONS[STALE]))
    return findings

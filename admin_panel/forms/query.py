"""Whole numbers from query strings, the one parser every route uses (docs/request_limits.md).

A number from a request ends up in SQL (LIMIT, OFFSET, a message id) or in arithmetic that does;
SQLite takes signed 64-bit integers only and Python refuses to convert strings of more than 4,300
digits, so the text is checked before it is converted: at most ``MAX_DIGITS`` digits, an optional
sign, nothing else. Pages clamp what they are given (a link never breaks); the JSON API answers
422 in the framework's list form, as it does for any query value it cannot parse.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# SQLite's INTEGER range: anything that reaches a query must fit in it.
INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63) + 1  # symmetric, so that negating a value never leaves the range
MAX_DIGITS = 19  # 2**63 - 1 has 19 digits; longer text is never a value in range
# Page numbers are multiplied by a page size before they become an OFFSET.
MAX_PAGE = 10**9

_WHOLE = re.compile(r"([+-]?)0*([0-9]+)")


@dataclass(frozen=True)
class QueryNumberError(Exception):
    """A query value that is not a whole number in ``minimum``–``maximum``."""

    name: str
    value: str
    kind: str  # "int_parsing", "greater_than_equal" or "less_than_equal"
    bound: int | None = None

    def item(self) -> dict[str, Any]:
        """The framework's list-form error item (docs/api.md §Common rules, docs/api.md §Session routes)."""
        if self.kind == "int_parsing":
            msg = "Input should be a valid integer, unable to parse string as an integer"
            return {"type": self.kind, "loc": ["query", self.name], "msg": msg, "input": self.value}
        relation = "greater than or equal to" if self.kind == "greater_than_equal" else "less than or equal to"
        key = "ge" if self.kind == "greater_than_equal" else "le"
        return {"type": self.kind, "loc": ["query", self.name], "msg": f"Input should be {relation} {self.bound}",
                "input": self.value, "ctx": {key: self.bound}}


def query_int(query: Mapping[str, str], name: str, *, default: int | None, minimum: int = INT64_MIN,
              maximum: int = INT64_MAX) -> int | None:
    """``query[name]`` as an integer in ``minimum``–``maximum``; ``default`` when absent. Raises
    ``QueryNumberError`` for anything else (for the API's 422)."""
    raw = query.get(name)
    if raw is None:
        return default
    match = _WHOLE.fullmatch(raw.strip())
    if match is None:
        raise QueryNumberError(name=name, value=raw, kind="int_parsing")
    sign, digits = match.groups()
    # Text too long to be in range is never converted (slow, and refused past 4,300 digits).
    too_long = INT64_MIN - 1 if sign == "-" else INT64_MAX + 1
    value = too_long if len(digits) > MAX_DIGITS else int(sign + digits)
    if value < minimum:
        raise QueryNumberError(name=name, value=raw, kind="greater_than_equal", bound=minimum)
    if value > maximum:
        raise QueryNumberError(name=name, value=raw, kind="less_than_equal", bound=maximum)
    return value


def clamped_query_int(query: Mapping[str, str], name: str, *, default: int | None, minimum: int = INT64_MIN,
                      maximum: int = INT64_MAX) -> int | None:
    """For pages: ``query[name]`` brought into ``minimum``–``maximum``; ``default`` when absent or
    not a whole number (a hand-edited link shows the nearest page instead of an error)."""
    try:
        return query_int(query, name, default=default, minimum=minimum, maximum=maximum)
    except QueryNumberError as exc:
        if exc.kind == "greater_than_equal":
            return minimum
        if exc.kind == "less_than_equal":
            return maximum
        return default

"""The one decoder of JSON request bodies (docs/request_limits.md).

Python's ``json`` accepts more than a value the panel can store: a lone surrogate escape
(``"\\ud800"``) decodes to a string no UTF-8 file can hold, integers of thousands of digits become
numbers no field can convert, and ``NaN``/``Infinity`` are no JSON at all. Each is refused here,
before any view sees the body, with the reason in words.
"""

from __future__ import annotations

import json
from typing import Any

# Longer integers are no value any field holds (a float stops near 309 digits); the cap also keeps
# the conversion cheap.
MAX_INTEGER_DIGITS = 100


class BodyNotJson(ValueError):
    """The body cannot be used; ``str()`` is the sentence the client receives."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"The request body is not valid JSON: {reason}.")


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INTEGER_DIGITS:
        raise BodyNotJson(f"a number has more than {MAX_INTEGER_DIGITS} digits")
    return int(text)


def _constant(name: str) -> Any:
    raise BodyNotJson(f"{name} is not a JSON number")


def _holds_surrogate(value: Any) -> bool:
    """Any string (key or value) holding half of a UTF-16 pair; iterative, so depth is no limit."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def decode_json_body(body: bytes) -> Any:
    """The value ``body`` holds (``None`` for an empty body), or raise ``BodyNotJson``."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BodyNotJson(f"it is not UTF-8 text (byte {exc.start + 1} cannot be read)") from None
    if not text.strip():
        return None
    try:
        value = json.loads(text, parse_int=_integer, parse_constant=_constant)
    except BodyNotJson:
        raise
    except json.JSONDecodeError as exc:
        reason = exc.msg[:1].lower() + exc.msg[1:]
        raise BodyNotJson(f"{reason} at line {exc.lineno}, column {exc.colno}") from None
    except RecursionError:
        raise BodyNotJson("it is nested too deeply") from None
    except ValueError:  # another conversion limit of the parser
        raise BodyNotJson("a value in it cannot be converted") from None
    # A surrogate only arrives through a \u escape: bodies without one need no walk.
    if "\\u" in text and _holds_surrogate(value):
        raise BodyNotJson("it holds a lone surrogate escape such as \\ud800, half of a character pair, "
                          "which is no character")
    return value

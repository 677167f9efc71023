"""Messages as codes with parameters (docs/admin_panel.md, "Errors as codes").

A ``Message`` is a ``str`` holding the English text that logs, the CLI and the API show (0.19.0's
wording, unchanged) and that also carries its ``code`` and ``params``. A user interface puts it into
another language by looking the code up in its own table and inserting the parameters; it never
reads the English back. Parameters are already formatted text (a key as ``repr`` writes it, a
number with its thousands separators); a parameter that is itself a ``Message`` is translated in
turn. Nothing here imports Django.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class Message(str):
    """English text plus what it was made from. Immutable, like the ``str`` it is."""

    code: str
    params: Mapping[str, Any]

    def __new__(cls, text: str, code: str = "", params: Mapping[str, Any] | None = None) -> Message:
        made = super().__new__(cls, text)
        made.code = code
        made.params = dict(params or {})
        return made

    def __getnewargs__(self) -> tuple[Any, ...]:  # type: ignore[override]  # copy and pickle keep the code
        return (str(self), self.code, self.params)

    def with_value_replaced(self, old: str, new: str) -> Message:
        """The same message with ``old`` replaced by ``new`` in its text and in the parameters that
        hold it (a path shown relative to the home instead of absolute)."""
        params = {k: v.replace(old, new) if isinstance(v, str) and not isinstance(v, Message) else v
                  for k, v in self.params.items()}
        return Message(str.replace(self, old, new), self.code, params)


def render(table: Mapping[str, str], code: str, params: Mapping[str, Any]) -> Message:
    """The message ``code`` of ``table`` with ``params``, in English."""
    template = table[code]
    return Message(template % params if "%(" in template else template, code, params)


class Template(Message):
    """A coded message whose English still has its ``%(name)s`` placeholders: ``template % params``
    is the finished ``Message`` with the same code. One without placeholders is finished as it is."""

    def __mod__(self, params: Any) -> Message:
        return Message(str.__mod__(str(self), params), self.code, params)

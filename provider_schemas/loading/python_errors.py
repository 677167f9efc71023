"""Python's own error messages that a schema load passes on, as coded messages.

A schema file that does not compile or whose calls fail is reported with Python's words
(``'(' was never closed``, ``ProviderField.__init__() got an unexpected keyword argument 'x'``), and
the CLI and the API keep them. To let a user interface word them in another language, the few
messages a schema author meets are recognised here by equality with the text Python would write
for the values at hand (the exception's attributes, the call's arguments, the names in the source),
never by reading the text back: a message Python words differently is passed on as it is.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from typing import Any

from provider_schemas.messages import Message, message

_OPENING = "([{"
_CLOSING = ")]}"


def _first(text: str, candidates: Iterable[Message]) -> Message | None:
    return next((candidate for candidate in candidates if candidate == text), None)


def syntax_message(msg: str, *, lines: Iterable[int] = ()) -> str:
    """``SyntaxError.msg`` coded when it is one of the common ones; ``lines`` are the line numbers
    an "unterminated string" message may name (the error's own, the last of the source)."""
    fixed = {
        "invalid syntax": "python_invalid_syntax",
        "invalid syntax. Perhaps you forgot a comma?": "python_forgot_comma",
        "unexpected indent": "python_unexpected_indent",
        "unindent does not match any outer indentation level": "python_unindent",
        "expected ':'": "python_expected_colon",
        "source code string cannot contain null bytes": "python_null_bytes",
    }
    if msg in fixed:
        return message(fixed[msg])
    candidates = [message("python_never_closed", bracket=repr(b)) for b in _OPENING]
    candidates += [message("python_unmatched", bracket=repr(b)) for b in _CLOSING]
    candidates += [message("python_mismatched", closing=repr(c), opening=repr(o)) for c in _CLOSING for o in _OPENING]
    for line in dict.fromkeys(lines):
        candidates += [message("python_unterminated_string", line=str(line)),
                       message("python_unterminated_triple", line=str(line))]
    return _first(msg, candidates) or msg


def error_lines(exc: SyntaxError, source: str | bytes | None) -> list[int]:
    """The lines a syntax error's message may name: its own, and the last of the source (where an
    unterminated string is detected)."""
    lines = [n for n in (exc.lineno, getattr(exc, "end_lineno", None)) if isinstance(n, int)]
    if source is not None:
        lines += [len(source.splitlines()), source.count("\n" if isinstance(source, str) else b"\n") + 1]
    return lines


def syntax_error_text(exc: SyntaxError, *, source: str | bytes | None = None) -> str:
    """``str(exc)`` ("<msg> (<file>, line <n>)"), coded when its parts are."""
    text = str(exc)
    lines = error_lines(exc, source)
    inner = syntax_message(exc.msg or "", lines=lines)
    if exc.filename and exc.lineno is not None:
        name = str(exc.filename).replace("\\", "/").rsplit("/", 1)[-1]
        whole = message("python_syntax_error", message=inner, file=name, line=str(exc.lineno))
        if whole == text:
            return whole
    return inner if inner == text else text


def os_error_text(exc: OSError) -> str:
    """An OSError's reason as the loader reports it (its ``strerror``), coded for the usual two."""
    text = exc.strerror or str(exc)
    return _first(text, [message("python_no_such_file"), message("python_permission_denied")]) or text


def import_error_text(exc: BaseException, *, names: Iterable[str] = ()) -> str:
    """``str(exc)`` of a NameError/ImportError, coded when it is one of the common ones; ``names``
    are the identifiers of the source (an ImportError does not keep the name it could not import)."""
    text = str(exc)
    candidates: list[Message] = []
    name = getattr(exc, "name", None)
    if isinstance(exc, NameError) and name:
        candidates.append(message("python_name_not_defined", name=repr(name)))
    if isinstance(exc, ModuleNotFoundError) and name:
        candidates.append(message("python_no_module", module=repr(name)))
    elif isinstance(exc, ImportError) and name and getattr(exc, "path", None):
        candidates += [message("python_cannot_import", name=repr(n), module=repr(name), path=str(exc.path))
                       for n in dict.fromkeys(names)]
    return _first(text, candidates) or text


def call_error_text(exc: BaseException, func: Any, args: tuple[Any, ...], kwargs: dict[str, Any],
                    *, names: Iterable[str] = ()) -> str:
    """``str(exc)`` of a TypeError from calling ``func`` (a class: its ``__init__``) with ``args``
    and ``kwargs``, coded when it says which argument is wrong. ``names`` are other keyword names
    the call may have used (the source's, when the arguments themselves are not known)."""
    text = str(exc)
    target = func.__init__ if inspect.isclass(func) else func
    callable_text = f"{getattr(target, '__qualname__', getattr(func, '__name__', '?'))}()"
    keywords = list(dict.fromkeys([*kwargs, *names]))
    candidates = [message("python_unexpected_keyword", callable=callable_text, name=repr(k)) for k in keywords]
    candidates += [message("python_multiple_values", callable=callable_text, name=repr(k)) for k in keywords]
    try:
        parameters = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):
        parameters = []
    required = [p.name for p in parameters
                if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    missing = [name for name in required[len(args):] if name not in kwargs]
    if missing:
        quoted = [repr(name) for name in missing]
        listed = quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]
        code = "python_missing_argument" if len(missing) == 1 else "python_missing_arguments"
        candidates.append(message(code, callable=callable_text, count=str(len(missing)), names=listed))
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if positional and args:
        candidates.append(message("python_too_many_positional", callable=callable_text, min=str(len(required) + 1),
                                  max=str(len(positional) + 1), count=str(len(args) + 1)))
    return _first(text, candidates) or text

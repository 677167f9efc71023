"""Load a provider's ``config_schema.py`` by file path (docs/agent_formats.md §Loading declarations).

The file is compiled and executed as a fresh module that is never added to ``sys.modules``; the
provider's package (``__init__.py``) is never imported. While it runs, the import name
``plugins.memory.config_schema`` resolves to our declaration module so files written for
hermes-agent load unchanged. Successful loads are cached on (resolved path, mtime_ns, size), so an
edited file is picked up on the next call. Of the failures only a load that ran out of its time
is remembered, on the same key: running it again would cost every page the whole time limit, with
the lock held, and a schema is data, so the same bytes loop again. (A load that was only slow, on a
very busy machine, stays reported until the file changes or the panel restarts.) Any other failure
is cheap and tried again.
"""

from __future__ import annotations

import ast
import os
import sys
import threading
import time
import types
from dataclasses import dataclass
from pathlib import Path

from memory_core.caching import MISSING, KeyedCache
from provider_schemas import config_schema as declaration_module
from provider_schemas.config_schema import ProviderConfigSchema, ProviderField, ProviderFieldOption
from provider_schemas.errors import SchemaErrorInfo, SchemaLoadError
from provider_schemas.loading.checks import check_schema
from provider_schemas.loading.python_errors import (
    call_error_text,
    import_error_text,
    os_error_text,
    syntax_error_text,
    syntax_message,
)
from provider_schemas.loading.source_lines import field_lines
from provider_schemas.messages import Message
from provider_schemas.messages import message as coded

MODULE_PREFIX = "_hermes_memory_config_schema"
_ALIAS_NAMES = ("plugins", "plugins.memory", "plugins.memory.config_schema")
_MISSING = object()
# A schema is a few kilobytes of data that runs in milliseconds. Anything far beyond that is a
# mistake or hostile, and must not hang the panel: bigger files are refused unread, and Python code
# still running after the time limit is stopped (an endless loop; C calls such as sleep() are not
# interruptible this way).
MAX_SCHEMA_FILE_BYTES = 1024 * 1024
LOAD_TIME_LIMIT_SECONDS = 5.0


class _SchemaLoadTimeout(SchemaLoadError):
    """The one failure that is remembered: the code ran out of its time (a schema raising its own
    ``TimeoutError`` is reported with the same type, and tried again like any other failure)."""


class _LoadTimeout(BaseException):
    """Raised inside a schema's code once its time is up (a BaseException: ``except Exception`` in
    the schema cannot swallow it)."""


class _Deadline:
    """A trace function stopping the traced code after ``seconds``."""

    def __init__(self, seconds: float) -> None:
        self.until = time.monotonic() + seconds

    def __call__(self, frame: types.FrameType, event: str, arg: object) -> _Deadline:
        if time.monotonic() > self.until:
            raise _LoadTimeout
        return self

# One lock for the sys.modules swap (process-wide state) and the cache's lookups.
_import_lock = threading.RLock()
# Resolved path → the loaded schema, or the load that ran out of time, under (mtime_ns, size).
_schemas = KeyedCache("provider schemas", size=1024)


@dataclass(frozen=True)
class _Stuck:
    info: SchemaErrorInfo


@dataclass(frozen=True)
class CacheStats:
    entries: int
    hits: int
    loads: int


_stats = {"hits": 0, "loads": 0}


def cache_stats() -> CacheStats:
    with _import_lock:
        return CacheStats(entries=len(_schemas), hits=_stats["hits"], loads=_stats["loads"])


def clear_schema_cache() -> None:
    """Forget every loaded schema (``caching.clear_all`` does it too): the next lookup runs the file."""
    _schemas.clear()


def _alias_modules() -> dict[str, types.ModuleType]:
    plugins = types.ModuleType("plugins")
    plugins.__path__ = []  # empty search path: nothing else under plugins.* can be imported
    memory = types.ModuleType("plugins.memory")
    memory.__path__ = []
    memory.config_schema = declaration_module  # type: ignore[attr-defined]
    plugins.memory = memory  # type: ignore[attr-defined]
    return {"plugins": plugins, "plugins.memory": memory, "plugins.memory.config_schema": declaration_module}


def _error_line(exc: BaseException, filename: str) -> int | None:
    if isinstance(exc, SyntaxError) and exc.filename in (filename, None):
        return exc.lineno
    line = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _check_line(path: Path, message: str) -> int | None:
    """The line of the field a declaration-check message names ("field 'x': ..."), if found."""
    if not message.startswith("field '"):
        return None
    key = message[len("field '") :].split("'", 1)[0]
    try:
        lines = field_lines(path.read_text(encoding="utf-8-sig"))
    except (OSError, SyntaxError, ValueError):
        return None
    found = lines.get(key)
    return found[-1] if found else None


def _source_names(source: bytes | ast.Module) -> list[str]:
    """Every identifier of the source (names, keywords, imported names): the values an error
    message about the source may quote."""
    try:
        tree = source if isinstance(source, ast.Module) else ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.append(node.id)
        elif isinstance(node, ast.keyword) and node.arg:
            names.append(node.arg)
        elif isinstance(node, ast.alias):
            names.append(node.name)
    return list(dict.fromkeys(names))


def _run_error_text(exc: BaseException, source: bytes | ast.Module) -> str:
    """``str(exc)`` of an error running the schema, coded when it is one Python words the usual way."""
    text = str(exc)
    if not isinstance(exc, (NameError, ImportError, TypeError)):
        return text
    names = _source_names(source)
    if isinstance(exc, (NameError, ImportError)):
        return import_error_text(exc, names=names)
    for func in (ProviderField, ProviderFieldOption, ProviderConfigSchema):
        coded_text = call_error_text(exc, func, (), {}, names=names)
        if isinstance(coded_text, Message):
            return coded_text
    return text


def read_source(path: Path, *, display: str) -> tuple[bytes, os.stat_result]:
    """The file's bytes and the stat of the same open file (so a cache key describes exactly the
    bytes executed). Raises ``SchemaLoadError``."""
    try:
        with open(path, "rb") as handle:
            st = os.fstat(handle.fileno())
            source = handle.read(MAX_SCHEMA_FILE_BYTES + 1)
    except OSError as exc:
        raise SchemaLoadError(
            type=type(exc).__name__, message=os_error_text(exc), line=None, path=display
        ) from None
    if len(source) > MAX_SCHEMA_FILE_BYTES:
        raise SchemaLoadError(
            type="ValueError",
            message=coded("load_too_large", kb=str(MAX_SCHEMA_FILE_BYTES // 1024)),
            line=None,
            path=display,
        )
    return source, st


def _compile(source: bytes | ast.Module, filename: str, display: str) -> types.CodeType:
    try:
        return compile(source, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        if isinstance(exc, SyntaxError):
            text = syntax_error_text(exc, source=source if isinstance(source, bytes) else None)
        else:
            text = syntax_message(str(exc))
        raise SchemaLoadError(
            type=type(exc).__name__, message=text, line=_error_line(exc, filename), path=display
        ) from None


def run_schema_code(source: bytes | ast.Module, *, filename: str, name: str, display: str) -> object:
    """Execute schema source (bytes or an already parsed tree) as a fresh module and return its
    ``CONFIG_SCHEMA`` unchecked. Raises ``SchemaLoadError``."""
    code = _compile(source, filename, display)
    module = types.ModuleType(f"{MODULE_PREFIX}.{name}")
    module.__file__ = filename
    with _import_lock:
        saved = {key: sys.modules.get(key, _MISSING) for key in _ALIAS_NAMES}
        sys.modules.update(_alias_modules())
        previous_trace = sys.gettrace()
        try:
            sys.settrace(_Deadline(LOAD_TIME_LIMIT_SECONDS))
            try:
                exec(code, module.__dict__)  # noqa: S102 - a schema file is Python by definition
            finally:
                sys.settrace(previous_trace)
        except KeyboardInterrupt:
            raise
        except _LoadTimeout as exc:
            raise _SchemaLoadTimeout(
                type="TimeoutError",
                message=coded("load_timeout", seconds=f"{LOAD_TIME_LIMIT_SECONDS:g}"),
                line=_error_line(exc, filename),
                path=display,
            ) from None
        except BaseException as exc:
            raise SchemaLoadError(
                type=type(exc).__name__, message=_run_error_text(exc, source), line=_error_line(exc, filename),
                path=display,
            ) from None
        finally:
            for key, value in saved.items():
                if value is _MISSING:
                    sys.modules.pop(key, None)
                else:
                    sys.modules[key] = value  # type: ignore[assignment]
    return module.__dict__.get("CONFIG_SCHEMA")


def load_schema(
    path: str | os.PathLike[str], *, name: str | None = None, display_path: str | None = None
) -> ProviderConfigSchema:
    """Load and check one schema file; cached while the file is unchanged.

    ``name`` is the provider name the schema must declare (default: the name of the directory
    holding the file). ``display_path`` is how the file is named in errors (default: as given).
    Raises ``SchemaLoadError``. A load that ran out of time is answered with the same error until
    the file changes; any other failure is tried again on the next call.
    """
    raw = Path(path)
    resolved = Path(os.path.realpath(raw))
    expected = name if name is not None else resolved.parent.name
    display = display_path if display_path is not None else str(raw)
    try:
        st = os.stat(resolved)
    except OSError as exc:
        raise SchemaLoadError(
            type=type(exc).__name__, message=os_error_text(exc), line=None, path=display
        ) from None
    key = str(resolved)
    # Looked up under the lock that runs schema code, so a caller that waited for another's load
    # of the same file gets that answer instead of running the file again.
    with _import_lock:
        hit = _schemas.get(key, (st.st_mtime_ns, st.st_size))
        if isinstance(hit, _Stuck):
            info = hit.info
            raise _SchemaLoadTimeout(type=info.type, message=info.message, line=info.line, path=display)
        if hit is not MISSING:
            _stats["hits"] += 1
            return hit
        source, exec_stat = read_source(resolved, display=display)
        try:
            obj = run_schema_code(source, filename=str(resolved), name=expected, display=display)
        except _SchemaLoadTimeout as exc:
            _schemas.put(key, (exec_stat.st_mtime_ns, exec_stat.st_size), _Stuck(exc.info))
            raise
    try:
        schema = check_schema(obj, expected_name=expected)
    except Exception as exc:
        # The declaration checks raise with a coded message (provider_schemas.loading.checks).
        text = exc.args[0] if len(exc.args) == 1 and isinstance(exc.args[0], Message) else str(exc)
        raise SchemaLoadError(
            type=type(exc).__name__, message=text, line=_check_line(resolved, str(exc)), path=display
        ) from None
    with _import_lock:
        _stats["loads"] += 1
        # One entry per path: an older version of the file, or its stuck load, is replaced.
        _schemas.put(key, (exec_stat.st_mtime_ns, exec_stat.st_size), schema)
    return schema

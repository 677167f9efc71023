"""``config.yaml``: read with the agent's YAML semantics, edited with a round-trip parser.

Values are read with PyYAML (what the agent uses), so ``yes`` is a boolean exactly as the agent
sees it. Writes re-parse the same bytes with ruamel.yaml and change only the keys that differ, so
other keys, their order and comments survive. A new file starts with ``_config_version: 33``.
"""

from __future__ import annotations

import copy
import io
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

if TYPE_CHECKING:
    from ruamel.yaml import YAML

# ruamel.yaml is imported only where a file is written (apply_edits and its helpers): reading,
# which every page does, needs PyYAML alone, and a fresh process's first page should not pay for
# the round-trip parser (docs/performance.md).
from provider_schemas.values import to_plain

BOM = b"\xef\xbb\xbf"
CONFIG_VERSION = 33
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_resolver = yaml.resolver.Resolver()
# Settings files are kilobytes. A far bigger file, or YAML aliases that expand a small file into
# millions of values ("billion laughs"), would stall every page that reads it: refused as unreadable.
MAX_FILE_BYTES = 1024 * 1024
MAX_EXPANDED_VALUES = 200_000


def expansion_problem(data: Any) -> str | None:
    """Why ``data`` (as loaded, aliases shared) is unusable once aliases are expanded, or None."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()

    def size(node: Any) -> int:
        if not isinstance(node, (dict, list)):
            return 1
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in open_nodes:
            raise ValueError("an alias refers to the node that contains it")
        open_nodes.add(key)
        children = [*node.keys(), *node.values()] if isinstance(node, dict) else node
        total = 1
        for child in children:
            total += size(child)
            if total > MAX_EXPANDED_VALUES:
                break
        open_nodes.discard(key)
        sizes[key] = total
        return total

    try:
        if size(data) > MAX_EXPANDED_VALUES:
            return f"YAML aliases expand it to more than {MAX_EXPANDED_VALUES:,} values"
    except ValueError as exc:
        return str(exc)
    except RecursionError:
        return "nested too deeply"
    return None


@dataclass
class YamlDoc:
    path: Path
    exists: bool
    data: dict[str, Any] = field(default_factory=dict)  # plain data, PyYAML semantics
    error: str | None = None
    bom: bool = False
    raw: bytes | None = None


def _mark_text(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    if mark is not None:
        return f"line {mark.line + 1}, column {mark.column + 1}: {problem}"
    return str(problem)


def read_yaml_doc(path: Path, *, home: Path | None = None) -> YamlDoc:
    """``home``: links in ``path`` must not lead out of it (then nothing is read)."""
    from memory_core.safe_paths import LINK_PROBLEM, LinkOutsideHome
    from provider_schemas.homes import read_confined

    path = Path(path)
    try:
        raw = read_confined(path, home=home)
    except LinkOutsideHome:
        return YamlDoc(path, True, error=LINK_PROBLEM)
    except (FileNotFoundError, NotADirectoryError):
        return YamlDoc(path, exists=False)
    except IsADirectoryError:
        return YamlDoc(path, True, error="it is a directory")
    except OSError as exc:
        return YamlDoc(path, True, error=exc.strerror or type(exc).__name__)
    bom = raw.startswith(BOM)
    if len(raw) > MAX_FILE_BYTES:
        problem = f"the file is larger than {MAX_FILE_BYTES // 1024} KB, more than the panel reads"
        return YamlDoc(path, True, error=problem, bom=bom, raw=raw)
    body = raw[len(BOM) :] if bom else raw
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        return YamlDoc(path, True, error=f"byte {exc.start} is not UTF-8", bom=bom, raw=raw)
    try:
        data = yaml.load(text, Loader=_Loader)  # noqa: S506 - a safe loader
    except yaml.YAMLError as exc:
        return YamlDoc(path, True, error=_mark_text(exc), bom=bom, raw=raw)
    except RecursionError:
        return YamlDoc(path, True, error="nested too deeply", bom=bom, raw=raw)
    except ValueError:  # e.g. an integer of more digits than Python converts
        return YamlDoc(path, True, error="a number in it is too long to read", bom=bom, raw=raw)
    if data is None:
        data = {}
    problem = expansion_problem(data)
    if problem is not None:
        return YamlDoc(path, True, error=problem, bom=bom, raw=raw)
    if not isinstance(data, dict):
        return YamlDoc(path, True, error="the top level must be a mapping", bom=bom, raw=raw)
    return YamlDoc(path, True, data=data, bom=bom, raw=raw)


def split_path(dotted: str) -> list[str]:
    """Keys are literal: ``plugins.hermes-memory-store`` → ``["plugins", "hermes-memory-store"]``."""
    return dotted.split(".")


def lookup(data: Mapping[str, Any], parts: list[str]) -> tuple[bool, Any, str | None]:
    """(found, value, problem). ``problem`` names a segment that exists but is not a mapping."""
    current: Any = data
    for index, part in enumerate(parts):
        if not isinstance(current, Mapping):
            return False, None, f"'{'.'.join(parts[:index])}' is not a mapping"
        if part not in current:
            return False, None, None
        current = current[part]
    return True, current, None


def section_of(data: Mapping[str, Any], dotted: str) -> tuple[dict[str, Any] | None, str | None]:
    """The mapping at ``dotted`` (None when absent or null) and a shape problem, if any."""
    parts = split_path(dotted)
    found, value, problem = lookup(data, parts)
    if problem:
        return None, problem
    if not found or value is None:
        return None, None
    if not isinstance(value, Mapping):
        return None, f"'{dotted}' is not a mapping"
    return copy.deepcopy(dict(value)), None


# --- writing -----------------------------------------------------------------------------------


_KEY_ONLY_RE = re.compile(r"^( *)[^\s#-][^#]*:\s*(#.*)?$")
_DASH_RE = re.compile(r"^( *)- ")


def dash_offset(text: str) -> int:
    """How far this file indents a block sequence's dash under its key (0 for ``key:\n- a``,
    2 for ``key:\n  - a``), so a rewrite keeps the file's own style."""
    lines = text.splitlines()
    for index, line in enumerate(lines[:-1]):
        key = _KEY_ONLY_RE.match(line)
        if key is None:
            continue
        dash = _DASH_RE.match(lines[index + 1])
        if dash is not None:
            return max(0, len(dash.group(1)) - len(key.group(1)))
    return 0


def _round_trip(offset: int = 0) -> YAML:
    from ruamel.yaml import YAML

    rt = YAML(typ="rt")
    rt.preserve_quotes = True
    rt.width = 4096  # never re-wrap long strings
    rt.indent(mapping=2, sequence=offset + 2, offset=offset)
    return rt


def _yaml_safe(value: Any) -> Any:
    """Strings the agent's YAML 1.1 loader would read as something else (``yes``, ``1e3``,
    ``null``…) are written double-quoted; containers recursively."""
    from ruamel.yaml.comments import CommentedMap
    from ruamel.yaml.scalarstring import DoubleQuotedScalarString

    if isinstance(value, str):
        # Line breaks (YAML also breaks on NEL, LS, PS) and unprintable characters are escaped in
        # double quotes: other styles fold them, so the agent would read a different string.
        resolved = _resolver.resolve(yaml.ScalarNode, value, (True, False))
        if not value.isprintable() or resolved != "tag:yaml.org,2002:str":
            return DoubleQuotedScalarString(value)
        return value
    if isinstance(value, dict):
        out = CommentedMap()
        for k, v in value.items():
            out[_yaml_safe(k)] = _yaml_safe(v)
        return out
    if isinstance(value, list):
        return [_yaml_safe(v) for v in value]
    return value


@dataclass(frozen=True)
class SectionEdit:
    """Set or delete keys of the mapping at ``parts``; ``drop_if_empty`` removes a section a clear
    emptied."""

    parts: tuple[str, ...]
    set: dict[str, Any]
    delete: tuple[str, ...] = ()
    drop_if_empty: bool = True


def section_edit(parts: list[str], before: Mapping[str, Any] | None, after: Mapping[str, Any]) -> SectionEdit | None:
    """The edit turning ``before`` into ``after`` (None when they are equal)."""
    before = before or {}
    sets = {k: v for k, v in after.items() if k not in before or before[k] != v or type(before[k]) is not type(v)}
    deletes = tuple(k for k in before if k not in after)
    if not sets and not deletes and (bool(before) or not after):
        return None
    return SectionEdit(tuple(parts), sets, deletes)


def _ensure_mapping(parent: Any, key: str) -> Any:
    from ruamel.yaml.comments import CommentedMap

    child = parent.get(key)
    if not isinstance(child, Mapping):
        child = CommentedMap()
        parent[key] = child
    return child


def apply_edits(raw: bytes | None, edits: list[SectionEdit]) -> bytes:
    """New ``config.yaml`` bytes: ``raw`` (None: a new file) with ``edits`` applied."""
    from ruamel.yaml.comments import CommentedMap
    from ruamel.yaml.error import YAMLError as RuamelError

    if raw is None:
        rt = _round_trip()
        doc: Any = CommentedMap()
        doc["_config_version"] = CONFIG_VERSION
    else:
        body = raw[len(BOM) :] if raw.startswith(BOM) else raw
        text = body.decode("utf-8")
        rt = _round_trip(dash_offset(text))
        try:
            doc = rt.load(text)
        except RuamelError as exc:
            raise ValueError(_mark_text(exc)) from None  # type: ignore[arg-type]
        if doc is None:
            doc = CommentedMap()
        if not isinstance(doc, Mapping):
            raise ValueError("the top level must be a mapping")
    for edit in edits:
        *parents, last = edit.parts
        node = doc
        for part in parents:
            node = _ensure_mapping(node, part)
        exists = isinstance(node.get(last), Mapping)
        if not exists and not edit.set:
            continue
        target = _ensure_mapping(node, last)
        for key in edit.delete:
            target.pop(key, None)
        for key, value in edit.set.items():
            if key in target and to_plain(target[key]) == value and type(to_plain(target[key])) is type(value):
                continue
            target[key] = _yaml_safe(value)
        if edit.drop_if_empty and len(target) == 0:
            del node[last]
    out = io.StringIO()
    rt.dump(doc, out)
    return out.getvalue().encode("utf-8")

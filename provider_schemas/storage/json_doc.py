"""JSON object files (``flat_json``, ``json_file``, the honcho config): read, report, render."""

from __future__ import annotations

import copy
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BOM = b"\xef\xbb\xbf"
# Settings files are kilobytes; a far bigger one is refused as unreadable rather than parsed,
# fingerprinted and rewritten on every request.
MAX_FILE_BYTES = 1024 * 1024


@dataclass
class JsonDoc:
    """``data`` is the parsed top-level object (None when absent or broken); ``error`` the parse
    problem of an existing file (e.g. ``line 3, column 5: Expecting ',' delimiter``)."""

    path: Path
    label: str
    exists: bool
    data: dict[str, Any] | None = None
    error: str | None = None
    bom: bool = False
    raw: bytes | None = None

    def copy_data(self) -> dict[str, Any]:
        return copy.deepcopy(self.data) if self.data is not None else {}


def _type_name(value: object) -> str:
    return {list: "an array", str: "a string", int: "a number", float: "a number", bool: "a boolean"}.get(
        type(value), "null" if value is None else type(value).__name__
    )


def read_json_doc(path: Path, *, label: str, home: Path | None = None) -> JsonDoc:
    """``home``: links in ``path`` must not lead out of it (then nothing is read)."""
    from memory_core.safe_paths import LINK_PROBLEM, LinkOutsideHome
    from provider_schemas.homes import read_confined

    path = Path(path)
    try:
        raw = read_confined(path, home=home)
    except LinkOutsideHome:
        return JsonDoc(path, label, exists=True, error=LINK_PROBLEM)
    except FileNotFoundError:
        return JsonDoc(path, label, exists=False)
    except NotADirectoryError:
        return JsonDoc(path, label, exists=False)
    except IsADirectoryError:
        return JsonDoc(path, label, exists=True, error="it is a directory")
    except OSError as exc:
        return JsonDoc(path, label, exists=True, error=exc.strerror or type(exc).__name__)
    bom = raw.startswith(BOM)
    if len(raw) > MAX_FILE_BYTES:
        problem = f"the file is larger than {MAX_FILE_BYTES // 1024} KB, more than the panel reads"
        return JsonDoc(path, label, True, error=problem, bom=bom, raw=raw)
    body = raw[len(BOM) :] if bom else raw
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        return JsonDoc(path, label, True, error=f"byte {exc.start} is not UTF-8", bom=bom, raw=raw)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return JsonDoc(path, label, True, error=f"line {exc.lineno}, column {exc.colno}: {exc.msg}", bom=bom, raw=raw)
    except RecursionError:
        return JsonDoc(path, label, True, error="nested too deeply", bom=bom, raw=raw)
    except ValueError:  # e.g. an integer of more digits than Python converts
        return JsonDoc(path, label, True, error="a number in it is too long to read", bom=bom, raw=raw)
    if not isinstance(data, dict):
        return JsonDoc(
            path, label, True, error=f"the top level must be an object, found {_type_name(data)}", bom=bom, raw=raw
        )
    return JsonDoc(path, label, True, data=data, bom=bom, raw=raw)


def render_json(data: dict[str, Any]) -> bytes:
    """2-space indent, non-ASCII kept literally, trailing newline, no BOM."""
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def real_target(path: Path, *, home: Path | None = None, label: str | None = None) -> Path:
    """Writes replace the file a symlink points at, not the link; with ``home``, only when it
    stays inside it (else ``StorageParseError`` with the link problem, nothing written)."""
    if home is not None:
        from memory_core.safe_paths import LINK_PROBLEM, leaving_link
        from provider_schemas.errors import StorageParseError
        from provider_schemas.homes import confining_home

        base = confining_home(Path(path), home=home)
        if base is not None and leaving_link(path, base) is not None:
            raise StorageParseError(file=label or Path(path).name, problem=LINK_PROBLEM, fmt="JSON")
    return Path(os.path.realpath(path))

"""The byterover provider's context tree: Markdown files with YAML front matter under
``$HERMES_HOME/byterover/.brv/context-tree/<domain>/<topic>/<title>.md`` (docs/provider_contents.md).

The ``brv`` CLI curates each write through an LLM into a new file, so nothing ties a file to the
built-in entry it came from: a mirror is a file whose text holds the entry's text. A delete removes
the file (brv keeps no index the panel must update); removing an entry's copy cuts only the entry's
text out of its file; the undo writes the same bytes back.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from memory_core.external.base import ContentsError, Item, NotFound, Page, Query, Removed, delete_each

NAME = "byterover"
MAX_FILE_BYTES = 1_000_000
_SPACES = re.compile(r"\s+")


def tree_root(home: Path) -> Path:
    return Path(home) / "byterover" / ".brv" / "context-tree"


def _token(relative: str) -> str:
    return base64.urlsafe_b64encode(relative.encode("utf-8")).decode("ascii").rstrip("=")


def _relative(token: str) -> str:
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode("utf-8")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        raise NotFound("There is no such file in the context tree.") from None
    return raw


def split_front_matter(text: str) -> tuple[dict[str, Any], str]:
    """(front matter, body). A file without a readable front matter is all body."""
    if text.startswith("---"):
        end = text.find("\n---", 3)
        if end != -1:
            try:
                meta = yaml.safe_load(text[3:end])
            except yaml.YAMLError:
                meta = None
            if isinstance(meta, dict):
                body = text[end + 4:]
                return {str(k): v for k, v in meta.items()}, body.lstrip("\n")
    return {}, text


def _write_over(path: Path, data: bytes, *, failure: str) -> None:
    """``data`` as the whole of ``path``, through a temporary file renamed over it: a reader (brv,
    the agent) sees the old file or the new one, never half of one."""
    temp = path.with_name(f".{path.name}.panel-write")
    try:
        temp.write_bytes(data)
        os.replace(temp, path)
    except OSError:
        temp.unlink(missing_ok=True)
        raise ContentsError(failure, code="unwritable") from None


def _squash(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


class ByteroverTree:
    name = NAME
    local_files = True  # its whole store is in fingerprint_paths(): their stat tells a change

    def __init__(self, *, home: Path) -> None:
        self.home = Path(home)
        self.root = tree_root(self.home)

    def exists(self) -> bool:
        return self.root.is_dir()

    def fingerprint_paths(self) -> Sequence[str]:
        # The change feed watches folders one level deep: the tree and every folder in it.
        if not self.root.is_dir():
            return [str(self.root)]
        return [str(self.root), *(str(p) for p in sorted(self.root.rglob("*")) if p.is_dir())]

    def _path(self, relative: str) -> Path:
        parts = Path(relative).parts
        if not relative or Path(relative).is_absolute() or ".." in parts or not relative.endswith(".md"):
            raise NotFound("There is no such file in the context tree.")
        path = self.root / relative
        try:
            inside = path.resolve().is_relative_to(self.root.resolve())
        except OSError:
            inside = False
        if not inside or not path.is_file():
            raise NotFound("There is no such file in the context tree.")
        return path

    def _files(self) -> list[Path]:
        if not self.root.is_dir():
            return []
        return [p for p in self.root.rglob("*.md") if p.is_file() and not p.is_symlink()]

    def _item(self, path: Path) -> Item:
        relative = path.relative_to(self.root).as_posix()
        try:
            data = path.read_bytes()[:MAX_FILE_BYTES]
            stat = path.stat()
        except OSError:
            raise NotFound() from None
        text = data.decode("utf-8", errors="replace")
        meta, body = split_front_matter(text)
        parts = relative.split("/")
        domain = parts[0] if len(parts) > 1 else ""
        topic = parts[1] if len(parts) > 2 else ""
        return Item(id=_token(relative), text=body.strip(), group="/".join(p for p in (domain, topic) if p),
                    details={"path": relative, "domain": domain, "topic": topic, "title": path.stem,
                             "front_matter": {k: str(v) for k, v in meta.items()}, "bytes": stat.st_size,
                             "modified": stat.st_mtime, "version": hashlib.sha256(data).hexdigest()[:16]})

    def filter_choices(self) -> Mapping[str, Sequence[str]]:
        domains: set[str] = set()
        topics: set[str] = set()
        for path in self._files():
            parts = path.relative_to(self.root).parts
            if len(parts) > 1:
                domains.add(parts[0])
            if len(parts) > 2:
                topics.add(parts[1])
        return {"domain": sorted(domains), "topic": sorted(topics)}

    def _all(self) -> list[Item]:
        items = []
        for path in self._files():
            try:
                items.append(self._item(path))
            except NotFound:
                continue  # removed between the walk and the read
        items.sort(key=lambda i: (-float(i.details["modified"]), i.details["path"]))
        return items

    def list(self, query: Query) -> Page:
        if not self.exists():
            raise ContentsError("There is no context tree yet: the agent has not curated anything.", code="missing")
        items = self._all()
        domain = (query.filters.get("domain") or "").strip()
        topic = (query.filters.get("topic") or "").strip()
        if domain:
            items = [i for i in items if i.details["domain"] == domain]
        if topic:
            items = [i for i in items if i.details["topic"] == topic]
        needle = query.search.strip().casefold()
        if needle:
            items = [i for i in items if needle in i.text.casefold() or needle in str(i.details["path"]).casefold()]
        return Page(items=items[query.offset:query.offset + query.per_page], total=len(items), query=query)

    def get(self, item_id: str) -> Item:
        return self._item(self._path(_relative(item_id)))

    def mirrors(self, entries: Mapping[str, Sequence[str]]) -> dict[tuple[str, str], Item]:
        """Each entry → the newest file whose text holds the entry's text (spaces squashed)."""
        if not self.exists():
            return {}
        files = [(item, _squash(item.text).casefold()) for item in self._all()]
        found: dict[tuple[str, str], Item] = {}
        for target, texts in entries.items():
            for text in texts:
                needle = _squash(text).casefold()
                if not needle:
                    continue
                hit = next((item for item, body in files if needle in body), None)
                if hit is not None:
                    found[(target, text)] = hit
        return found

    def copies_without_entry(self, entries: Mapping[str, Sequence[str]], *, limit: int = 500) -> list[Item]:
        """Not knowable: a curated file names no entry (see the module's docstring)."""
        return []

    def delete_many(self, item_ids: Sequence[str]) -> tuple[list[Removed], list[tuple[str, ContentsError]]]:
        return delete_each(self, item_ids)

    def delete(self, item_id: str, *, expected: str | None = None) -> Removed:
        path = self._path(_relative(item_id))
        item = self._item(path)
        if expected is not None and expected != item.details["version"]:
            raise ContentsError("The file changed since you opened it; nothing was deleted.", code="changed")
        try:
            data = path.read_bytes()
            os.unlink(path)
        except FileNotFoundError:
            raise NotFound() from None
        except OSError:
            raise ContentsError("The file could not be removed.", code="unwritable") from None
        undo = {"path": item.details["path"], "data": base64.b64encode(data).decode("ascii")}
        return Removed(item=item, undo=undo)

    def remove_text(self, item_id: str, text: str, *, expected: str | None = None) -> Removed:
        """A built-in entry's copy taken out of a file that may hold more: only ``text`` (with its
        line ending when it fills whole lines) is cut, every other byte kept; the file goes only
        when nothing but its front matter and blank space is left. Refused (nothing written) like
        ``replace_text``. The undo writes the file's old bytes back while it is still as the cut
        left it (docs/provider_contents.md)."""
        path = self._path(_relative(item_id))
        item = self._item(path)
        if expected is not None and expected != item.details["version"]:
            raise ContentsError("The file changed since you opened it; nothing was deleted.", code="changed")
        try:
            raw = path.read_bytes()
            data = raw.decode("utf-8")
        except FileNotFoundError:
            raise NotFound() from None
        except (OSError, UnicodeDecodeError):
            raise ContentsError("The file could not be read.", code="unreadable") from None
        old = text.strip()
        if not old or data.count(old) != 1:
            raise ContentsError("The file does not hold the entry's text word for word; it was left as it is.",
                                code="unmatched")
        start = data.index(old)
        end = start + len(old)
        if (start == 0 or data[start - 1] == "\n") and data[end:end + 1] == "\n":
            end += 1  # the entry was its own line(s): its line ending goes with it
        left = data[:start] + data[end:]
        undo = {"path": item.details["path"], "data": base64.b64encode(raw).decode("ascii")}
        if not split_front_matter(left)[1].strip():
            try:
                os.unlink(path)
            except FileNotFoundError:
                raise NotFound() from None
            except OSError:
                raise ContentsError("The file could not be removed.", code="unwritable") from None
            return Removed(item=item, undo=undo)
        written = left.encode("utf-8")
        _write_over(path, written, failure="The file could not be written.")
        undo["cut"] = hashlib.sha256(written).hexdigest()
        return Removed(item=item, undo=undo, notes=["the rest of the file kept"])

    def replace_text(self, item_id: str, text: str, *, expected: str | None = None, old: str = "") -> Item:
        """``old`` (the entry's text before the change) replaced by ``text`` inside the same file,
        front matter and the rest of the file kept; written by a temporary file and a rename. brv
        itself would curate a new file through its LLM, which the panel cannot run. Refused (nothing
        written) when the file changed since ``expected`` or does not hold ``old`` word for word."""
        path = self._path(_relative(item_id))
        item = self._item(path)
        if expected is not None and expected != item.details["version"]:
            raise ContentsError("The file changed since you opened it; nothing was changed.", code="changed")
        new = text.strip()
        try:
            data = path.read_bytes().decode("utf-8")
        except FileNotFoundError:
            raise NotFound() from None
        except (OSError, UnicodeDecodeError):
            raise ContentsError("The file could not be read.", code="unreadable") from None
        old = old.strip()
        if not new or not old or data.count(old) != 1:
            raise ContentsError("The file does not hold the entry's text word for word; it was left as it is.",
                                code="unmatched")
        _write_over(path, data.replace(old, new).encode("utf-8"), failure="The file could not be written.")
        return self._item(path)

    def restore(self, undo: Mapping[str, Any]) -> Item:
        try:
            relative, data = str(undo["path"]), base64.b64decode(str(undo["data"]), validate=True)
        except (KeyError, TypeError, ValueError):
            raise ContentsError("This undo no longer applies.", code="stale") from None
        parts = Path(relative).parts
        if Path(relative).is_absolute() or ".." in parts or not relative.endswith(".md"):
            raise ContentsError("This undo no longer applies.", code="stale")
        path = self.root / relative
        cut = undo.get("cut")
        if cut is not None:
            # A copy cut out of a file that stays: its old bytes go back only over what the cut left.
            try:
                now = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None
            except OSError:
                now = None
            if now != cut:
                raise ContentsError("The file changed since; nothing was restored.", code="clash")
        elif path.exists():
            raise ContentsError("A file of that name is back already; nothing was restored.", code="clash")
        path.parent.mkdir(parents=True, exist_ok=True)
        _write_over(path, data, failure="The file could not be written back.")
        return self._item(path)

"""The hindsight provider's memories, read and deleted through its server's HTTP API
(docs/provider_contents.md, "hindsight").

Hindsight keeps its memory in a server (a local ``hindsight-api`` with its embedded PostgreSQL, or
the cloud), never in files the panel could open. The panel talks to the server the agent is set up
for: the address, key and bank come from the provider's settings (``hindsight/config.json``, its
legacy fallback, ``.env`` or the keyring), read the way the plugin reads them. Listing, reading and
deleting need neither an LLM nor an embedding call on the server.

A memory cannot be deleted on its own: the server deletes a document with every memory extracted
from it. The panel therefore deletes the document holding the memory, and says so before. There is
no undo (the server cannot put memories back under their ids). The agent forwards no built-in
write to hindsight, so there are no mirrors and nothing is left behind.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

from memory_core.external.base import ContentsError, Item, NotFound, Page, Query, Removed, delete_each

NAME = "hindsight"
DEFAULT_BANK = "hermes"
CLOUD_URL = "https://api.hindsight.vectorize.io"
LOCAL_URL = "http://localhost:8888"
LOCAL_MODES = ("local_external", "local_embedded", "local")
# The plugin waits up to 120 s by default; a page must not. A configured lower value is kept.
MAX_TIMEOUT = 10.0
FACT_TYPES = ("world", "experience", "observation")
MAX_BANKS = 200
MAX_RESPONSE_BYTES = 8_000_000
# Shown on the confirmation page: the other memories that go with the document.
SAMPLE_MEMORIES = 20


class ServerError(ContentsError):
    """The server could not be reached or refused; ``where`` is its address (shown, never the key)."""

    def __init__(self, message: str, *, code: str, where: str, status: int | None = None) -> None:
        super().__init__(message, code=code)
        self.where = where
        self.status = status


@dataclass(frozen=True)
class Connection:
    url: str
    bank: str
    timeout: float
    mode: str
    api_key: str = field(default="", repr=False)  # never logged, never shown


def _token(bank: str, memory_id: str) -> str:
    raw = f"{bank}\n{memory_id}".encode()
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def _parts(token: str) -> tuple[str, str]:
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode("utf-8")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        raise NotFound("There is no such memory on the Hindsight server.") from None
    bank, sep, memory_id = raw.partition("\n")
    if not sep or not bank or not memory_id:
        raise NotFound("There is no such memory on the Hindsight server.")
    return bank, memory_id


def _number(value: Any, default: float) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return default
    return number if number > 0 else default


def connection_for(*, home: Path, secret_store: str = "env_file") -> Connection | None:  # noqa: S107
    """The server the agent's hindsight plugin talks to, or None when hindsight is not set up here.

    Reads the settings the way the plugin does (provider_schemas knows the file, its fallback, the
    env fallbacks and where secrets are): the key is ``apiKey`` / ``api_key`` in the file, then
    ``HINDSIGHT_API_KEY`` (``.env``, or the keyring when the panel keeps secrets there)."""
    from provider_schemas.loading.discovery import get_provider_config_schema
    from provider_schemas.model import Model
    from provider_schemas.reading.state import active_provider

    home = Path(home)
    schema = get_provider_config_schema(NAME, home=home)
    if schema is None or not hasattr(schema, "fields"):
        return None
    model = Model.load(home=home, schema=schema, secret_store=secret_store, keyring_strict=False, reuse_env=True)
    env_names = ("HINDSIGHT_API_KEY", "HINDSIGHT_API_URL", "HINDSIGHT_MODE", "HINDSIGHT_BANK_ID")
    configured = (model.primary_exists or model.fallback_exists or active_provider(home=home) == NAME
                  or any(model.env_non_empty(n) for n in env_names))
    if not configured:
        return None
    fields = {f.key: f for f in schema.fields}

    def value(key: str) -> Any:
        f = fields.get(key)
        return model.resolve(f).value if f is not None else None

    mode = str(value("mode") or "cloud").strip() or "cloud"
    url = str(value("api_url") or "").strip() or (LOCAL_URL if mode in LOCAL_MODES else CLOUD_URL)
    data = model.data if isinstance(model.data, Mapping) else {}
    banks = data.get("banks")
    legacy = banks.get("hermes") if isinstance(banks, Mapping) else None
    bank = (str(data.get("bank_id") or "").strip()
            or (str(legacy.get("bankId") or "").strip() if isinstance(legacy, Mapping) else "")
            or (str(model.env_non_empty("HINDSIGHT_BANK_ID") or "") if model.seeding_applies else "")
            or DEFAULT_BANK)
    key = ""
    for slot in ("apiKey", "api_key"):
        if isinstance(data.get(slot), str) and data[slot].strip():
            key = data[slot].strip()
            break
    if not key:
        key = model.env_non_empty("HINDSIGHT_API_KEY") or model.keyring_get("HINDSIGHT_API_KEY") or ""
    timeout = min(_number(value("timeout"), MAX_TIMEOUT), MAX_TIMEOUT)
    return Connection(url=url.rstrip("/"), bank=bank, timeout=timeout, mode=mode, api_key=key)


class HindsightServer:
    """One Hindsight server, browsed bank by bank. ``connection`` None: hindsight is not set up."""

    name = NAME

    def __init__(self, *, home: Path | None = None, connection: Connection | None = None,
                 secret_store: str = "env_file") -> None:  # noqa: S107 - a store name
        self.home = Path(home) if home is not None else None
        self._connection = connection
        self._secret_store = secret_store
        self._loaded = connection is not None

    @property
    def connection(self) -> Connection | None:
        if not self._loaded:
            self._loaded = True
            if self.home is not None:
                self._connection = connection_for(home=self.home, secret_store=self._secret_store)
        return self._connection

    # --- HTTP ------------------------------------------------------------------------------------

    def _where(self) -> str:
        conn = self.connection
        if conn is None:
            return ""
        # scheme://host:port only: a configured URL may carry a password or a token in its query.
        parts = urlsplit(conn.url)
        try:
            port = parts.port
        except ValueError:
            port = None
        return f"{parts.scheme}://{parts.hostname or ''}{f':{port}' if port else ''}"

    def _call(self, method: str, path: str, params: Mapping[str, Any] | None = None) -> Any:
        conn = self.connection
        if conn is None:
            raise ContentsError("Hindsight is not set up for this agent.", code="missing")
        url = conn.url + path
        if params:
            url += "?" + urlencode({k: v for k, v in params.items() if v not in (None, "")}, doseq=True)
        if not url.startswith(("http://", "https://")):
            raise ServerError("The Hindsight API URL is not an http(s) address.", code="offline", where=self._where())
        request = urllib.request.Request(url, method=method, headers={"Accept": "application/json"})  # noqa: S310
        if conn.api_key:
            request.add_header("Authorization", f"Bearer {conn.api_key}")
        where = self._where()
        try:
            with urllib.request.urlopen(request, timeout=conn.timeout) as response:  # noqa: S310 - http(s) checked
                body = response.read(MAX_RESPONSE_BYTES + 1)
        except urllib.error.HTTPError as exc:
            status = exc.code
            detail = _detail(exc)
            if status in (401, 403):
                code = "auth_missing" if not conn.api_key else "auth"
                raise ServerError("The Hindsight server refused the API key.", code=code, where=where,
                                  status=status) from None
            if status == 404:
                raise NotFound(detail or "Not found on the Hindsight server.") from None
            raise ServerError(f"The Hindsight server answered HTTP {status}.", code="server", where=where,
                              status=status) from None
        except OSError:  # URLError, refused, reset and timeouts are all OSError
            raise ServerError("The Hindsight server did not answer.", code="offline", where=where) from None
        if len(body) > MAX_RESPONSE_BYTES:
            raise ServerError("The Hindsight server's answer is too large.", code="server", where=where)
        try:
            return json.loads(body.decode("utf-8")) if body else {}
        except (UnicodeDecodeError, ValueError):
            raise ServerError("The Hindsight server's answer is not JSON.", code="server", where=where) from None

    def _bank_path(self, bank: str) -> str:
        return f"/v1/default/banks/{quote(bank, safe='')}"

    # --- the interface ---------------------------------------------------------------------------

    def exists(self) -> bool:
        return self.connection is not None

    def fingerprint_paths(self) -> Sequence[str]:
        # Nothing local: the memories live in the server, which sends no change feed.
        return []

    def banks(self) -> list[str]:
        data = self._call("GET", "/v1/default/banks", {"limit": MAX_BANKS})
        found = [str(b.get("bank_id")) for b in _list(data, "banks") if isinstance(b, Mapping) and b.get("bank_id")]
        conn = self.connection
        if conn is not None:  # the agent's own bank first: the page shows it when none is chosen
            found = [conn.bank, *(b for b in found if b != conn.bank)]
        return found

    def filter_choices(self) -> Mapping[str, Sequence[str]]:
        return {"bank": self.banks(), "type": list(FACT_TYPES)}

    def _bank(self, query: Query) -> str:
        conn = self.connection
        chosen = (query.filters.get("bank") or "").strip()
        return chosen or (conn.bank if conn is not None else DEFAULT_BANK)

    def list(self, query: Query) -> Page:
        bank = self._bank(query)
        fact_type = (query.filters.get("type") or "").strip()
        if fact_type and fact_type not in FACT_TYPES:
            return Page(items=[], total=0, query=query)
        params = {"limit": query.per_page, "offset": query.offset, "q": query.search.strip() or None,
                  "type": fact_type or None}
        try:
            data = self._call("GET", self._bank_path(bank) + "/memories/list", params)
        except NotFound:
            raise ContentsError("There is no such bank on the Hindsight server yet.", code="missing") from None
        items = [_item(bank, raw) for raw in _list(data, "items") if isinstance(raw, Mapping) and raw.get("id")]
        total = data.get("total") if isinstance(data, Mapping) else None
        return Page(items=items, total=int(total) if isinstance(total, int) else len(items), query=query)

    def get(self, item_id: str) -> Item:
        bank, memory_id = _parts(item_id)
        try:
            raw = self._call("GET", self._bank_path(bank) + f"/memories/{quote(memory_id, safe='')}")
        except NotFound:
            raise NotFound("That memory is no longer on the Hindsight server.") from None
        if not isinstance(raw, Mapping) or not raw.get("id"):
            raise NotFound("That memory is no longer on the Hindsight server.")
        item = _item(bank, raw)
        document_id = item.details.get("document_id")
        if not document_id:
            return item
        extra: dict[str, Any] = {}
        try:
            doc = self._call("GET", self._bank_path(bank) + f"/documents/{quote(str(document_id), safe='')}")
            if isinstance(doc, Mapping) and isinstance(doc.get("memory_unit_count"), int):
                extra["document_memories"] = doc["memory_unit_count"]
            siblings = self._call("GET", self._bank_path(bank) + "/memories/list",
                                  {"document_id": document_id, "limit": SAMPLE_MEMORIES + 1})
            extra["document_sample"] = [str(m.get("text") or "") for m in _list(siblings, "items")
                                        if isinstance(m, Mapping) and m.get("id") != raw.get("id")][:SAMPLE_MEMORIES]
        except NotFound:
            pass  # the document went meanwhile; the delete will say so
        return replace(item, details={**item.details, **extra})

    def delete(self, item_id: str, *, expected: str | None = None) -> Removed:
        item = self.get(item_id)
        if expected is not None and expected != item.details["version"]:
            raise ContentsError("The memory changed since you opened it; nothing was deleted.", code="changed")
        document_id = str(item.details.get("document_id") or "")
        if not document_id:
            raise ContentsError("This memory belongs to no document, and Hindsight deletes memories only with "
                                "their document; it cannot be deleted here.", code="undeletable")
        bank = str(item.details["bank"])
        try:
            result = self._call("DELETE", self._bank_path(bank) + f"/documents/{quote(document_id, safe='')}")
        except NotFound:
            raise NotFound("That memory's document is no longer on the Hindsight server.") from None
        count = result.get("memory_units_deleted") if isinstance(result, Mapping) else None
        gone = replace(item, details={**item.details, "memories_deleted": count if isinstance(count, int) else None})
        return Removed(item=gone, undo=None, notes=(f"document {document_id}",))

    def delete_many(self, item_ids: Sequence[str]) -> tuple[list[Removed], list[tuple[str, ContentsError]]]:
        return delete_each(self, item_ids)

    def restore(self, undo: Mapping[str, Any]) -> Item:
        raise ContentsError("Hindsight cannot put deleted memories back.", code="stale")

    def mirrors(self, entries: Mapping[str, Sequence[str]]) -> dict[tuple[str, str], Item]:
        """None: the agent forwards no built-in write to hindsight (it has no mirror)."""
        return {}

    def copies_without_entry(self, entries: Mapping[str, Sequence[str]], *, limit: int = 500) -> list[Item]:
        return []


def _detail(exc: urllib.error.HTTPError) -> str:
    try:
        data = json.loads(exc.read(4096).decode("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return ""
    detail = data.get("detail") if isinstance(data, Mapping) else None
    return detail if isinstance(detail, str) else ""


def _list(data: Any, key: str) -> list[Any]:
    value = data.get(key) if isinstance(data, Mapping) else None
    return value if isinstance(value, list) else []


def _item(bank: str, raw: Mapping[str, Any]) -> Item:
    memory_id = str(raw.get("id"))
    text = str(raw.get("text") or "")
    fact_type = str(raw.get("fact_type") or raw.get("type") or "")
    entities = raw.get("entities")
    if isinstance(entities, str):
        names = [e.strip() for e in entities.split(",") if e.strip()]
    elif isinstance(entities, list):
        names = [str(e.get("canonical_name") or e.get("name") or "") if isinstance(e, Mapping) else str(e)
                 for e in entities]
        names = [n for n in names if n]
    else:
        names = []
    tags = [str(t) for t in raw.get("tags") or [] if isinstance(t, (str, int))]
    document_id = str(raw.get("document_id") or "")
    version = hashlib.sha256("\x00".join((text, document_id, str(raw.get("edited_at") or ""),
                                          str(raw.get("state") or ""))).encode()).hexdigest()[:16]
    return Item(id=_token(bank, memory_id), text=text, group=fact_type,
                details={"bank": bank, "memory_id": memory_id, "type": fact_type, "document_id": document_id,
                         "context": str(raw.get("context") or ""), "tags": tags, "entities": names,
                         "mentioned_at": str(raw.get("mentioned_at") or raw.get("date") or ""),
                         "state": str(raw.get("state") or ""), "label": f"memory {memory_id[:8]}",
                         "version": version})

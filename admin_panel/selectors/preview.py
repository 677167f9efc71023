"""Reads for the schema author preview.

Which schema files may be opened (a *choice id* maps to a file under an allowed root, never a
path typed into the browser), loading them (files through ``provider_schemas.load_schema``, which
executes them as the agent does; pasted text only ever through the static evaluator), lint
findings with their source lines, and a *preview session*: the provider page's field states for
that schema, the API payload, the storage map and "Try it" plans. Nothing here writes anything.

A schema that is a provider of the current HERMES_HOME (bundled, or a discovered user plugin)
is shown with the values stored in that home. Any other schema (a file outside the home, a plugin
directory the agent does not discover, pasted text) is shown against an empty throwaway home, so
the form shows the declared defaults and a plan says what a first save would write.
"""

from __future__ import annotations

import ast
import json
import os
import re
import stat
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings
from django.utils.translation import gettext as _

import provider_schemas
from admin_panel.selectors import providers as provider_selectors
from memory_core.fingerprints import fingerprint_of, stat_token
from provider_schemas.config_schema import ProviderConfigSchema
from provider_schemas.loading.discovery import (
    BUNDLED_DIR,
    BUNDLED_PROVIDERS,
    SCHEMA_FILE,
    ProviderEntry,
    passes_marker_test,
)
from provider_schemas.loading.source_lines import field_lines
from provider_schemas.loading.static_eval import StaticEvalError, evaluate_schema_source
from provider_schemas.messages import message as coded
from provider_schemas.payload import provider_config_payload, schema_error_payload
from provider_schemas.reading.state import ProviderState, active_provider, load_model, state_from_model
from provider_schemas.secret_stores import ENV_FILE, KEYRING

BUNDLED = "bundled"
PLUGIN = "plugin"
DIR = "dir"

MODE_FILE = "file"  # executed by the real loader
MODE_STATIC = "static"  # a file's text through the static evaluator
MODE_PASTE = "paste"  # pasted text through the static evaluator

MAX_SCHEMA_BYTES = 256 * 1024  # files and pastes alike
EVAL_TIME_LIMIT = 2.0  # seconds, for the static evaluator
CONTEXT_RADIUS = 3  # source lines shown either side of an error
MAX_FINDING_LINES = 8  # lines of a ProviderField(...) call shown under a finding
MAX_LISTED_PER_DIR = 200
MAX_WALK_DEPTH = 4
MAX_WALKED_DIRS = 5000  # an allowed directory may be large (a home directory); the listing stays quick
SKIPPED_DIRS = frozenset({"__pycache__", "node_modules", "site-packages", "venv", "env"})
_PLUGIN_NAME_RE = re.compile(r"[^._/\\\x00][^/\\\x00]{0,254}")


class ChoiceRefused(Exception):
    """The choice id does not name a file the preview may open (nothing was read)."""

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)


# --- choices ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Choice:
    """One schema file the preview may open, named by an id the browser sends back."""

    id: str
    kind: str  # bundled | plugin | dir
    path: Path  # the file, built under ``root`` (before symlinks are resolved)
    root: Path  # the allowed root the file must resolve inside
    display: str  # how the file is named on the page and in load errors
    expected_name: str  # the provider name the schema must declare (its directory's name)
    label: str = ""

    @property
    def provider_name(self) -> str | None:
        """The name under which the agent would find this file in the current home, if any."""
        return self.expected_name if self.kind in (BUNDLED, PLUGIN) else None


@dataclass(frozen=True)
class ChoiceGroup:
    title: str
    choices: list[Choice]
    note: str = ""


def allowed_dirs() -> list[Path]:
    """``settings.PANEL_SCHEMA_PREVIEW_DIRS`` (``serve --schema-dir`` appends to it)."""
    return [Path(d) for d in getattr(settings, "PANEL_SCHEMA_PREVIEW_DIRS", [])]


def _bundled_choice(name: str) -> Choice:
    return Choice(
        id=f"{BUNDLED}:{name}",
        kind=BUNDLED,
        path=BUNDLED_DIR / name / SCHEMA_FILE,
        root=BUNDLED_DIR,
        display=f"{name}/{SCHEMA_FILE} (bundled)",  # as discovery names it in load errors
        expected_name=name,
        label=name,
    )


def _plugin_choice(*, home: Path, name: str) -> Choice:
    path = Path(home) / "plugins" / name / SCHEMA_FILE
    return Choice(
        id=f"{PLUGIN}:{name}",
        kind=PLUGIN,
        path=path,
        root=Path(home) / "plugins",
        display=provider_schemas.display_path(path, home=home),
        expected_name=name,
        label=f"plugins/{name}/{SCHEMA_FILE}",
    )


def _dir_choice(*, home: Path, index: int, root: Path, rel: str) -> Choice:
    path = root.joinpath(*rel.split("/"))
    return Choice(
        id=f"{DIR}:{index}:{rel}",
        kind=DIR,
        path=path,
        root=root,
        display=provider_schemas.display_path(path, home=home),
        expected_name=path.parent.name,
        # A file at the top of the directory is named with the directory, as the provider is.
        label=rel if "/" in rel else f"{root.name}/{rel}",
    )


def _valid_rel(rel: str) -> bool:
    if not rel or len(rel) > 1024 or "\\" in rel or "\x00" in rel or rel.startswith("/"):
        return False
    parts = rel.split("/")
    if parts[-1] != SCHEMA_FILE or len(parts) > MAX_WALK_DEPTH + 1:
        return False
    return all(part not in ("", ".", "..") for part in parts)


def resolve_choice(*, home: Path, choice_id: str) -> Choice:
    """Map a choice id to its file. Raises ``ChoiceRefused``; only the id's shape is checked here
    (``file_problem`` checks the file itself each time it is read)."""
    kind, _sep, rest = (choice_id or "").partition(":")
    if kind == BUNDLED and rest in BUNDLED_PROVIDERS:
        return _bundled_choice(rest)
    if kind == PLUGIN and _PLUGIN_NAME_RE.fullmatch(rest):
        return _plugin_choice(home=home, name=rest)
    if kind == DIR:
        index_text, _sep, rel = rest.partition(":")
        dirs = allowed_dirs()
        if index_text.isdigit() and int(index_text) < len(dirs) and _valid_rel(rel):
            return _dir_choice(home=home, index=int(index_text), root=dirs[int(index_text)], rel=rel)
    raise ChoiceRefused(_("This is not a schema file the preview can open. Pick one from the list."))


def _walk_schema_files(root: Path) -> list[str]:
    """``config_schema.py`` files under ``root`` (relative posix paths), bounded in depth and count;
    symlinked directories are not followed and hidden directories are skipped."""
    found: list[str] = []
    base_depth = len(root.parts)
    for walked, (current, dirnames, filenames) in enumerate(os.walk(root, followlinks=False), start=1):
        if walked > MAX_WALKED_DIRS:
            break
        depth = len(Path(current).parts) - base_depth
        dirnames[:] = sorted(
            d for d in dirnames if not d.startswith((".", "_")) and d not in SKIPPED_DIRS and depth < MAX_WALK_DEPTH
        )
        if SCHEMA_FILE in filenames:
            found.append(Path(current, SCHEMA_FILE).relative_to(root).as_posix())
            if len(found) >= MAX_LISTED_PER_DIR:
                break
    return sorted(found)


def list_choices(*, home: Path) -> list[ChoiceGroup]:
    """The picker: bundled providers, user plugins of this home, files under allowed directories."""
    home = Path(home)
    groups = [ChoiceGroup(_("Bundled providers"), [_bundled_choice(name) for name in BUNDLED_PROVIDERS])]
    plugins: list[Choice] = []
    try:
        children = sorted((home / "plugins").iterdir(), key=lambda p: p.name)
    except OSError:
        children = []
    for child in children:
        if _PLUGIN_NAME_RE.fullmatch(child.name) and child.is_dir() and (child / SCHEMA_FILE).is_file():
            plugins.append(_plugin_choice(home=home, name=child.name))
    groups.append(ChoiceGroup(_("User plugins in HERMES_HOME/plugins"), plugins))
    for index, root in enumerate(allowed_dirs()):
        choices = [_dir_choice(home=home, index=index, root=root, rel=rel) for rel in _walk_schema_files(root)]
        title = _("Allowed directory %(dir)s") % {"dir": provider_schemas.display_path(root, home=home)}
        groups.append(ChoiceGroup(title, choices))
    return groups


# --- the file itself ---------------------------------------------------------------------------------


def file_fingerprint(choice: Choice) -> str:
    """Changes whenever the file is saved (in place or by rename), removed or re-created."""
    path = os.path.realpath(choice.path)
    return fingerprint_of([path]) if stat_token(path) is not None else "missing"


@dataclass(frozen=True)
class SourceLine:
    number: int
    text: str
    marked: bool = False


@dataclass(frozen=True)
class ErrorView:
    """What replaces the form while the schema cannot be shown."""

    type: str
    message: str
    line: int | None
    path: str
    column: int | None = None
    context: list[SourceLine] = field(default_factory=list)
    kind: str = "load"  # load | static | refused


def file_problem(choice: Choice) -> ErrorView | None:
    """Why the file may not be read (it escapes its root, is not a regular ``config_schema.py``,
    is too big or is missing), or None. Checked on the resolved path, every time."""
    real = Path(os.path.realpath(choice.path))
    root = os.path.realpath(choice.root)

    def refused(message: str, type_: str = "") -> ErrorView:
        return ErrorView(type=type_ or _("Refused"), message=message, line=None, path=choice.display, kind="refused")

    if os.path.commonpath([str(real), root]) != root:
        return refused(_("The file resolves outside the allowed directory; it is not opened."))
    try:
        st = os.stat(real)
    except FileNotFoundError:
        return refused(_("The file does not exist (yet)."), "FileNotFoundError")
    except OSError as exc:
        return refused(exc.strerror or str(exc), type(exc).__name__)
    if not stat.S_ISREG(st.st_mode) or real.name != SCHEMA_FILE:
        return refused(_("Only a regular file named config_schema.py can be previewed."))
    if st.st_size > MAX_SCHEMA_BYTES:
        return refused(
            _("The file is larger than %(kb)s KB; a schema never needs that much.") % {"kb": MAX_SCHEMA_BYTES // 1024}
        )
    return None


def _read_text(path: Path) -> str:
    """The file's text for showing source lines (never executed from here)."""
    try:
        with open(os.path.realpath(path), "rb") as handle:
            raw = handle.read(MAX_SCHEMA_BYTES + 1)
    except OSError:
        return ""
    return raw.decode("utf-8", errors="replace").removeprefix("\ufeff")


# --- source excerpts and lint ------------------------------------------------------------------------


def around(lines: Sequence[str], line: int | None, *, radius: int = CONTEXT_RADIUS) -> list[SourceLine]:
    """``radius`` lines either side of ``line`` (1-based), that line marked."""
    if line is None or line < 1 or line > len(lines):
        return []
    first, last = max(1, line - radius), min(len(lines), line + radius)
    return [SourceLine(n, lines[n - 1], n == line) for n in range(first, last + 1)]


def _call_spans(text: str) -> dict[int, int]:
    """First line → last line of every ``ProviderField(...)`` call."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    spans: dict[int, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name == "ProviderField":
                spans.setdefault(node.lineno, node.end_lineno or node.lineno)
    return spans


@dataclass(frozen=True)
class FindingView:
    severity: str  # error | warning
    key: str | None
    message: str
    line: int | None
    source: list[SourceLine] = field(default_factory=list)
    truncated: bool = False


def lint_findings(schema: ProviderConfigSchema, *, text: str, expected_name: str | None) -> list[FindingView]:
    """provider_schemas' lint of a loaded schema, each finding placed at the ``ProviderField(...)``
    call declaring its key, with that call's source lines."""
    findings = provider_schemas.lint(schema, name=expected_name)
    lines = text.splitlines()
    try:
        declared = field_lines(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        declared = {}
    spans = _call_spans(text)
    out: list[FindingView] = []
    for finding in findings:
        line = finding.line
        if line is None and finding.key is not None and declared.get(finding.key):
            line = declared[finding.key][0]
        source: list[SourceLine] = []
        truncated = False
        if line is not None and 1 <= line <= len(lines):
            last = spans.get(line, line)
            truncated = last - line + 1 > MAX_FINDING_LINES
            last = min(last, line + MAX_FINDING_LINES - 1, len(lines))
            chunk = [lines[n - 1] for n in range(line, last + 1)]
            # The declaration's own indentation is noise in the narrow findings column.
            indent = min((len(t) - len(t.lstrip()) for t in chunk if t.strip()), default=0)
            source = [SourceLine(n, t[indent:], n == line) for n, t in enumerate(chunk, start=line)]
        out.append(FindingView(finding.severity, finding.key, finding.message, line, source, truncated))
    out.sort(key=lambda f: (f.line is None, f.line or 0, f.severity != "error"))
    return out


# --- loading -----------------------------------------------------------------------------------------


@dataclass
class Loaded:
    """A schema read for preview: the object, or why there is none."""

    mode: str
    display: str
    text: str
    fingerprint: str = ""
    choice: Choice | None = None
    expected_name: str | None = None
    schema: ProviderConfigSchema | None = None
    error: ErrorView | None = None
    load_error: provider_schemas.SchemaLoadError | None = None  # the loader's own error (API payload)
    findings: list[FindingView] = field(default_factory=list)

    @property
    def name(self) -> str:
        if self.schema is not None:
            return self.schema.name
        return self.expected_name or ""


def _static_error(exc: StaticEvalError, *, lines: Sequence[str], path: str) -> ErrorView:
    return ErrorView(
        type="StaticEvalError",
        message=exc.message,
        line=exc.line,
        column=exc.col,
        path=path,
        context=around(lines, exc.line),
        kind="static",
    )


def _error_finding(error: ErrorView) -> FindingView:
    """A schema that does not load has one finding: the error (its source is shown with it)."""
    return FindingView("error", None, coded("typed_error", type=error.type, message=error.message), error.line)


def load_choice(*, home: Path, choice: Choice, static: bool = False) -> Loaded:
    """Read one chosen file: executed by the real loader, or (``static``) evaluated as pure data."""
    fingerprint = file_fingerprint(choice)  # taken first: a later save always changes it again
    loaded = Loaded(
        mode=MODE_STATIC if static else MODE_FILE,
        display=choice.display,
        text="",
        fingerprint=fingerprint,
        choice=choice,
        expected_name=choice.expected_name,
    )
    problem = file_problem(choice)
    if problem is not None:
        loaded.error = problem
        return loaded
    loaded.text = _read_text(choice.path)
    lines = loaded.text.splitlines()
    if static:
        try:
            schema = evaluate_schema_source(loaded.text, filename=choice.display, time_limit=EVAL_TIME_LIMIT)
        except StaticEvalError as exc:
            loaded.error = _static_error(exc, lines=lines, path=choice.display)
        else:
            # The evaluator cannot know the directory; the agent requires the name to match it.
            mismatch = [p for p in provider_schemas.declaration_problems(schema, expected_name=choice.expected_name)
                        if p.key is None]
            if mismatch:
                loaded.error = ErrorView("ValueError", mismatch[0].message, None, choice.display, kind="static")
            else:
                loaded.schema = schema
    else:
        try:
            loaded.schema = provider_schemas.load_schema(
                os.path.realpath(choice.path), name=choice.expected_name, display_path=choice.display
            )
        except provider_schemas.SchemaLoadError as exc:
            loaded.load_error = exc
            loaded.error = ErrorView(exc.type, exc.message, exc.line, exc.path, context=around(lines, exc.line))
    if loaded.schema is not None:
        loaded.findings = lint_findings(loaded.schema, text=loaded.text, expected_name=choice.expected_name)
    elif loaded.error is not None:
        loaded.findings = [_error_finding(loaded.error)]
    return loaded


def paste_too_big(text: str) -> bool:
    return len(text) > MAX_SCHEMA_BYTES or len(text.encode("utf-8", errors="surrogatepass")) > MAX_SCHEMA_BYTES


def load_paste(text: str) -> Loaded:
    """Evaluate pasted schema text with the static evaluator. It is never executed."""
    display = _("pasted text")
    loaded = Loaded(mode=MODE_PASTE, display=display, text=text.removeprefix("\ufeff"))
    lines = loaded.text.splitlines()
    try:
        loaded.schema = evaluate_schema_source(text, filename="<pasted>", time_limit=EVAL_TIME_LIMIT)
    except StaticEvalError as exc:
        loaded.error = _static_error(exc, lines=lines, path=display)
        loaded.findings = [_error_finding(loaded.error)]
        return loaded
    loaded.expected_name = loaded.schema.name
    loaded.findings = lint_findings(loaded.schema, text=loaded.text, expected_name=None)
    return loaded


# --- the preview session -----------------------------------------------------------------------------


@dataclass(frozen=True)
class StorageRow:
    key: str
    label: str
    kind: str
    location: dict[str, Any]
    visible: bool
    when: dict[str, str] | None


@dataclass
class PreviewSession:
    """Everything the page shows besides the source: built inside ``preview_session``."""

    loaded: Loaded
    home: Path  # the real HERMES_HOME
    values_home: Path | None  # where values are read from (the real home, or an empty scratch home)
    secret_store: str
    entry: ProviderEntry | None = None
    state: ProviderState | None = None
    uses_home_values: bool = False
    notes: list[str] = field(default_factory=list)
    state_error: str = ""

    @property
    def uses_keyring(self) -> bool:
        return self.secret_store == KEYRING

    @property
    def payload(self) -> dict[str, Any] | None:
        """docs/api.md §Reading a provider's config as the API would answer for this schema (None when the API has no
        answer:
        refused files and text that fails static evaluation are never loaded by it)."""
        if self.state is not None:
            return provider_config_payload(self.state)
        if self.loaded.load_error is not None:
            return schema_error_payload(self.loaded.name, self.loaded.load_error)
        return None

    @property
    def payload_json(self) -> str:
        payload = self.payload
        return "" if payload is None else json.dumps(payload, indent=2, ensure_ascii=False)

    @property
    def storage_rows(self) -> list[StorageRow]:
        if self.state is None:
            return []
        return [StorageRow(s.key, s.label, s.kind, dict(s.location), s.visible, s.when) for s in self.state.fields]

    def plan(self, *, values: Mapping[str, Any], clear: Sequence[str]) -> Any:
        """What a save of these values would change (provider_schemas' planner). Writes nothing."""
        if self.state is None or self.values_home is None or self.loaded.schema is None:
            raise ValueError("nothing to plan: the schema did not load")
        if self.uses_home_values and self.loaded.mode == MODE_FILE and self.entry is not None:
            # Exactly the provider page's planning call.
            from admin_panel.services.providers import plan_provider_save

            return plan_provider_save(home=self.home, name=self.entry.name, values=values, clear=clear)
        return _plan_for_schema(
            home=self.values_home,
            entry=self.state.entry,
            schema=self.loaded.schema,
            secret_store=self.secret_store,
            values=values,
            clear=clear,
        )


def _plan_for_schema(
    *,
    home: Path,
    entry: ProviderEntry,
    schema: ProviderConfigSchema,
    secret_store: str,
    values: Mapping[str, Any],
    clear: Sequence[str],
) -> Any:
    """Plan a save for a schema object. ``provider_schemas.plan_save`` finds the provider by name
    in ``home``; a pasted or out-of-home schema is not discoverable there, so this runs the same
    planner on a model of the schema itself."""
    from provider_schemas.saving.planning import plan_model

    model = load_model(home=home, schema=schema, secret_store=secret_store)
    return plan_model(model=model, entry=entry, values=dict(values), clear=list(clear), expected_fingerprint=None)


def _home_entry(*, home: Path, loaded: Loaded) -> tuple[ProviderEntry | None, list[str]]:
    """The provider of the current home that reads exactly this file, plus notes on why not.

    Decided without loading anything (the discovery functions load the schema, which static and
    paste modes must never do), by docs/agent_formats.md §Provider discovery: a bundled name is the bundled provider;
    ``plugins/<name>`` is a provider when its name is addressable, not bundled, and its
    ``__init__.py`` passes the marker test.
    """
    choice = loaded.choice
    notes: list[str] = []
    if choice is None or choice.provider_name is None:
        return None, notes
    name = choice.provider_name
    schema = loaded.schema
    label = schema.label if schema is not None and schema.label else name
    if choice.kind == BUNDLED:
        return ProviderEntry(name, label, "", "bundled", choice.path.parent, choice.path, schema), notes
    if name in BUNDLED_PROVIDERS or name == provider_schemas.BUILTIN_NAME:
        notes.append(
            _("The bundled provider “%(name)s” takes precedence: the agent ignores this file.") % {"name": name}
        )
        return None, notes
    if not provider_schemas.is_provider_name(name):
        notes.append(_("The agent cannot address a provider named “%(name)s”.") % {"name": name})
        return None, notes
    if not passes_marker_test(choice.path.parent):
        notes.append(
            _(
                "The agent does not load this plugin yet: plugins/%(name)s/__init__.py must mention "
                "register_memory_provider or MemoryProvider."
            )
            % {"name": name}
        )
        return None, notes
    where = f"plugins/{name}"
    return ProviderEntry(name, label, "", "user", choice.path.parent, choice.path, schema, path=where), notes


def _scratch_entry(loaded: Loaded, schema: ProviderConfigSchema) -> ProviderEntry:
    """How the provider would look once installed in this home (for the payload's origin/path)."""
    if schema.name in BUNDLED_PROVIDERS:
        return ProviderEntry(schema.name, schema.label or schema.name, "", "bundled", None, None, schema)
    where = f"plugins/{schema.name}"
    return ProviderEntry(
        schema.name, schema.label or schema.name, "", "user", None, Path(where) / SCHEMA_FILE, schema, path=where
    )


@contextmanager
def preview_session(*, home: Path, loaded: Loaded) -> Iterator[PreviewSession]:
    """Field states (the provider page's builder), payload and planning for ``loaded``.

    Use everything inside the ``with`` block: a scratch home, when one is needed, is removed
    at its end.
    """
    home = Path(home)
    store = provider_selectors.secret_store_for(home=home)
    session = PreviewSession(loaded=loaded, home=home, values_home=None, secret_store=store)
    schema = loaded.schema
    entry, session.notes = _home_entry(home=home, loaded=loaded)
    if schema is None:
        yield session
        return
    if entry is not None:
        session.entry = entry
        session.values_home = home
        session.uses_home_values = True
        try:
            if loaded.mode == MODE_FILE:
                # Exactly what the provider page shows (its loader call, its field-state builder).
                session.state = provider_selectors.provider_state(home=home, name=entry.name)
            else:
                model = load_model(home=home, schema=schema, secret_store=store)
                active = active_provider(home=home) == entry.name
                session.state = state_from_model(
                    entry, model, active=active, set_at=provider_selectors.set_at_map(home=home)
                )
        except provider_schemas.SecretStoreUnavailable as exc:
            session.state = None
            session.state_error = _("The secret store is unavailable (%(reason)s).") % {"reason": exc.reason}
        except (provider_schemas.UnknownProvider, provider_schemas.InvalidProviderName):
            session.state = None  # the plugin directory changed meanwhile; the next poll shows it
        if session.state is not None or session.state_error:
            yield session
            return
        session.uses_home_values = False
    with tempfile.TemporaryDirectory(prefix="memory-panel-preview-") as scratch:
        session.values_home = Path(scratch)
        session.entry = _scratch_entry(loaded, schema)
        try:
            model = load_model(home=session.values_home, schema=schema, secret_store=store)
        except provider_schemas.SecretStoreUnavailable:
            # Values are defaults anyway; only the place new secrets go is lost.
            session.secret_store = ENV_FILE
            model = load_model(home=session.values_home, schema=schema, secret_store=ENV_FILE)
        session.state = state_from_model(session.entry, model, active=False)
        yield session

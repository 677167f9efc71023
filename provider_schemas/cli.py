"""Logic of ``manage.py schema ...`` and ``manage.py secrets exec`` as plain functions.

Each ``run_*`` takes its streams and returns an exit status, so the Django commands are thin and
the behaviour is testable without Django.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from provider_schemas.errors import InvalidProviderName, SecretStoreUnavailable, UnknownProvider
from provider_schemas.loading.discovery import BUILTIN_NAME, discover
from provider_schemas.loading.lint import has_errors, lint
from provider_schemas.payload import provider_config_payload, provider_states
from provider_schemas.reading.secret_values import keyring_environment
from provider_schemas.reading.state import read_provider
from provider_schemas.secret_stores import ENV_FILE


def run_list(*, home: Path, out: IO[str], secret_store: str = ENV_FILE) -> int:
    """One line per provider: name, origin, status, label; then shadowed and unaddressable plugins."""
    discovery = discover(home=home)
    rows: list[tuple[str, str, str, str]] = [(BUILTIN_NAME, "builtin", "always on", "Built-in memory")]
    for state in provider_states(home=home, secret_store=secret_store):
        origin = state.entry.path or state.origin
        if state.schema is None and state.schema_error is None:
            status = "no settings"
        else:
            status = state.status
            if state.missing_secrets:
                status += " (missing " + ", ".join(m["env_key"] or m["key"] for m in state.missing_secrets) + ")"
        if state.schema_error is not None:
            status += f": {state.schema_error}"
        if state.active:
            status += " [active]"
        rows.append((state.name, origin, status, state.label))
    width = max(len(r[0]) for r in rows)
    owidth = max(len(r[1]) for r in rows)
    for name, origin, status, label in rows:
        out.write(f"{name:<{width}}  {origin:<{owidth}}  {label}  —  {status}\n")
    for s in discovery.shadowed:
        what = "its config_schema.py is ignored" if s.has_schema else "it is ignored"
        out.write(
            f'{s.name:<{width}}  {s.path:<{owidth}}  shadowed by the {s.shadowed_by} provider "{s.name}" ({what})\n'
        )
    for u in discovery.unaddressable:
        out.write(f"{u.name:<{width}}  {u.path:<{owidth}}  {u.error}\n")
    return 0


def run_check(
    path: str | os.PathLike[str], *, out: IO[str], err: IO[str], name: str | None = None, strict: bool = False
) -> int:
    """Lint one schema file; exit 1 when there is an error (warnings alone exit 0 unless ``strict``)."""
    target = Path(path)
    if not target.is_file():
        err.write(f"{target}: no such file\n")
        return 1
    findings = lint(target, name=name)
    for f in findings:
        where = f"{target}:{f.line}" if f.line else str(target)
        out.write(f"{where}: {f.severity}: {f.message}\n")
    errors = sum(1 for f in findings if f.severity == "error")
    warnings = len(findings) - errors
    if not findings:
        out.write(f"{target}: OK\n")
    else:
        out.write(f"{target}: {errors} error(s), {warnings} warning(s)\n")
    return 1 if has_errors(findings) or (strict and findings) else 0


def _describe(payload: Mapping[str, Any], out: IO[str]) -> None:
    out.write(f"{payload['label']} ({payload['name']})\n")
    if payload.get("schema_error"):
        e = payload["schema_error"]
        out.write(f"  schema error: {e['type']}: {e['message']} (line {e['line']}, {e['path']})\n")
        return
    storage = payload.get("storage")
    if storage:
        where = storage.get("path") or ""
        out.write(f"  storage: {storage['kind']} {storage['file']} {where}".rstrip() + "\n")
        if storage.get("error"):
            out.write(f"  ERROR: {storage['error']}\n")
    for f in payload.get("fields", []):
        if f["kind"] == "secret":
            shown = "set (" + ", ".join(f.get("stores") or []) + ")" if f["is_set"] else "not set"
        else:
            shown = repr(f["value"]) + f"  [{f['source']}]"
        out.write(f"  {f['key']}: {shown}\n")
    hidden = payload.get("hidden_fields") or []
    if hidden:
        out.write(f"  {len(hidden)} hidden: {', '.join(h['key'] for h in hidden)}\n")
    for w in payload.get("warnings", []):
        out.write(f"  warning: {w['message']}\n")


def run_show(
    name: str, *, home: Path, out: IO[str], err: IO[str], as_json: bool = False, secret_store: str = ENV_FILE
) -> int:
    """Print the docs/api.md §Reading a provider's config payload of one provider (``--json``) or a readable summary."""
    try:
        state = read_provider(home=home, name=name, secret_store=secret_store)
    except (InvalidProviderName, UnknownProvider) as exc:
        err.write(f"{exc}\n")
        return 1
    payload = provider_config_payload(state)
    if as_json:
        out.write(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
    else:
        _describe(payload, out)
    return 0


def secrets_exec(
    *,
    home: Path,
    argv: Sequence[str],
    err: IO[str],
    environ: Mapping[str, str] | None = None,
    execvpe: Callable[[str, Sequence[str], Mapping[str, str]], Any] = os.execvpe,
) -> int:
    """Replace this process with ``argv``, the keyring's declared secrets added to its environment.

    Values are never printed; only the number of variables. Returns 1 (without running anything)
    when no command is given or the keyring is unavailable.
    """
    if not argv:
        err.write("No command given: use `secrets exec -- COMMAND [ARGS...]`.\n")
        return 1
    try:
        secrets = keyring_environment(home=home)
    except SecretStoreUnavailable as exc:
        err.write(f"{exc}\n")
        return 1
    env = dict(os.environ if environ is None else environ)
    env.update(secrets)
    env["HERMES_HOME"] = str(home)
    err.write(f"Starting {argv[0]} with {len(secrets)} secret(s) from the keyring.\n")
    err.flush()
    execvpe(argv[0], list(argv), env)
    return 0

"""``memory`` command for admins and scripts: show, snapshot, add, replace, remove, scan, pending.

Used by ``python manage.py memory ...`` (which supplies the configured home) and runnable
without Django as ``python -m memory_core --home PATH ...``.

Exit codes: 0 done (scan: nothing found; check: no duplicates and no credentials); 1 the store
refused the change, a pending write failed, scan found something, or check found duplicates or a
credential; 2 the request itself is invalid (target, id, file, usage).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from memory_core import pending
from memory_core.config import read_memory_config, store_from_config
from memory_core.entries import TARGETS
from memory_core.maintenance import Finding, analyse_store
from memory_core.maintenance.findings import CREDENTIAL, REDACTED, redact
from memory_core.maintenance.provider import analyse_provider
from memory_core.services import add_entry, remove_entry, replace_entry, target_error
from memory_core.slash import NO_PENDING, format_pending_list
from memory_core.state import StoreState, read_store_state
from memory_core.threats import MEMORY_SCOPE, SCOPES, scan_detailed

EXIT_OK = 0
EXIT_REFUSED = 1
EXIT_INVALID = 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the subcommands on ``parser`` (a Django CommandParser or a plain ArgumentParser)."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--json", action="store_true", help="print machine-readable JSON")
    common.add_argument("--home", help="agent home to use instead of the configured HERMES_HOME")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)

    show = actions.add_parser("show", parents=[common], help="entries, usage and problems of the stores")
    show.add_argument("target", nargs="?", help="memory or user (default: both)")
    actions.add_parser("snapshot", parents=[common], help="what the agent will inject at its next session start")

    add = actions.add_parser("add", parents=[common], help="add an entry")
    add.add_argument("target", help="memory or user")
    add.add_argument("content", help="entry text ('-' reads standard input)")
    replace = actions.add_parser("replace", parents=[common], help="replace the entry containing OLD_TEXT")
    replace.add_argument("target", help="memory or user")
    replace.add_argument("old_text")
    replace.add_argument("new_content", help="new text ('-' reads standard input)")
    remove = actions.add_parser("remove", parents=[common], help="remove the entry containing OLD_TEXT")
    remove.add_argument("target", help="memory or user")
    remove.add_argument("old_text")

    scan = actions.add_parser("scan", parents=[common], help="check text for prompt-injection patterns")
    scan.add_argument("text", nargs="*", help="text to scan (joined by spaces)")
    scan.add_argument("--file", help="scan this UTF-8 file instead ('-' for standard input)")
    scan.add_argument("--scope", default=MEMORY_SCOPE, help=f"one of {', '.join(SCOPES)} (default: strict)")

    check = actions.add_parser(
        "check", parents=[common], help="duplicates and stale entries (exit 1 on duplicates or credentials)"
    )
    check.add_argument("target", nargs="?", help="memory or user (default: both)")

    queue = actions.add_parser("pending", parents=[common], help="writes waiting for approval")
    queue.add_argument("command", nargs="?", default="list", help="list (default), approve or reject")
    queue.add_argument("id", nargs="?", help="pending id, or 'all'")


class _Output:
    def __init__(self, out: TextIO, err: TextIO, as_json: bool) -> None:
        self.out, self.err, self.as_json = out, err, as_json

    def line(self, text: str = "") -> None:
        self.out.write(text + "\n")

    def error(self, text: str) -> None:
        self.err.write(f"Error: {text}\n")

    def json(self, value: Any) -> None:
        self.out.write(json.dumps(value, ensure_ascii=False, indent=2, default=str) + "\n")


def _read_text_argument(value: str) -> str:
    return sys.stdin.read() if value == "-" else value


def _print_result(output: _Output, result: dict[str, Any]) -> int:
    if output.as_json:
        output.json(result)
        return EXIT_OK if result.get("success") else EXIT_REFUSED
    if result.get("success"):
        output.line(f"{result['message']} ({result['usage']}, {result['entry_count']} entries)")
        return EXIT_OK
    output.error(result.get("error", "failed"))
    for match in result.get("matches", []):
        output.err.write(f"  match: {match}\n")
    if "current_entries" in result:
        output.err.write("Current entries:\n")
        for index, entry in enumerate(result["current_entries"], start=1):
            output.err.write(f"  {index}. {entry}\n")
    return EXIT_REFUSED


def _state_as_dict(state: StoreState) -> dict[str, Any]:
    data = dataclasses.asdict(state)
    data["status"] = state.status
    return data


def _show(output: _Output, home: Path, target: str | None) -> int:
    if target is not None and target not in TARGETS:
        output.error(f"Invalid target '{target}'. Use 'memory' or 'user'.")
        return EXIT_INVALID
    config = read_memory_config(home)
    states = [read_store_state(home=home, target=t, config=config) for t in ([target] if target else TARGETS)]
    if output.as_json:
        output.json({state.target: _state_as_dict(state) for state in states})
        return EXIT_OK
    for number, state in enumerate(states):
        if number:
            output.line()
        enabled = "" if state.enabled else ", disabled in config.yaml"
        output.line(f"{state.file_name} ({state.target}): {state.usage}, {len(state.entries)} entries{enabled}")
        output.line(f"  status: {state.status}")
        if state.error:
            output.line(f"  cannot be read: {state.error}")
        if state.drift is not None:
            output.line(f"  drift: {state.drift.explanation}")
        if state.over_budget:
            output.line("  over budget: the agent will refuse new entries until some are removed")
        for entry in state.entries:
            output.line(f"  {entry.index + 1}. [{entry.chars} chars] {entry.text}")
            for finding in entry.findings:
                output.line(f"     ! {finding.pattern_id}: {finding.explanation}")
        for backup in state.backups:
            output.line(f"  backup: {backup.name} ({backup.size} bytes)")
    return EXIT_OK


def _snapshot(output: _Output, home: Path) -> int:
    config = read_memory_config(home)
    blocks = {}
    for target in TARGETS:
        state = read_store_state(home=home, target=target, config=config)
        blocks[target] = state.snapshot if (state.enabled and state.snapshot) else None
    if output.as_json:
        output.json(blocks)
        return EXIT_OK
    shown = [block for block in blocks.values() if block]
    output.line("\n\n".join(shown) if shown else "(nothing: both stores are empty or disabled)")
    return EXIT_OK


def _scan(output: _Output, options: dict[str, Any]) -> int:
    scope = options.get("scope") or MEMORY_SCOPE
    if scope not in SCOPES:
        output.error(f"Unknown scope '{scope}'. Use one of: {', '.join(SCOPES)}.")
        return EXIT_INVALID
    source = options.get("file")
    if source:
        try:
            text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
            output.error(f"cannot read {source}: {reason}")
            return EXIT_INVALID
    else:
        text = " ".join(options.get("text") or [])
    findings = scan_detailed(text, scope)
    if output.as_json:
        output.json([dataclasses.asdict(finding) for finding in findings])
    elif not findings:
        output.line("No threat patterns found.")
    else:
        for finding in findings:
            output.line(f"{finding.pattern_id} ({finding.category_label}): {finding.explanation}")
            output.line(f"    matched: {finding.matched!r}")
    return EXIT_REFUSED if findings else EXIT_OK


def _finding_as_dict(finding: Finding, credentials: Sequence[tuple[int, int]]) -> dict[str, Any]:
    """``credentials``: the spans of the entry's credentials, hidden in every finding of the entry,
    not only in the credential finding itself: a check's output ends up in mails and logs."""
    return {
        "category": finding.category,
        "label": finding.label,
        "index": finding.index,
        "entry": redact(finding.text, credentials) if credentials else finding.text,
        "evidence": [
            {"start": start, "end": end,
             "text": REDACTED if _overlaps((start, end), credentials) else finding.text[start:end]}
            for start, end in finding.spans
        ],
        "explanation": finding.explanation,
        "suggestion": finding.suggestion,
        "action": finding.action,
    }


def _overlaps(span: tuple[int, int], others: Sequence[tuple[int, int]]) -> bool:
    return any(span[0] < end and start < span[1] for start, end in others)


def _check_report(state: StoreState, secrets: Sequence[str]) -> dict[str, Any]:
    analysis = analyse_store([view.text for view in state.entries], state.limit, secrets=secrets)
    credentials: dict[int, list[tuple[int, int]]] = {}
    for finding in analysis.findings:
        if finding.category == CREDENTIAL:
            credentials.setdefault(finding.index, []).extend(finding.spans)
    findings = [_finding_as_dict(finding, credentials.get(finding.index, ())) for finding in analysis.findings]
    hidden = {index: redact(state.entries[index].text, spans) for index, spans in credentials.items()}
    return {
        "file": state.file_name,
        "status": state.status,
        "usage": state.usage,
        "total_chars": state.total_chars,
        "limit": state.limit,
        "freeable_chars": analysis.freeable_chars,
        "duplicate_groups": [
            {
                "kind": group.kind,
                "indices": list(group.indices),
                "entries": [hidden.get(index, text) for index, text in zip(group.indices, group.texts, strict=True)],
                "keep": group.keep,
                "wasted_chars": group.wasted_chars,
                "similarity": round(group.similarity, 3),
            }
            for group in analysis.groups
        ],
        "findings": findings,
    }


def _provider_report(home: Path, provider: str, secrets: Sequence[str]) -> dict[str, Any] | None:
    """The active provider's newest items, checked the same way (None: no store the panel reads).
    Only credentials fail the check there: the agent stores similar facts on its own."""
    from memory_core.external import BROWSABLE, source_for
    from memory_core.external.base import ContentsError

    name = provider.strip().lower()
    source = source_for(name, home=home) if name in BROWSABLE else None
    if source is None or not source.exists():
        return None
    try:
        analysis = analyse_provider(source, secrets=secrets)
    except ContentsError as exc:
        return {"provider": name, "error": exc.message, "items_checked": 0, "more": False, "findings": []}
    credentials: dict[int, list[tuple[int, int]]] = {}
    for finding in analysis.findings:
        if finding.category == CREDENTIAL:
            credentials.setdefault(finding.index, []).extend(finding.spans)
    findings = []
    for finding in analysis.findings:
        shown = _finding_as_dict(finding, credentials.get(finding.index, ()))
        shown["item_id"] = analysis.items[finding.index].id
        findings.append(shown)
    return {"provider": name, "items_checked": len(analysis.items), "more": analysis.more, "findings": findings}


def _check(output: _Output, home: Path, target: str | None, secrets: Sequence[str]) -> int:
    if target is not None and target not in TARGETS:
        output.error(f"Invalid target '{target}'. Use 'memory' or 'user'.")
        return EXIT_INVALID
    config = read_memory_config(home)
    reports = {
        t: _check_report(read_store_state(home=home, target=t, config=config), secrets)
        for t in ([target] if target else TARGETS)
    }
    failing = any(
        report["duplicate_groups"] or any(f["category"] == CREDENTIAL for f in report["findings"])
        for report in reports.values()
    )
    provider = _provider_report(home, config.provider, secrets) if target is None else None
    if provider is not None:
        failing = failing or any(f["category"] == CREDENTIAL for f in provider["findings"])
    if output.as_json:
        output.json({**reports, **({"provider": provider} if provider is not None else {})})
        return EXIT_REFUSED if failing else EXIT_OK
    for number, report in enumerate(reports.values()):
        if number:
            output.line()
        output.line(f"{report['file']}: {report['usage']}")
        if report["status"] == "unreadable":
            output.line("  cannot be read; nothing to check")
        groups, findings = report["duplicate_groups"], report["findings"]
        if not groups and not findings:
            output.line("  no duplicates, no findings")
        if groups:
            output.line(
                f"  {len(groups)} duplicate group(s); merging them would free {report['freeable_chars']:,} chars"
            )
        for group in groups:
            output.line(f"  duplicates ({group['kind']}, {group['wasted_chars']:,} chars wasted):")
            for index, text in zip(group["indices"], group["entries"], strict=True):
                keep = " (keep)" if index == group["keep"] else ""
                output.line(f"    {index + 1}. {text}{keep}")
        for finding in findings:
            evidence = ", ".join(repr(part["text"]) for part in finding["evidence"])
            output.line(f"  {finding['category']} in entry {finding['index'] + 1}: {evidence}")
            output.line(f"    {finding['explanation']}")
            output.line(f"    -> {finding['suggestion']}")
    if provider is not None:
        output.line()
        more = " (the newest only)" if provider["more"] else ""
        output.line(f"{provider['provider']}: {provider['items_checked']:,} item(s) checked{more}")
        if provider.get("error"):
            output.line(f"  cannot be read: {provider['error']}")
        elif not provider["findings"]:
            output.line("  no findings")
        for finding in provider["findings"]:
            evidence = ", ".join(repr(part["text"]) for part in finding["evidence"])
            output.line(f"  {finding['category']} in item {finding['item_id']}: {evidence}")
            output.line(f"    {finding['explanation']}")
    return EXIT_REFUSED if failing else EXIT_OK


def _pending(output: _Output, home: Path, command: str, pending_id: str | None) -> int:
    command = command.lower()
    if command == "list":
        records = pending.list_pending(home)
        if output.as_json:
            output.json(records)
        else:
            output.line(format_pending_list(records))
        return EXIT_OK
    if command not in ("approve", "reject") or not pending_id:
        output.error("use: pending [list | approve ID | reject ID]  (ID may be 'all')")
        return EXIT_INVALID
    if pending_id.lower() == "all":
        ids = [record["id"] for record in pending.list_pending(home)]
    elif not pending.is_valid_id(pending_id):
        output.error(pending.invalid_id_message(pending_id))
        return EXIT_INVALID
    else:
        ids = [pending_id]
    store = store_from_config(home) if command == "approve" else None
    # Like every write of this command line, an approval never writes text that reads back as another entry.
    results = {
        one: (
            pending.approve(home, store, one, whole_entries=True) if command == "approve" else pending.reject(home, one)
        )
        for one in ids
    }
    if output.as_json:
        output.json(results)
    else:
        for one, result in results.items():
            if result.get("success"):
                done = "Approved" if command == "approve" else "Rejected"
                output.line(f"{done} {one}.")
            else:
                output.error(f"{one}: {result.get('error', 'failed')}")
        if not results:
            output.line(NO_PENDING)
    return EXIT_OK if all(result.get("success") for result in results.values()) else EXIT_REFUSED


def run(options: dict[str, Any], *, home: str | os.PathLike[str], out: TextIO, err: TextIO,
        secrets: Sequence[str] = ()) -> int:
    """Execute parsed ``options`` against ``home``; returns the exit code. ``secrets``: the stored
    secret values (memory_core cannot read the secret stores), for ``check`` to report and hide."""
    output = _Output(out, err, bool(options.get("json")))
    home = Path(options.get("home") or home)
    action = options.get("action")
    if action == "show":
        return _show(output, home, options.get("target"))
    if action == "snapshot":
        return _snapshot(output, home)
    if action == "scan":
        return _scan(output, options)
    if action == "check":
        return _check(output, home, options.get("target"), secrets)
    if action == "pending":
        return _pending(output, home, options.get("command") or "list", options.get("id"))
    target = options.get("target")
    refusal = target_error(target)
    if refusal:
        output.error(refusal["error"])
        return EXIT_INVALID
    try:
        result = _write(action, options, home=home, target=target)
    except RuntimeError as exc:  # the file could not be written; the old one is left as it was
        output.error(getattr(exc, "reason", None) or str(exc))
        return EXIT_REFUSED
    if result is None:
        output.error(f"unknown action {action!r}")
        return EXIT_INVALID
    return _print_result(output, result)


def _write(action: object, options: dict[str, Any], *, home: Path, target: str) -> dict[str, Any] | None:
    if action == "add":
        result = add_entry(home=home, target=target, content=_read_text_argument(options["content"]))
    elif action == "replace":
        result = replace_entry(
            home=home,
            target=target,
            old_text=options["old_text"],
            new_content=_read_text_argument(options["new_content"]),
        )
    elif action == "remove":
        result = remove_entry(home=home, target=target, old_text=options["old_text"])
    else:
        return None
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m memory_core", description=__doc__.splitlines()[0])
    add_arguments(parser)
    options = vars(parser.parse_args(argv))
    from memory_core.home import default_home

    return run(options, home=default_home(), out=sys.stdout, err=sys.stderr)

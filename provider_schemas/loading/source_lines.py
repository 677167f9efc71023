"""Where each field of a schema file is declared: the lines of its ``ProviderField(...)`` calls,
found with ``ast`` (the file is parsed, never run). Shared by the loader, the linter and the static
evaluator, so none of them imports another for it."""

from __future__ import annotations

import ast


def _call_name(node: ast.Call) -> str | None:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def field_lines(source: str | ast.Module) -> dict[str, list[int]]:
    """Field key → lines of the ``ProviderField(...)`` calls declaring it, in source order."""
    tree = ast.parse(source) if isinstance(source, str) else source
    found: dict[str, list[int]] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or _call_name(node) != "ProviderField":
            continue
        key_node: ast.expr | None = node.args[0] if node.args else None
        for kw in node.keywords:
            if kw.arg == "key":
                key_node = kw.value
        if isinstance(key_node, ast.Constant) and isinstance(key_node.value, str):
            found.setdefault(key_node.value, []).append(node.lineno)
    for lines in found.values():
        lines.sort()
    return found

"""Evaluate a pasted ``config_schema.py`` without executing it.

The text is parsed with :mod:`ast` and only a pure-data subset is evaluated:

* a module docstring; ``from __future__ import annotations``;
* imports of the declaration module under either import name (``plugins.memory.config_schema``
  or ``provider_schemas.config_schema``): ``from … import NAME [as X]``, ``import … as cs``,
  ``from provider_schemas import config_schema [as cs]``, and attribute access on such a module
  alias only;
* module-level assignments (``NAME = expr``, tuple/list targets, annotated assignments);
* literals (str, int, float, bool, None), tuples, lists, dicts, unary minus/plus on numbers,
  ``+`` between two strings, two tuples or two lists;
* calls of ``ProviderField``, ``ProviderFieldOption`` and ``ProviderConfigSchema`` with plain
  positional and keyword arguments;
* names imported from the declaration module or assigned earlier.

Everything else is rejected with a :class:`StaticEvalError` naming the construct and its line, so
nothing in the paste can run: no call other than the three declaration classes is ever made.
Sets are rejected (the declaration language has no set-valued attribute and their order is not
stable); ``bytes``, complex numbers, ``*``/``**`` and every other operator are rejected too.

Size is bounded before and during evaluation (source size, AST node count, nesting depth, string
length, container size, integer magnitude) and a wall-clock limit is checked at every node, so
any paste is answered quickly. The result passes the same declaration checks as the loader.
"""

from __future__ import annotations

import ast
import math
import os
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from provider_schemas import config_schema as declaration_module
from provider_schemas.config_schema import ProviderConfigSchema, ProviderField, ProviderFieldOption
from provider_schemas.loading.checks import declaration_problems
from provider_schemas.loading.python_errors import call_error_text, error_lines, syntax_message
from provider_schemas.loading.source_lines import field_lines
from provider_schemas.messages import message as coded

__all__ = [
    "DECLARATION_MODULE_NAMES",
    "MAX_SOURCE_BYTES",
    "StaticEvalError",
    "evaluate_schema_source",
    "run_static_check",
]

# Limits. The bundled honcho schema (the largest) is ~16 KB, ~1,900 AST nodes, nesting depth ~8,
# longest string ~300 characters, biggest tuple 34 fields: every cap leaves a wide margin.
MAX_SOURCE_BYTES = 256 * 1024
MAX_NODES = 60_000
MAX_DEPTH = 64
MAX_STRING_CHARS = 20_000
MAX_CONTAINER_ITEMS = 2_000
MAX_INT_DIGITS = 18  # |n| < 10**18; no declaration attribute needs more
MAX_NAMES = 5_000
# Whole-file budgets for values built by '+' and containers, so many capped values cannot add up.
MAX_TOTAL_CHARS = 1_000_000
MAX_TOTAL_ITEMS = 200_000

# The two names a schema file may import the declaration module under.
DECLARATION_MODULE_NAMES = ("plugins.memory.config_schema", "provider_schemas.config_schema")
_CALLABLE = (ProviderField, ProviderFieldOption, ProviderConfigSchema)
_PUBLIC = {name: getattr(declaration_module, name) for name in declaration_module.__all__}


class StaticEvalError(Exception):
    """The paste is not pure data (or not valid): ``message`` at ``line``/``col`` (1-based)."""

    def __init__(self, message: str, line: int | None = None, col: int | None = None) -> None:
        self.message = message
        self.line = line
        self.col = col
        super().__init__(self.__str__())

    def __str__(self) -> str:
        if self.line is None:
            return self.message
        if self.col is None:
            return f"line {self.line}: {self.message}"
        return f"line {self.line}, column {self.col}: {self.message}"

    def as_dict(self) -> dict[str, Any]:
        return {"message": self.message, "line": self.line, "col": self.col}


@dataclass(frozen=True)
class _Package:
    """A package on the way to the declaration module (``provider_schemas`` or ``plugins.memory``),
    bound by ``import provider_schemas.config_schema`` without ``as``."""

    dotted: str
    children: dict[str, Any] = field(default_factory=dict)


class _Module:
    """The declaration module as seen by the pasted file (only its public names)."""

    def __repr__(self) -> str:
        return "<module config_schema>"


_DECLARATION = _Module()

# Readable names for rejected constructs (checked in order; the first match names the node).
_CONSTRUCT_NAMES: tuple[tuple[type[ast.AST], str], ...] = (
    (ast.FunctionDef, coded("construct_def")),
    (ast.AsyncFunctionDef, coded("construct_async_def")),
    (ast.ClassDef, coded("construct_class")),
    (ast.Lambda, coded("construct_lambda")),
    (ast.ListComp, coded("construct_comprehension")),
    (ast.SetComp, coded("construct_comprehension")),
    (ast.DictComp, coded("construct_comprehension")),
    (ast.GeneratorExp, coded("construct_generator")),
    (ast.JoinedStr, coded("construct_f_string")),
    (ast.FormattedValue, coded("construct_f_string")),
    (ast.NamedExpr, coded("construct_walrus")),
    (ast.Subscript, coded("construct_subscript")),
    (ast.Slice, coded("construct_slice")),
    (ast.IfExp, coded("construct_conditional")),
    (ast.BoolOp, coded("construct_bool_op")),
    (ast.Compare, coded("construct_comparison")),
    (ast.Await, "'await'"),
    (ast.Yield, "'yield'"),
    (ast.YieldFrom, "'yield from'"),
    (ast.Set, "sets"),
    (ast.Starred, coded("construct_starred")),
    (ast.If, coded("construct_if")),
    (ast.For, coded("construct_loop")),
    (ast.AsyncFor, coded("construct_loop")),
    (ast.While, coded("construct_loop")),
    (ast.With, coded("construct_with")),
    (ast.AsyncWith, coded("construct_with")),
    (ast.Try, coded("construct_try")),
    (ast.Raise, "'raise'"),
    (ast.Assert, "'assert'"),
    (ast.Delete, "'del'"),
    (ast.Global, "'global'"),
    (ast.Nonlocal, "'nonlocal'"),
    (ast.AugAssign, coded("construct_aug_assign")),
    (ast.Return, "'return'"),
    (ast.Pass, "'pass'"),
    (ast.Break, "'break'"),
    (ast.Continue, "'continue'"),
    (ast.Match, coded("construct_match")),
)
_TRY_STAR = getattr(ast, "TryStar", None)


def _construct_name(node: ast.AST) -> str:
    if _TRY_STAR is not None and isinstance(node, _TRY_STAR):
        return coded("construct_try")
    for node_type, name in _CONSTRUCT_NAMES:
        if isinstance(node, node_type):
            return name
    return coded("construct_node", name=type(node).__name__)




class _Evaluator:
    def __init__(self, source: str, *, time_limit: float) -> None:
        self.lines = source.splitlines()
        self.deadline = time.monotonic() + time_limit
        self.time_limit = time_limit
        self.names: dict[str, Any] = {}
        self.chars_built = 0
        self.items_built = 0

    # --- errors ----------------------------------------------------------------------------

    def error(self, node: ast.AST | None, message: str) -> StaticEvalError:
        if node is None or not hasattr(node, "lineno"):
            return StaticEvalError(message)
        line = node.lineno
        col = node.col_offset  # a UTF-8 byte offset; report characters, 1-based
        if 1 <= line <= len(self.lines):
            col = len(self.lines[line - 1].encode("utf-8")[:col].decode("utf-8", errors="ignore"))
        return StaticEvalError(message, line, col + 1)

    def reject(self, node: ast.AST) -> StaticEvalError:
        decorators = getattr(node, "decorator_list", None)
        if decorators:
            # Report the decorator, which is where the construct starts on screen.
            return self.error(decorators[0], coded("eval_decorators"))
        if isinstance(node, ast.Set):
            return self.error(node, coded("eval_sets"))
        return self.error(node, coded("eval_construct", construct=_construct_name(node)))

    def tick(self, node: ast.AST) -> None:
        if time.monotonic() > self.deadline:
            raise self.error(node, coded("eval_timeout", seconds=f"{self.time_limit:g}"))

    # --- statements ------------------------------------------------------------------------

    def run(self, tree: ast.Module) -> dict[str, Any]:
        for index, stmt in enumerate(tree.body):
            self.tick(stmt)
            if isinstance(stmt, ast.Expr):
                if index == 0 and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
                    continue  # the module docstring
                self.expression_statement(stmt)
            elif isinstance(stmt, ast.ImportFrom):
                self.import_from(stmt)
            elif isinstance(stmt, ast.Import):
                self.import_(stmt)
            elif isinstance(stmt, ast.Assign):
                # `m = cs` (a plain alias of the declaration module) is fine; modules go no further.
                aliasing = isinstance(stmt.value, (ast.Name, ast.Attribute))
                value = self.expr(stmt.value, 0) if aliasing else self.data(stmt.value, 0)
                for target in stmt.targets:
                    self.bind(target, value, stmt.value)
            elif isinstance(stmt, ast.AnnAssign):
                self.annotation(stmt.annotation, 0)
                if stmt.value is None:
                    raise self.error(stmt, coded("eval_bare_annotation"))
                if not isinstance(stmt.target, ast.Name):
                    raise self.error(stmt.target, coded("eval_annotated_target"))
                self.bind(stmt.target, self.data(stmt.value, 0), stmt.value)
            else:
                raise self.reject(stmt)
        return self.names

    def expression_statement(self, stmt: ast.Expr) -> None:
        # Evaluate first so that e.g. `open(...)` is reported as the forbidden call it is.
        self.data(stmt.value, 0)
        raise self.error(stmt, coded("eval_bare_expression"))

    def import_from(self, stmt: ast.ImportFrom) -> None:
        module = stmt.module or ""
        if stmt.level:
            raise self.error(stmt, coded("eval_relative_import"))
        if module == "__future__":
            for alias in stmt.names:
                if alias.name != "annotations" or alias.asname:
                    raise self.error(stmt, coded("eval_future_import"))
            return
        if module in DECLARATION_MODULE_NAMES:
            for alias in stmt.names:
                if alias.name == "*":
                    raise self.error(stmt, coded("eval_star_import"))
                if alias.name not in _PUBLIC:
                    raise self.error(stmt, coded("eval_module_no_name", module=module, name=repr(alias.name)))
                self.assign(alias.asname or alias.name, _PUBLIC[alias.name], stmt)
            return
        if module in ("provider_schemas", "plugins.memory"):
            for alias in stmt.names:
                if alias.name != "config_schema":
                    raise self.error(stmt, coded("eval_only_config_schema", module=module))
                self.assign(alias.asname or alias.name, _DECLARATION, stmt)
            return
        raise self.error(
            stmt,
            coded("eval_import_from", module=repr(module)),
        )

    def import_(self, stmt: ast.Import) -> None:
        for alias in stmt.names:
            if alias.name not in DECLARATION_MODULE_NAMES:
                raise self.error(
                    stmt,
                    coded("eval_import", module=repr(alias.name)),
                )
            if alias.asname:
                self.assign(alias.asname, _DECLARATION, stmt)
                continue
            # `import a.b.c` binds `a`; `a.b.c` then reaches the module.
            parts = alias.name.split(".")
            node: Any = _DECLARATION
            for depth in range(len(parts) - 1, 0, -1):
                node = _Package(".".join(parts[:depth]), {parts[depth]: node})
            self.assign(parts[0], node, stmt)

    def bind(self, target: ast.expr, value: Any, value_node: ast.AST) -> None:
        if isinstance(target, ast.Name):
            self.assign(target.id, value, target)
        elif isinstance(target, (ast.Tuple, ast.List)):
            if not isinstance(value, (tuple, list)):
                raise self.error(value_node, coded("eval_unpack_type", type=type(value).__name__))
            if any(isinstance(t, ast.Starred) for t in target.elts):
                raise self.reject(next(t for t in target.elts if isinstance(t, ast.Starred)))
            if len(target.elts) != len(value):
                counts = {"names": str(len(target.elts)), "values": str(len(value))}
                raise self.error(target, coded("eval_unpack_count", **counts))
            for sub_target, sub_value in zip(target.elts, value, strict=True):
                self.bind(sub_target, sub_value, value_node)
        else:
            raise self.error(target, coded("eval_assign_target"))

    def assign(self, name: str, value: Any, node: ast.AST) -> None:
        self.check_name(name, node)
        if name not in self.names and len(self.names) >= MAX_NAMES:
            raise self.error(node, coded("eval_too_many_names", count=str(MAX_NAMES)))
        self.names[name] = value

    def check_name(self, name: str, node: ast.AST) -> None:
        if name.startswith("__"):
            raise self.error(node, coded("eval_dunder", name=repr(name)))

    # --- expressions -----------------------------------------------------------------------

    def data(self, node: ast.expr, depth: int) -> Any:
        """Evaluate ``node`` to a data value (a module alias is not a value)."""
        value = self.expr(node, depth)
        if isinstance(value, (_Module, _Package)):
            raise self.error(node, coded("eval_module_value"))
        return value

    def expr(self, node: ast.expr, depth: int) -> Any:
        self.tick(node)
        if depth > MAX_DEPTH:
            raise self.error(node, coded("eval_expression_depth", depth=str(MAX_DEPTH)))
        if isinstance(node, ast.Constant):
            return self.constant(node)
        if isinstance(node, ast.Name):
            return self.name(node)
        if isinstance(node, ast.Attribute):
            return self.attribute(node, depth)
        if isinstance(node, (ast.Tuple, ast.List)):
            items = [self.item(elt, depth) for elt in node.elts]
            self.check_size(node, len(items))
            return tuple(items) if isinstance(node, ast.Tuple) else items
        if isinstance(node, ast.Dict):
            return self.dict_(node, depth)
        if isinstance(node, ast.UnaryOp):
            return self.unary(node, depth)
        if isinstance(node, ast.BinOp):
            return self.binop(node, depth)
        if isinstance(node, ast.Call):
            return self.call(node, depth)
        raise self.reject(node)

    def item(self, node: ast.expr, depth: int) -> Any:
        if isinstance(node, ast.Starred):
            raise self.reject(node)
        return self.data(node, depth + 1)

    def constant(self, node: ast.Constant) -> Any:
        value = node.value
        if isinstance(value, bool) or value is None:
            return value
        if isinstance(value, str):
            if len(value) > MAX_STRING_CHARS:
                raise self.error(node, coded("eval_string_too_long", count=str(MAX_STRING_CHARS)))
            return value
        if isinstance(value, int):
            return self.check_int(node, value)
        if isinstance(value, float):
            if not math.isfinite(value):
                raise self.error(node, coded("eval_not_finite"))
            return value
        if isinstance(value, bytes):
            raise self.error(node, coded("eval_bytes"))
        if value is Ellipsis:
            raise self.error(node, coded("eval_ellipsis"))
        raise self.error(node, coded("eval_literal_type", type=type(value).__name__))

    def check_int(self, node: ast.AST, value: int) -> int:
        if abs(value) >= 10**MAX_INT_DIGITS:
            raise self.error(node, coded("eval_int_too_large", digits=str(MAX_INT_DIGITS)))
        return value

    def check_size(self, node: ast.AST, size: int) -> None:
        if size > MAX_CONTAINER_ITEMS:
            raise self.error(node, coded("eval_container_items", count=str(MAX_CONTAINER_ITEMS)))
        self.items_built += size
        if self.items_built > MAX_TOTAL_ITEMS:
            raise self.error(node, coded("eval_total_items", count=str(MAX_TOTAL_ITEMS)))

    def name(self, node: ast.Name) -> Any:
        self.check_name(node.id, node)
        if node.id not in self.names:
            raise self.error(
                node,
                coded("eval_undefined_name", name=repr(node.id)),
            )
        return self.names[node.id]

    def attribute(self, node: ast.Attribute, depth: int) -> Any:
        if node.attr.startswith("__"):
            raise self.error(node, coded("eval_dunder", name=repr(node.attr)))
        owner = self.expr(node.value, depth + 1)
        if isinstance(owner, _Package):
            if node.attr not in owner.children:
                raise self.error(node, coded("eval_package_attribute", package=owner.dotted, name=repr(node.attr)))
            return owner.children[node.attr]
        if isinstance(owner, _Module):
            if node.attr not in _PUBLIC:
                raise self.error(node, coded("eval_declaration_no_name", name=repr(node.attr)))
            return _PUBLIC[node.attr]
        raise self.error(
            node,
            coded("eval_attribute_access"),
        )

    def dict_(self, node: ast.Dict, depth: int) -> dict[Any, Any]:
        self.check_size(node, len(node.keys))
        out: dict[Any, Any] = {}
        for key_node, value_node in zip(node.keys, node.values, strict=True):
            if key_node is None:
                raise self.error(value_node, coded("eval_dict_unpacking"))
            key = self.data(key_node, depth + 1)
            if not isinstance(key, (str, int, float, bool)) and key is not None:
                raise self.error(key_node, coded("eval_dict_key", type=type(key).__name__))
            out[key] = self.data(value_node, depth + 1)
        return out

    def unary(self, node: ast.UnaryOp, depth: int) -> Any:
        if not isinstance(node.op, (ast.USub, ast.UAdd)):
            raise self.error(node, coded("eval_operator", operator=repr(_op_text(node.op))))
        operand = self.data(node.operand, depth + 1)
        if isinstance(operand, bool) or not isinstance(operand, (int, float)):
            raise self.error(node, coded("eval_unary"))
        return -operand if isinstance(node.op, ast.USub) else +operand

    def binop(self, node: ast.BinOp, depth: int) -> Any:
        if not isinstance(node.op, ast.Add):
            raise self.error(
                node, coded("eval_binary_operator", operator=repr(_op_text(node.op)))
            )
        left = self.data(node.left, depth + 1)
        right = self.data(node.right, depth + 1)
        if isinstance(left, str) and isinstance(right, str):
            if len(left) + len(right) > MAX_STRING_CHARS:
                raise self.error(node, coded("eval_string_too_long", count=str(MAX_STRING_CHARS)))
            self.chars_built += len(left) + len(right)
            if self.chars_built > MAX_TOTAL_CHARS:
                raise self.error(node, coded("eval_total_chars", count=str(MAX_TOTAL_CHARS)))
            return left + right
        if (isinstance(left, tuple) and isinstance(right, tuple)) or (
            isinstance(left, list) and isinstance(right, list)
        ):
            self.check_size(node, len(left) + len(right))
            return left + right
        raise self.error(
            node,
            coded("eval_plus_types", left=type(left).__name__, right=type(right).__name__),
        )

    def call(self, node: ast.Call, depth: int) -> Any:
        func = self.callee(node.func, depth)
        args = []
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                raise self.error(arg, coded("eval_star_args"))
            args.append(self.data(arg, depth + 1))
        kwargs: dict[str, Any] = {}
        for keyword in node.keywords:
            if keyword.arg is None:
                raise self.error(keyword.value, coded("eval_star_kwargs"))
            if keyword.arg in kwargs:
                raise self.error(keyword.value, coded("eval_keyword_repeated", name=repr(keyword.arg)))
            kwargs[keyword.arg] = self.data(keyword.value, depth + 1)
        try:
            return func(*args, **kwargs)
        except (TypeError, ValueError) as exc:
            raise self.error(node, call_error_text(exc, func, tuple(args), kwargs)) from None

    def callee(self, node: ast.expr, depth: int) -> Any:
        what = _callee_text(node)
        if isinstance(node, ast.Name) and node.id.startswith("__"):
            raise self.error(node, coded("eval_calling", callee=repr(what)))
        if isinstance(node, ast.Name) and node.id not in self.names:
            raise self.error(node, coded("eval_calling", callee=repr(what)))
        if not isinstance(node, (ast.Name, ast.Attribute)):
            raise self.error(node, coded("eval_calling", callee=what))
        try:
            func = self.expr(node, depth + 1)
        except StaticEvalError as exc:
            if isinstance(node, ast.Attribute) and "dunder" not in exc.message:
                raise self.error(node, coded("eval_calling", callee=repr(what))) from None
            raise
        if not any(func is allowed for allowed in _CALLABLE):
            raise self.error(node, coded("eval_calling", callee=repr(what)))
        return func

    # --- annotations (never evaluated, only checked to be harmless) ------------------------

    def annotation(self, node: ast.expr, depth: int) -> None:
        """An annotation is not evaluated here, but executing the file would evaluate it (without
        ``from __future__ import annotations``), so it must be as harmless as the rest: names,
        attribute chains, ``X[...]`` generics, ``X | Y`` and string constants only."""
        self.tick(node)
        if depth > MAX_DEPTH:
            raise self.error(node, coded("eval_annotation_depth", depth=str(MAX_DEPTH)))
        if isinstance(node, ast.Name):
            self.check_name(node.id, node)
        elif isinstance(node, ast.Attribute):
            if node.attr.startswith("__"):
                raise self.error(node, coded("eval_dunder", name=repr(node.attr)))
            self.annotation(node.value, depth + 1)
        elif isinstance(node, ast.Constant):
            if not (isinstance(node.value, str) or node.value is None or node.value is Ellipsis):
                raise self.error(node, coded("eval_annotation_kind"))
        elif isinstance(node, ast.Subscript):
            self.annotation(node.value, depth + 1)
            self.annotation(node.slice, depth + 1)
        elif isinstance(node, ast.Tuple):
            for elt in node.elts:
                self.annotation(elt, depth + 1)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            self.annotation(node.left, depth + 1)
            self.annotation(node.right, depth + 1)
        else:
            raise self.error(node, coded("eval_annotation_kind"))


def _op_text(op: ast.AST) -> str:
    return {
        ast.Sub: "-", ast.Mult: "*", ast.MatMult: "@", ast.Div: "/", ast.Mod: "%", ast.Pow: "**",
        ast.LShift: "<<", ast.RShift: ">>", ast.BitOr: "|", ast.BitXor: "^", ast.BitAnd: "&",
        ast.FloorDiv: "//", ast.Not: "not", ast.Invert: "~",
    }.get(type(op), type(op).__name__)  # fmt: skip


def _callee_text(node: ast.expr) -> str:
    try:
        text = ast.unparse(node)
    except (ValueError, RecursionError):  # pragma: no cover - unparse of a parsed tree
        return "this"
    return text if len(text) <= 60 else text[:57] + "..."


def evaluate_schema_source(
    text: str, *, filename: str = "<pasted>", time_limit: float = 2.0, checks: bool = True
) -> ProviderConfigSchema:
    """Evaluate schema source ``text`` without executing it; return its checked ``CONFIG_SCHEMA``.

    Raises :class:`StaticEvalError` (message, line, col) when the text is too big, does not parse,
    uses anything outside the pure-data subset, has no ``CONFIG_SCHEMA``, or fails the declaration
    checks of docs/agent_formats.md §Provider declarations (the provider-name check excepted: pasted text has no
    directory). ``checks=False`` skips those checks (for callers that lint the result and want
    every finding, not the first); ``CONFIG_SCHEMA`` may then be any evaluated value.
    """
    if not isinstance(text, str):
        raise StaticEvalError(coded("eval_source_type", type=type(text).__name__))
    if len(text) > MAX_SOURCE_BYTES or len(text.encode("utf-8", errors="surrogatepass")) > MAX_SOURCE_BYTES:
        raise StaticEvalError(coded("eval_source_size", kb=str(MAX_SOURCE_BYTES // 1024)))
    source = text.removeprefix("\ufeff")  # an editor's BOM is not a reason to refuse
    try:
        # Pasted text is the author's, not ours: its invalid escapes must not warn into our logs.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(source, filename=filename, mode="exec", type_comments=False)
    except SyntaxError as exc:
        reason = syntax_message(exc.msg, lines=error_lines(exc, source))
        raise StaticEvalError(coded("eval_invalid_syntax", message=reason), exc.lineno, exc.offset) from None
    except (ValueError, RecursionError, MemoryError) as exc:
        # ValueError: NUL characters; RecursionError/MemoryError: absurd nesting.
        message = coded("eval_too_deep") if not isinstance(exc, ValueError) else syntax_message(str(exc))
        raise StaticEvalError(coded("eval_cannot_parse", message=message)) from None

    for count, _node in enumerate(ast.walk(tree), start=1):
        if count > MAX_NODES:
            raise StaticEvalError(coded("eval_too_many_nodes", count=str(MAX_NODES)))

    # The limit is the evaluation's own: parsing is already bounded by the size and node limits
    # above, and charging it here made a busy machine refuse a schema that evaluates in
    # milliseconds.
    evaluator = _Evaluator(source, time_limit=time_limit)
    try:
        names = evaluator.run(tree)
    except RecursionError:
        raise StaticEvalError(coded("eval_too_deep")) from None

    if "CONFIG_SCHEMA" not in names:
        raise StaticEvalError(coded("eval_no_config_schema"))
    schema = names["CONFIG_SCHEMA"]
    if not checks:
        return schema
    line = _config_schema_line(tree)
    problems = declaration_problems(schema)
    if problems:
        first = problems[0]
        raise StaticEvalError(first.message, _problem_line(tree, first.key) or line)
    return schema


def _config_schema_line(tree: ast.Module) -> int | None:
    for stmt in tree.body:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
        for target in targets:
            if isinstance(target, ast.Name) and target.id == "CONFIG_SCHEMA":
                return stmt.lineno
    return None


def _problem_line(tree: ast.Module, key: str | None) -> int | None:
    """The line of the ``ProviderField(...)`` call declaring ``key``; a duplicate key is reported
    where it is declared the second time."""
    if key is None:
        return None
    lines = field_lines(tree).get(key)
    return lines[-1] if lines else None


def run_static_check(
    path: str | os.PathLike[str], *, out: IO[str], err: IO[str], name: str | None = None, strict: bool = False
) -> int:
    """``manage.py schema check --static PATH``: prove a schema file is pure data without running it.

    Prints ``PATH:LINE:COL: error: message`` and returns 1 when the file leaves the pure-data
    subset; otherwise lints the evaluated schema exactly as a plain check does (every declaration
    problem and advice, with field lines, the provider name against the file's directory unless
    ``name`` is given) and returns 1 for errors, or for any finding when ``strict``.
    """
    from provider_schemas.loading.lint import has_errors, lint

    target = Path(path)
    try:
        if target.stat().st_size > MAX_SOURCE_BYTES:
            out.write(f"{target}: error: schema source is larger than {MAX_SOURCE_BYTES // 1024} KB\n")
            return 1
        text = target.read_bytes().decode("utf-8")
    except OSError as exc:
        err.write(f"{target}: cannot read the file ({exc.strerror or exc})\n")
        return 1
    except UnicodeDecodeError as exc:
        out.write(f"{target}: error: not UTF-8 text (byte {exc.start})\n")
        return 1
    try:
        schema = evaluate_schema_source(text, filename=str(target), checks=False)
    except StaticEvalError as exc:
        where = str(target) if exc.line is None else f"{target}:{exc.line}" + (f":{exc.col}" if exc.col else "")
        out.write(f"{where}: error: {exc.message}\n")
        out.write(f"{target}: not pure data (nothing in it was executed)\n")
        return 1
    source = text.removeprefix("\ufeff")
    if not isinstance(schema, ProviderConfigSchema):
        line = _config_schema_line(ast.parse(source))
        out.write(f"{target}:{line}: error: {declaration_problems(schema)[0].message}\n")
        return 1
    expected = name if name is not None else Path(os.path.realpath(target)).parent.name
    findings = lint(schema, name=expected)
    lines = field_lines(source)
    for finding in findings:
        line = finding.line
        if line is None and finding.key in lines:
            # A duplicate key is reported at its second declaration, anything else at its first.
            line = lines[finding.key][-1 if "duplicate key" in finding.message else 0]
        where = f"{target}:{line}" if line else str(target)
        out.write(f"{where}: {finding.severity}: {finding.message}\n")
    errors = sum(1 for f in findings if f.severity == "error")
    summary = f"pure data, {len(schema.fields)} field(s)"
    if findings:
        summary += f"; {errors} error(s), {len(findings) - errors} warning(s)"
    out.write(f"{target}: {summary}\n")
    return 1 if has_errors(findings) or (strict and findings) else 0

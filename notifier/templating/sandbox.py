"""The Jinja2 sandbox templates run in, with bounds on what one expression may build.

Jinja's sandbox stops access to internals and caps one ``range()`` at
100,000 items. It does not stop an expression from building a huge value:
``{{ 7 ** 999999999 }}`` computes for minutes and ``{{ 'x' * 10**9 }}`` takes
a gigabyte, and since Jinja folds constant expressions while it compiles,
such a template froze the config load itself, not just a render. Here every
way a template can grow a value is bounded:

- the operators that grow (``*``, ``**``, ``%``, ``+``) are intercepted,
  which also keeps Jinja from folding them at compile time, and refuse a
  result past ``MAX_SIZE`` items or ``MAX_INT_BITS`` bits;
- ``~`` (concatenation), a template's whole output, every filter and every
  method call check their numeric arguments (a width or a count of at most ``MAX_NUMBER``) and the
  size of what they return;
- ``range()`` draws on a budget of ``MAX_RANGE_PER_RENDER`` items per
  render, so nested loops cannot multiply it; ``namespace()`` (the one way to
  carry a growing value across loop iterations) is not offered.

A template that breaks a bound fails to render with ``SecurityError``; the
message then falls back to the built-in template (``rendering``).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Iterator, Sized
from contextlib import contextmanager
from typing import Any

from jinja2 import nodes
from jinja2.compiler import CodeGenerator, Frame
from jinja2.exceptions import SecurityError
from jinja2.runtime import Context
from jinja2.sandbox import SandboxedEnvironment

MAX_SIZE = 200_000  # characters of a string, items of a list, that one step may produce
MAX_INT_BITS = 4_096
MAX_NUMBER = 100_000  # a width, count or repetition given to a filter or method
MAX_RANGE_PER_RENDER = 100_000
_FORMAT_WIDTH = re.compile(r"\d{6,}|\*")  # a width of a million or more, or one from the args

_budget = threading.local()


class _BoundedCodeGenerator(CodeGenerator):
    def visit_Concat(self, node: nodes.Concat, frame: Frame) -> None:  # noqa: N802 - Jinja's name
        self.write("environment.bounded_join((")
        for arg in node.nodes:
            self.visit(arg, frame)
            self.write(", ")
        self.write("))")


class BoundedSandbox(SandboxedEnvironment):
    code_generator_class = _BoundedCodeGenerator
    intercepted_binops = frozenset({"*", "**", "%", "+"})

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.globals.pop("namespace", None)
        self.globals["range"] = budgeted_range

    def bound_filters(self) -> None:
        """Wrap every filter registered so far in the argument and result checks."""
        for name, function in list(self.filters.items()):
            self.filters[name] = _bounded(function)

    def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
        _check_binop(operator, left, right)
        return _sized(self.binop_table[operator](left, right))

    def call(__self, __context: Context, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805
        _check_numbers(args, kwargs)
        if getattr(__obj, "__name__", "") in ("format", "format_map"):
            # The sandbox hands out str.format wrapped; the string is the wrapped method's self.
            _check_format(getattr(getattr(__obj, "__wrapped__", __obj), "__self__", ""))
        return _sized(super().call(__context, __obj, *args, **kwargs))

    @staticmethod
    def bounded_join(parts: tuple[Any, ...]) -> str:
        """``~``: the parts as text, joined."""
        joined: str = _sized("".join(str(part) for part in parts))
        return joined

    @staticmethod
    def concat(parts: Iterable[str]) -> str:
        """A whole template's output: bounded like any other value."""
        joined: str = _sized("".join(parts))
        return joined


def constant_problem(environment: BoundedSandbox, tree: nodes.Template) -> str | None:
    """Why a constant expression in ``tree`` would break a bound when rendered, if one would.

    Jinja no longer folds the bounded operators while compiling, so this finds
    ``{{ 7 ** 999999999 }}`` at load, where the user can be told where it is.
    """
    for expression in tree.find_all(nodes.BinExpr):
        try:
            _constant(environment, expression)
        except SecurityError as err:
            return f"line {expression.lineno}: {err}"
        except (nodes.Impossible, ArithmeticError, TypeError, ValueError):
            continue
    return None


def _constant(environment: BoundedSandbox, node: nodes.Node) -> Any:
    if isinstance(node, (nodes.Const, nodes.List, nodes.Tuple)):
        return node.as_const()
    if isinstance(node, nodes.BinExpr):
        left, right = _constant(environment, node.left), _constant(environment, node.right)
        _check_binop(node.operator, left, right)
        return _sized(environment.binop_table[node.operator](left, right))
    raise nodes.Impossible()


@contextmanager
def render_budget() -> Iterator[None]:
    """One render's allowance of ``range()`` items (renders on one thread do not nest)."""
    _budget.left = MAX_RANGE_PER_RENDER
    try:
        yield
    finally:
        _budget.left = MAX_RANGE_PER_RENDER


def budgeted_range(*args: int) -> range:
    items = range(*args)
    left = getattr(_budget, "left", MAX_RANGE_PER_RENDER) - len(items)
    if left < 0:
        raise SecurityError(f"range() past {MAX_RANGE_PER_RENDER:,} items in one message")
    _budget.left = left
    return items


def _bounded(function: Callable[..., Any]) -> Callable[..., Any]:
    # A pass_context / pass_environment filter gets that first, then the value filtered.
    passed = 2 if hasattr(function, "jinja_pass_arg") else 1

    def checked(*args: Any, **kwargs: Any) -> Any:
        _check_numbers(args[passed:], kwargs)
        return _sized(function(*args, **kwargs))

    if passed == 2:
        checked.jinja_pass_arg = function.jinja_pass_arg  # type: ignore[attr-defined]
    return checked


def _check_binop(operator: str, left: Any, right: Any) -> None:
    if operator == "**" and _is_int(left) and _is_int(right):
        if right > 0 and max(abs(left).bit_length(), 1) * right > MAX_INT_BITS:
            raise SecurityError(f"{left} ** {right} is too large")
    elif operator == "*":
        count, other = (left, right) if _is_int(left) else (right, left)
        if _is_int(count) and isinstance(other, Sized) and len(other) * count > MAX_SIZE:
            raise SecurityError(f"a repetition past {MAX_SIZE:,} items")
        if (
            _is_int(left)
            and _is_int(right)
            and left.bit_length() + right.bit_length() > MAX_INT_BITS
        ):
            raise SecurityError("a product past the integer bound")
    elif operator == "%" and isinstance(left, str):
        _check_format(left)


def _check_format(template: Any) -> None:
    if isinstance(template, str) and _FORMAT_WIDTH.search(template):
        raise SecurityError("a format width of a million or more, or one taken from the arguments")


def _check_numbers(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    for value in (*args, *kwargs.values()):
        if _is_int(value) and abs(value) > MAX_NUMBER:
            raise SecurityError(f"argument {value} is past {MAX_NUMBER:,}")


def _sized(value: Any) -> Any:
    if isinstance(value, (str, bytes, list, tuple, dict)) and len(value) > MAX_SIZE:
        raise SecurityError(f"a value of {len(value):,} items (the bound is {MAX_SIZE:,})")
    if _is_int(value) and value.bit_length() > MAX_INT_BITS:
        raise SecurityError("an integer past the bound")
    return value


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)

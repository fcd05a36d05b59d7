"""Templates: compiled once at load, rendered in a Jinja2 sandbox.

A template is text (one Jinja template) or a structure (a YAML list or
mapping whose strings are templates, as a receiver's JSON body is); in a
structure, a string that is exactly one ``{{ expression }}`` yields the
expression's value (a list, a number, a dict), and list items that yield
null are left out, so an item can be optional.

``TemplateCompiler`` compiles parts, checks that they use only the
variables the context will hold (``StrictUndefined`` would otherwise fail
only when a message is sent) and collects every problem with its key path.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping
from typing import Any, Protocol

import jinja2
from jinja2 import meta

from notifier.templating.environment import Escape
from notifier.templating.sandbox import BoundedSandbox, constant_problem

Render = Callable[[Mapping[str, Any]], Any]
KeyPath = tuple[str | int, ...]  # where in the config a part is: ("template", "blocks", 2)


class Problems(Protocol):
    """Where compile problems go (a sink's build raises the first)."""

    def add(self, path: KeyPath, message: str) -> None: ...


_ONE_EXPRESSION = re.compile(r"\s*\{\{(?P<expression>.*?)\}\}\s*", re.DOTALL)


class TemplateCompiler:
    """Compiles template parts; problems are added to ``problems`` instead of raised."""

    def __init__(
        self, environment: BoundedSandbox, problems: Problems, escape: Escape | None = None
    ) -> None:
        self._environment = environment
        self._problems = problems
        self._escape = escape or _unchanged

    def text(self, source: str, path: KeyPath, names: frozenset[str]) -> Render | None:
        tree = self._parsed(source, path, names)
        if tree is None:
            return None
        template = self._environment.from_string(tree)
        return template.render

    def shape(self, value: Any, path: KeyPath, names: frozenset[str]) -> Render | None:
        """Compile a structure whose strings are templates."""
        if isinstance(value, str):
            return self._leaf(value, path, names)
        if isinstance(value, dict):
            return self._mapping(value, path, names)
        if isinstance(value, list):
            return self._sequence(value, path, names)
        return lambda context: value

    def _leaf(self, source: str, path: KeyPath, names: frozenset[str]) -> Render | None:
        if not _has_markup(source):
            return lambda context: source
        found = _ONE_EXPRESSION.fullmatch(source)
        if found is None or _has_markup(found["expression"]):
            return self.text(source, path, names)
        if self._parsed(source, path, names) is None:
            return None
        name, escape = found["expression"].strip(), self._escape
        if name.isidentifier() and name in names:
            # A bare variable is most of a payload: a dict lookup instead of a Jinja
            # evaluation (~25 us each, which made rendering cost 1 ms a message).
            return lambda context: escape(context[name])
        expression = self._environment.compile_expression(found["expression"], False)
        return lambda context: escape(expression(**context))

    def _mapping(
        self, value: dict[Any, Any], path: KeyPath, names: frozenset[str]
    ) -> Render | None:
        parts = [(key, self.shape(item, (*path, str(key)), names)) for key, item in value.items()]
        compiled = [(key, render) for key, render in parts if render is not None]
        if len(compiled) < len(parts):
            return None
        return lambda context: {key: render(context) for key, render in compiled}

    def _sequence(self, value: list[Any], path: KeyPath, names: frozenset[str]) -> Render | None:
        parts = [self.shape(item, (*path, index), names) for index, item in enumerate(value)]
        compiled = [render for render in parts if render is not None]
        if len(compiled) < len(parts):
            return None
        return lambda context: [
            v for v in (render(context) for render in compiled) if v is not None
        ]

    def _parsed(
        self, source: str, path: KeyPath, names: frozenset[str]
    ) -> jinja2.nodes.Template | None:
        """The syntax tree of ``source`` if it compiles and uses only ``names``."""
        try:
            tree = self._environment.parse(source)
        except jinja2.TemplateSyntaxError as exc:
            self._problems.add(path, f"template does not compile: line {exc.lineno}: {exc}")
            return None
        except RecursionError:
            self._problems.add(path, "template is nested too deeply to compile")
            return None
        if (problem := constant_problem(self._environment, tree)) is not None:
            self._problems.add(path, f"template would build too large a value: {problem}")
            return None
        unknown = sorted(meta.find_undeclared_variables(tree) - names)
        for name in unknown:
            self._problems.add(path, f"template uses unknown variable {name!r}{_hint(name, names)}")
        return None if unknown else tree


def _unchanged(value: Any) -> Any:
    return value


def _has_markup(expression: str) -> bool:
    return any(token in expression for token in ("{{", "}}", "{%", "%}", "{#"))


def _hint(name: str, names: frozenset[str]) -> str:
    close = difflib.get_close_matches(name, sorted(names), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""

"""Reading YAML while remembering where every value came from.

``parse_document`` composes the YAML (``yaml.compose`` keeps each node's
line and column), builds plain Python data from the nodes, expands
``${VAR}`` references in string values and records, per key path, the
position of the key and of the value. Later stages report problems by key
path; ``Document.locate`` turns a path into line and column.

Rules of the road: keys are taken as written (``on:`` stays the string
"on"); duplicate keys are errors; ``<<`` merge keys work; an unquoted value
that is exactly one reference is typed after expansion, so
``port: ${PORT:-8080}`` is a number while ``"${PORT}"`` stays a string.
Problems are collected, not raised one by one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from notifier.config.environment import ExpansionError, expand
from notifier.rules.errors import KeyPath, format_path

MAX_DEPTH = 64
MAX_NODES = 100_000  # bounds alias expansion ("billion laughs")
_STR_TAG = "tag:yaml.org,2002:str"


@dataclass(frozen=True, slots=True)
class Position:
    line: int  # 1-based
    column: int  # 1-based


@dataclass(frozen=True, slots=True)
class Spot:
    key: Position | None  # where the key is, for values inside a mapping
    value: Position


@dataclass
class Document:
    data: Any
    spots: dict[KeyPath, Spot] = field(default_factory=dict)
    from_environment: set[KeyPath] = field(default_factory=set)
    problems: list[tuple[KeyPath, Position | None, str]] = field(default_factory=list)

    def locate(self, path: KeyPath, *, prefer_key: bool = False) -> Position | None:
        """The position of ``path``, or of its nearest ancestor that has one."""
        for end in range(len(path), -1, -1):
            spot = self.spots.get(path[:end])
            if spot is not None:
                return (spot.key or spot.value) if prefer_key else spot.value
        return None


def parse_document(text: str, environ: Mapping[str, str]) -> Document:
    """The data of ``text``; YAML and expansion problems are in ``Document.problems``."""
    document = Document(data=None)
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        document.problems.append(((), _position(exc.problem_mark), _yaml_message(exc)))
        return document
    except (yaml.YAMLError, RecursionError) as exc:
        document.problems.append(((), None, f"not valid YAML: {_short(exc)}"))
        return document
    if root is None:
        return document
    try:
        document.data = _Builder(document, environ).build(root, (), None, 0)
    except _TooBigError as exc:
        document.problems.append((exc.path, exc.position, str(exc)))
    return document


def _position(mark: yaml.Mark | None) -> Position | None:
    return None if mark is None else Position(mark.line + 1, mark.column + 1)


def _yaml_message(exc: yaml.MarkedYAMLError) -> str:
    context = f" {exc.context}" if exc.context else ""
    return f"not valid YAML: {exc.problem}{context}"


def _short(exc: BaseException) -> str:
    return (str(exc) or type(exc).__name__).splitlines()[0][:200]


class _Builder:
    def __init__(self, document: Document, environ: Mapping[str, str]) -> None:
        self._document = document
        self._environ = environ
        self._loader = yaml.SafeLoader("")
        self._nodes = 0

    def build(self, node: Node, path: KeyPath, key: Position | None, depth: int) -> Any:
        self._nodes += 1
        if depth > MAX_DEPTH or self._nodes > MAX_NODES:
            raise _TooBigError(path, node)
        self._document.spots.setdefault(path, Spot(key, _mark(node)))
        if isinstance(node, MappingNode):
            return self._mapping(node, path, depth)
        if isinstance(node, SequenceNode):
            return [
                self.build(item, (*path, i), None, depth + 1) for i, item in enumerate(node.value)
            ]
        assert isinstance(node, ScalarNode)
        return self._scalar(node, path)

    def _mapping(self, node: MappingNode, path: KeyPath, depth: int) -> dict[str, Any]:
        self._flatten_merge_keys(node, path)
        result: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, ScalarNode):
                self._problem(path, _mark(key_node), "keys must be plain text")
                continue
            key, where = key_node.value, _mark(key_node)
            if key in result:
                first = self._document.spots[(*path, key)].key
                line = f" (first at line {first.line})" if first else ""
                self._problem((*path, key), where, f"duplicate key {key!r}{line}")
                continue
            result[key] = self.build(value_node, (*path, key), where, depth + 1)
        return result

    def _flatten_merge_keys(self, node: MappingNode, path: KeyPath) -> None:
        try:
            self._loader.flatten_mapping(node)
        except yaml.MarkedYAMLError as exc:
            self._problem(path, _position(exc.problem_mark), _yaml_message(exc))
            node.value = [(k, v) for k, v in node.value if k.tag != "tag:yaml.org,2002:merge"]

    def _scalar(self, node: ScalarNode, path: KeyPath) -> Any:
        if node.tag == _STR_TAG and "$" in node.value:
            return self._expanded(node, path)
        return self._constructed(node, path)

    def _expanded(self, node: ScalarNode, path: KeyPath) -> Any:
        try:
            expansion = expand(node.value, self._environ)
        except ExpansionError as exc:
            self._problem(path, _mark(node), str(exc))
            return node.value
        if not expansion.used:
            return expansion.value
        self._document.from_environment.add(path)
        if node.style is not None:  # quoted: stays a string
            return expansion.value
        tag = self._loader.resolve(ScalarNode, expansion.value, (True, False))  # type: ignore[no-untyped-call]
        return self._constructed(ScalarNode(tag, expansion.value), path)

    def _constructed(self, node: ScalarNode, path: KeyPath) -> Any:
        try:
            return self._loader.construct_object(node, deep=True)
        except (yaml.YAMLError, ValueError, TypeError, OverflowError) as exc:
            self._problem(path, _mark(node), f"invalid value {node.value!r}: {_short(exc)}")
            return node.value

    def _problem(self, path: KeyPath, where: Position | None, message: str) -> None:
        self._document.problems.append((path, where, message))


class _TooBigError(Exception):
    def __init__(self, path: KeyPath, node: Node) -> None:
        super().__init__(f"document too deep or too large at {format_path(path) or 'top'}")
        self.path = path
        self.position = _mark(node)


def _mark(node: Node) -> Position:
    return Position(node.start_mark.line + 1, node.start_mark.column + 1)

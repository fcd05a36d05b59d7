"""Reading YAML while remembering where every value came from.

``parse_document`` composes the YAML (``yaml.compose`` keeps each node's
line and column), builds plain Python data from the nodes and expands
``${VAR}`` references in string values. Later stages report problems by key
path; ``Document.locate`` walks the node tree to that path for its line and
column (``node_tree.py``), so positions cost nothing until one is asked for.

Rules of the road: keys are taken as written (``on:`` stays the string
"on"); duplicate keys are errors; ``<<`` merge keys work as YAML 1.1 says
(a key the mapping sets itself overrides a merged one, and of several merged
mappings the first wins); an unquoted value that is exactly one reference is
typed after expansion, so ``port: ${PORT:-8080}`` is a number while
``"${PORT}"`` stays a string. Problems are collected, not raised one by one.

Bounded: a document of more than ``MAX_BYTES`` is refused before it is
parsed, and building the data stops past ``MAX_NODES`` values or
``MAX_DEPTH`` levels, counting what aliases and merge keys expand to (a
400-byte file of nested merges used to expand to 780 MB); a mapping that
merges a mapping it is part of is a problem, not a recursion without end.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode

from notifier.config.environment import ExpansionError, expand
from notifier.config.libyaml import LOADER, STR_TAG
from notifier.config.node_tree import (
    MAX_DEPTH,
    MAX_NODES,
    NodeWalk,
    Pairs,
    WalkTooLongError,
    pairs_of,
)
from notifier.records import record
from notifier.rules.config.problems import KeyPath, format_path

MAX_BYTES = 1024 * 1024  # what a ConfigMap holds, too

_INT_TAG = "tag:yaml.org,2002:int"
_DECIMAL = re.compile(r"[-+]?(0|[1-9][0-9]{0,17})")  # sexagesimal, 0x, 0o, 1_000: PyYAML's


@record
class Position:
    line: int  # 1-based
    column: int  # 1-based


@dataclass
class Document:
    """The data, the node tree it was built from (positions are looked up in it only when
    asked: a valid file of 20,000 rules asks none), and what went wrong."""

    data: Any
    root: Node | None = None
    from_environment: set[KeyPath] = field(default_factory=set)
    problems: list[tuple[KeyPath, Position | None, str]] = field(default_factory=list)

    def locate(self, path: KeyPath, *, prefer_key: bool = False) -> Position | None:
        """The position of ``path``, or of its nearest ancestor that has one."""
        if self.root is None:
            return None
        key, node = NodeWalk().towards(self.root, path)
        mark = (key or node.start_mark) if prefer_key else node.start_mark
        return _position_of(mark)

    def key_positions(self) -> Iterator[tuple[KeyPath, Position]]:
        """Each key that builds a value of the data, with its path, in the order the data has them
        (at most ``MAX_NODES``: as many as building the data took)."""
        if self.root is None:
            return
        try:
            for path, mark in NodeWalk().keys(self.root):
                yield path, _position_of(mark)
        except WalkTooLongError:
            return


def parse_document(text: str, environ: Mapping[str, str]) -> Document:
    """The data of ``text``; YAML and expansion problems are in ``Document.problems``."""
    document = Document(data=None)
    if len(text) > MAX_BYTES:
        size = f"{len(text.encode('utf-8', 'replace')):,} bytes"
        document.problems.append(((), None, f"config is {size}; at most {MAX_BYTES:,} are read"))
        return document
    root = document.root = _composed(text, document)
    if root is None:
        return document
    try:
        document.data = _Builder(document, environ).build(root, (), 0)
    except _TooBigError as exc:
        document.problems.append((exc.path, exc.position, str(exc)))
    return document


def _composed(text: str, document: Document) -> Node | None:
    """The YAML node tree, or None (empty, or a problem recorded in ``document``)."""
    try:
        node: Node | None = yaml.compose(text, Loader=LOADER)
        return node
    except yaml.MarkedYAMLError as exc:
        problem = ((), _position(exc.problem_mark), _yaml_message(exc))
    except yaml.reader.ReaderError as exc:
        problem = ((), _offset_position(text, exc.position), _reader_message(exc))
    except RecursionError:
        problem = ((), None, f"nested deeper than {MAX_DEPTH} levels (or too deep to read)")
    except yaml.YAMLError as exc:
        problem = ((), None, f"not valid YAML: {_short(exc)}")
    document.problems.append(problem)
    return None


def _position(mark: yaml.Mark | None) -> Position | None:
    return None if mark is None else Position(mark.line + 1, mark.column + 1)


def _yaml_message(exc: yaml.MarkedYAMLError) -> str:
    context = f" {exc.context}" if exc.context else ""
    return f"not valid YAML: {exc.problem}{context}"


def _offset_position(text: str, offset: int) -> Position:
    line_start = text.rfind("\n", 0, offset) + 1
    return Position(text.count("\n", 0, offset) + 1, offset - line_start + 1)


def _reader_message(exc: yaml.reader.ReaderError) -> str:
    character = exc.character if isinstance(exc.character, int) else ord(exc.character)
    return f"binary or control character 0x{character:02x}: a config is UTF-8 text"


def _short(exc: BaseException) -> str:
    return (str(exc) or type(exc).__name__).splitlines()[0][:200]


class _Builder:
    def __init__(self, document: Document, environ: Mapping[str, str]) -> None:
        self._document = document
        self._environ = environ
        self._loader = yaml.SafeLoader("")
        self._nodes = 0

    def build(self, node: Node, path: KeyPath, depth: int) -> Any:
        self._count(path, node, depth)
        if isinstance(node, ScalarNode):  # most values, so asked first
            return self._scalar(node, path)
        if isinstance(node, MappingNode):
            return self._mapping(node, path, depth)
        inner = depth + 1
        return [
            item.value if self._as_written(item, inner) else self.build(item, (*path, i), inner)
            for i, item in enumerate(node.value)
        ]

    def _count(self, path: KeyPath, node: Node, depth: int) -> None:
        self._nodes += 1
        if depth > MAX_DEPTH:
            raise _TooBigError(path, node, f"nested deeper than {MAX_DEPTH} levels")
        if self._nodes > MAX_NODES:
            what = f"more than {MAX_NODES:,} values, counting what aliases and merge keys expand to"
            raise _TooBigError(path, node, what)

    def _as_written(self, node: Node, depth: int) -> bool:
        """Whether ``node`` is text taken as written (most values), counted if so: its value
        is then the data, with no call to ``build`` and no key path made for it."""
        if type(node) is not ScalarNode or node.tag != STR_TAG or "$" in node.value:
            return False
        if depth > MAX_DEPTH or self._nodes >= MAX_NODES:
            return False  # ``build`` says so, with the path
        self._nodes += 1
        return True

    def _mapping(self, node: MappingNode, path: KeyPath, depth: int) -> dict[str, Any]:
        result: dict[str, Any] = {}
        inner = depth + 1
        for key_node, value_node in self._pairs(node, path, depth):
            if type(key_node) is not ScalarNode:
                self._problem(path, _mark(key_node), "keys must be plain text")
                continue
            key = key_node.value
            if key in result:
                self._duplicate(node, path, key_node)
            elif self._as_written(value_node, inner):
                result[key] = value_node.value
            else:
                result[key] = self.build(value_node, (*path, key), inner)
        return result

    def _pairs(self, node: MappingNode, path: KeyPath, depth: int) -> Pairs:
        def bad_merge(source: Node, message: str) -> None:
            self._problem(path, _mark(source), message)

        def merged(merged_node: Node, level: int) -> None:
            self._count(path, merged_node, depth + level)

        return pairs_of(node, bad_merge, merged)

    def _duplicate(self, node: MappingNode, path: KeyPath, key_node: Node) -> None:
        """A key the mapping has twice (merged keys never are: a mapping's own key wins)."""
        key = key_node.value
        first = next(k for k, _ in node.value if isinstance(k, ScalarNode) and k.value == key)
        message = f"duplicate key {key!r} (first at line {first.start_mark.line + 1})"
        self._problem((*path, key), _mark(key_node), message)

    def _scalar(self, node: ScalarNode, path: KeyPath) -> Any:
        if node.tag == STR_TAG:  # text as written, no constructor needed
            return self._expanded(node, path) if "$" in node.value else node.value
        if node.tag == _INT_TAG and _DECIMAL.fullmatch(node.value):  # PyYAML's is slow
            return int(node.value)
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
        if node.style:  # quoted: stays a string (plain is None, or "" from libyaml)
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
    def __init__(self, path: KeyPath, node: Node, what: str) -> None:
        super().__init__(f"{what}, at {format_path(path) or 'the top'}")
        self.path = path
        self.position = _mark(node)


def _mark(node: Node) -> Position:
    return _position_of(node.start_mark)


def _position_of(mark: yaml.Mark) -> Position:
    return Position(mark.line + 1, mark.column + 1)

"""Reading YAML while remembering where every value came from.

``parse_document`` composes the YAML (``yaml.compose`` keeps each node's
line and column), builds plain Python data from the nodes, expands
``${VAR}`` references in string values and records, per key path, the
position of the key and of the value. Later stages report problems by key
path; ``Document.locate`` turns a path into line and column.

Rules of the road: keys are taken as written (``on:`` stays the string
"on"); duplicate keys are errors; ``<<`` merge keys work as YAML 1.1 says
(a key the mapping sets itself overrides a merged one, and of several merged
mappings the first wins); an unquoted value that is exactly one reference is
typed after expansion, so ``port: ${PORT:-8080}`` is a number while
``"${PORT}"`` stays a string. Problems are collected, not raised one by one.

Bounded: a document of more than ``MAX_BYTES`` is refused before it is
parsed, and building the data stops past ``MAX_NODES`` values or
``MAX_DEPTH`` levels, counting what aliases and merge keys expand to (a
400-byte file of nested merges used to expand to 780 MB).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from notifier.config.environment import ExpansionError, expand
from notifier.rules.config.problems import KeyPath, format_path

MAX_BYTES = 1024 * 1024  # what a ConfigMap holds, too
MAX_DEPTH = 64
MAX_NODES = 100_000  # bounds alias and merge expansion ("billion laughs")
_STR_TAG = "tag:yaml.org,2002:str"
_INT_TAG = "tag:yaml.org,2002:int"
_DECIMAL = re.compile(r"[-+]?(0|[1-9][0-9]{0,17})")  # sexagesimal, 0x, 0o, 1_000: PyYAML's
_MERGE_TAG = "tag:yaml.org,2002:merge"
Pairs = list[tuple[Node, Node]]


@dataclass(frozen=True, slots=True)
class Position:
    line: int  # 1-based
    column: int  # 1-based


@dataclass(frozen=True, slots=True)
class Spot:
    """Where a value (and its key, inside a mapping) is: YAML's marks, as kept for every
    value of a large file, turned into a ``Position`` only when one is asked for."""

    key_mark: yaml.Mark | None
    value_mark: yaml.Mark

    @property
    def key(self) -> Position | None:
        return None if self.key_mark is None else _position_of(self.key_mark)

    @property
    def value(self) -> Position:
        return _position_of(self.value_mark)


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
    if len(text) > MAX_BYTES:
        size = f"{len(text.encode('utf-8', 'replace')):,} bytes"
        document.problems.append(((), None, f"config is {size}; at most {MAX_BYTES:,} are read"))
        return document
    root = _composed(text, document)
    if root is None:
        return document
    try:
        document.data = _Builder(document, environ).build(root, (), None, 0)
    except _TooBigError as exc:
        document.problems.append((exc.path, exc.position, str(exc)))
    return document


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """libyaml's parser when PyYAML has it: the same nodes and marks, about 3x faster (a
    1 MB file of 20,000 rules: 0.96 s against 2.7 s), so a refused file is refused quickly.

    The parser asks the (Python) resolver for each node's tag. A mapping's or a list's is
    its kind's (there are no path resolvers); a plain scalar whose first character starts
    no implicit type (``r17``, ``team``) is text; the others are mostly keys written over
    and over (``name``, ``match``), so an answer is kept per value for the file (at most
    ``MAX_BYTES`` of it)."""

    _COLLECTION_TAGS: Mapping[type[Node], str] = {
        MappingNode: "tag:yaml.org,2002:map",
        SequenceNode: "tag:yaml.org,2002:seq",
    }

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._tags: dict[str, str] = {}  # a plain scalar's tag, by its text
        resolvers = self.yaml_implicit_resolvers
        assert None not in resolvers and not self.yaml_path_resolvers  # PyYAML's own, as read
        self._typed_first = frozenset(resolvers)  # first characters an implicit type may have

    def resolve(self, kind: type[Node], value: str | None, implicit: tuple[bool, bool]) -> str:
        if kind is not ScalarNode:
            return self._COLLECTION_TAGS[kind]
        if not implicit[0] or value is None:  # quoted (or tagged ``!``): text, as PyYAML says
            return _STR_TAG
        if value[:1] not in self._typed_first:
            return _STR_TAG
        tag = self._tags.get(value)
        if tag is None:  # the implicit resolvers look at the text alone
            tag = self._tags[value] = super().resolve(kind, value, implicit)
        return tag


_LOADER: Any = _Loader


def _composed(text: str, document: Document) -> Node | None:
    """The YAML node tree, or None (empty, or a problem recorded in ``document``)."""
    try:
        node: Node | None = yaml.compose(text, Loader=_LOADER)
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
        self._spots = document.spots
        self._environ = environ
        self._loader = yaml.SafeLoader("")
        self._nodes = 0

    def build(self, node: Node, path: KeyPath, key: yaml.Mark | None, depth: int) -> Any:
        self._count(path, node, depth)
        spots = self._spots
        if path not in spots:  # a merged value's spot is its own mapping's key
            spots[path] = Spot(key, node.start_mark)
        if isinstance(node, ScalarNode):  # most values, so asked first
            return self._scalar(node, path)
        if isinstance(node, MappingNode):
            return self._mapping(node, path, depth)
        assert isinstance(node, SequenceNode)
        return [self.build(item, (*path, i), None, depth + 1) for i, item in enumerate(node.value)]

    def _count(self, path: KeyPath, node: Node, depth: int) -> None:
        self._nodes += 1
        if depth > MAX_DEPTH:
            raise _TooBigError(path, node, f"nested deeper than {MAX_DEPTH} levels")
        if self._nodes > MAX_NODES:
            what = f"more than {MAX_NODES:,} values, counting what aliases and merge keys expand to"
            raise _TooBigError(path, node, what)

    def _mapping(self, node: MappingNode, path: KeyPath, depth: int) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key_node, value_node in self._pairs(node, path, depth):
            if not isinstance(key_node, ScalarNode):
                self._problem(path, _mark(key_node), "keys must be plain text")
                continue
            key = key_node.value
            if key in result:
                first = self._document.spots[(*path, key)].key
                line = f" (first at line {first.line})" if first else ""
                self._problem((*path, key), _mark(key_node), f"duplicate key {key!r}{line}")
                continue
            result[key] = self.build(value_node, (*path, key), key_node.start_mark, depth + 1)
        return result

    def _pairs(self, node: MappingNode, path: KeyPath, depth: int) -> Pairs:
        """The mapping's own pairs, then merged ones for keys it does not set itself."""
        pairs: Pairs = node.value
        for key_node, _ in pairs:
            if key_node.tag == _MERGE_TAG:
                break
        else:
            return pairs
        own = [(k, v) for k, v in pairs if k.tag != _MERGE_TAG]
        merges = [v for k, v in pairs if k.tag == _MERGE_TAG]
        keys = {k.value for k, _ in own if isinstance(k, ScalarNode)}
        pairs = list(own)
        for source in (m for merge in merges for m in _merge_sources(merge)):
            if not isinstance(source, MappingNode):
                self._problem(
                    path, _mark(source), "a merge key (<<) takes a mapping or a list of them"
                )
                continue
            for key_node, value_node in self._pairs(source, path, depth + 1):
                self._count(path, key_node, depth)
                if isinstance(key_node, ScalarNode) and key_node.value not in keys:
                    keys.add(key_node.value)
                    pairs.append((key_node, value_node))
        return pairs

    def _scalar(self, node: ScalarNode, path: KeyPath) -> Any:
        if node.tag == _STR_TAG:  # most values: text as written, no constructor needed
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


def _merge_sources(merge: Node) -> list[Node]:
    return list(merge.value) if isinstance(merge, SequenceNode) else [merge]


def _mark(node: Node) -> Position:
    return _position_of(node.start_mark)


def _position_of(mark: yaml.Mark) -> Position:
    return Position(mark.line + 1, mark.column + 1)

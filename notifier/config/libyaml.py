"""libyaml's parser, with a resolver that answers most nodes without PyYAML's.

``documents.py`` composes every config with ``LOADER``: the same nodes and
marks PyYAML's own would give, at a third of the cost.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

STR_TAG = "tag:yaml.org,2002:str"


class Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """libyaml's parser when PyYAML has it: the same nodes and marks, about 3x faster (a
    1 MB file of 20,000 rules: 0.96 s against 2.7 s), so a refused file is refused quickly.

    The parser asks the (Python) resolver for each node's tag. A mapping's or a list's is
    its kind's (there are no path resolvers); a plain scalar whose first character starts
    no implicit type (``r17``, ``team``) is text; the others are mostly keys written over
    and over (``name``, ``match``), so an answer is kept per value for the file (at most
    ``MAX_BYTES``, what a config may be, of it)."""

    _COLLECTION_TAGS: Mapping[type[Node], str] = {
        MappingNode: "tag:yaml.org,2002:map",
        SequenceNode: "tag:yaml.org,2002:seq",
    }

    # libyaml's composer calls these two at every node, for PyYAML's path resolvers, which
    # no one registers (asserted below): C callables that do nothing stand in for them, a
    # fifth of the time composing a large file takes.
    descend_resolver = operator.is_  # (parent, index): unused
    ascend_resolver = tuple  # (): unused

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
            return STR_TAG
        if value[:1] not in self._typed_first:
            return STR_TAG
        tag = self._tags.get(value)
        if tag is None:  # the implicit resolvers look at the text alone
            tag = self._tags[value] = super().resolve(kind, value, implicit)
        return tag


LOADER: Any = Loader  # the parser's class is PyYAML's, known to mypy as Any

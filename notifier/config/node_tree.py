"""The YAML node tree as the data is built from it: pairs with merge keys applied, paths.

``pairs_of`` is a mapping's pairs as YAML 1.1's merge key says: its own, then
each merged mapping's for keys it does not set itself (of several merged
mappings the first wins). The builder (``documents.py``) uses it to build the
data; ``NodeWalk`` to find the node a key path names, only when a position is
asked for, so that a valid file keeps no position of its own values.

Bounded: a merge of a mapping it is part of is refused, merges nest at most
``MAX_DEPTH`` levels, and a walk stops past ``MAX_NODES`` nodes, counting what
merges expand to, as building does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from notifier.rules.config.problems import KeyPath

MAX_DEPTH = 64
MAX_NODES = 100_000  # bounds alias and merge expansion ("billion laughs")
MERGE_TAG = "tag:yaml.org,2002:merge"
Pairs = list[tuple[Node, Node]]
BadMerge = Callable[[Node, str], None]  # the merge's node, what is wrong with it
Merged = Callable[[Node, int], None]  # a merged node, how many merges deep


def pairs_of(
    node: MappingNode, bad_merge: BadMerge, merged: Merged, level: int = 0,
    within: tuple[MappingNode, ...] = (),
) -> Pairs:  # fmt: skip
    """The mapping's own pairs, then merged ones for keys it does not set itself; ``merged``
    is told each merged mapping and key (it may raise to stop), ``bad_merge`` each merge
    that cannot be taken."""
    pairs: Pairs = node.value
    for key_node, _ in pairs:
        if key_node.tag == MERGE_TAG:
            break
    else:  # most mappings
        return pairs
    own = [(k, v) for k, v in pairs if k.tag != MERGE_TAG]
    keys = {k.value for k, _ in own if isinstance(k, ScalarNode)}
    merges = [v for k, v in pairs if k.tag == MERGE_TAG]
    pairs, within = list(own), (*within, node)
    for source in (m for merge in merges for m in _merge_sources(merge)):
        problem = _merge_problem(source, within, level)
        if problem:
            bad_merge(source, problem)
            continue
        merged(source, level)
        assert isinstance(source, MappingNode)
        for key_node, value_node in pairs_of(source, bad_merge, merged, level + 1, within):
            merged(key_node, level)
            if isinstance(key_node, ScalarNode) and key_node.value not in keys:
                keys.add(key_node.value)
                pairs.append((key_node, value_node))
    return pairs


def _merge_sources(merge: Node) -> list[Node]:
    return list(merge.value) if isinstance(merge, SequenceNode) else [merge]


def _merge_problem(source: Node, within: tuple[MappingNode, ...], level: int) -> str:
    if not isinstance(source, MappingNode):
        return "a merge key (<<) takes a mapping or a list of them"
    if any(source is mapping for mapping in within):
        return "a merge key (<<) cannot take in a mapping it is part of"
    if level >= MAX_DEPTH:
        return f"merge keys (<<) nested deeper than {MAX_DEPTH} levels"
    return ""


class WalkTooLongError(Exception):
    """A walk went past ``MAX_NODES`` nodes (building the data stopped there too)."""


class NodeWalk:
    """Paths through the tree as the builder took them: keys that are text, the first of
    a key written twice, merged keys; at most ``MAX_NODES`` nodes a walk."""

    def __init__(self) -> None:
        self._visited = 0

    def towards(self, root: Node, path: KeyPath) -> tuple[yaml.Mark | None, Node]:
        """The node at ``path`` below ``root``, or the deepest on its way (with the mark of
        its key, None for a list's item or the root). Asked for each problem of a file: a
        step is a look at a mapping's own keys, and its merged ones only if not there."""
        key, node = None, root
        try:
            for part in path:
                if isinstance(node, MappingNode):
                    found = _own(node, part) or self._merged(node, part)
                    if found is None:
                        break
                    key, node = found
                elif isinstance(node, SequenceNode) and type(part) is int:
                    if not 0 <= part < len(node.value):
                        break
                    key, node = None, node.value[part]
                else:
                    break
        except WalkTooLongError:
            pass
        return key, node

    def _merged(self, node: MappingNode, part: str | int) -> tuple[yaml.Mark, Node] | None:
        if not any(key_node.tag == MERGE_TAG for key_node, _ in node.value):
            return None
        for key_node, value_node in pairs_of(node, _ignored, self._visit):
            if key_node.value == part and isinstance(key_node, ScalarNode):
                return key_node.start_mark, value_node
        return None

    def keys(self, root: Node) -> Iterator[tuple[KeyPath, yaml.Mark]]:
        """Each key of the data below ``root`` with its mark, in the order the data has them."""
        stack: list[tuple[KeyPath, yaml.Mark | None, Node]] = [((), None, root)]
        while stack:
            path, key, node = stack.pop()
            self._visit(node, 0)
            if key is not None:
                yield path, key
            stack.extend(reversed(self._children(path, node)))

    def _children(self, path: KeyPath, node: Node) -> list[tuple[KeyPath, yaml.Mark | None, Node]]:
        if isinstance(node, SequenceNode):
            return [((*path, i), None, item) for i, item in enumerate(node.value)]
        if not isinstance(node, MappingNode):
            return []
        seen: set[str] = set()
        children: list[tuple[KeyPath, yaml.Mark | None, Node]] = []
        for key_node, value_node in pairs_of(node, _ignored, self._visit):
            if isinstance(key_node, ScalarNode) and key_node.value not in seen:
                seen.add(key_node.value)
                children.append(((*path, key_node.value), key_node.start_mark, value_node))
        return children

    def _visit(self, _: Node, __: int) -> None:
        self._visited += 1
        if self._visited > MAX_NODES:
            raise WalkTooLongError


def _own(node: MappingNode, part: str | int) -> tuple[yaml.Mark, Node] | None:
    """The first of ``node``'s own keys named ``part`` (a mapping's own key wins over a merged
    one, and the first of two alike is the one built)."""
    for key_node, value_node in node.value:
        if key_node.value == part and isinstance(key_node, ScalarNode):
            return key_node.start_mark, value_node
    return None


def _ignored(_: Node, __: str) -> None:
    """A merge problem a walk meets: building the data reported it."""

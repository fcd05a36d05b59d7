"""The kinds a config watches: its custom resources made known, every kind checked.

``declare_resources`` registers each ``watch.resources`` entry as a kind (so
rules can name it and its states) and returns the problems found, with
their place: a resource that redefines a built-in kind or repeats another,
and a ``watch.kinds`` entry that is neither built in nor declared. It runs
before the rules are compiled.
"""

from __future__ import annotations

from notifier.config.model import WatchConfig
from notifier.kinds.custom import custom_kind
from notifier.kinds.registry import BUILT_IN_KINDS, register
from notifier.rules.errors import KeyPath
from notifier.rules.predicates import unknown_kind
from notifier.transitions.vocabulary import all_kinds


def declare_resources(watch: WatchConfig) -> list[tuple[KeyPath, str]]:
    problems: list[tuple[KeyPath, str]] = []
    declared: set[str] = set()
    for index, resource in enumerate(watch.resources):
        where: KeyPath = ("watch", "resources", index, "kind")
        if resource.kind in BUILT_IN_KINDS:
            problems.append((where, f"{resource.kind} is a built-in kind: leave it out"))
        elif resource.kind in declared:
            problems.append((where, f"{resource.kind} is declared twice"))
        else:
            declared.add(resource.kind)
            register(custom_kind(resource))
    every = all_kinds()
    for index, kind in enumerate(watch.kinds):
        if kind not in every:
            problems.append((("watch", "kinds", index), unknown_kind(kind, every)))
    return problems

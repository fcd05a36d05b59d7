"""The kinds a config knows: the built-in ones and its custom resources, every kind checked.

``config_kinds`` makes the config's ``Kinds`` (each ``watch.resources`` entry
as a kind, so rules can name it and its states) and returns the problems
found, with their place: a resource that redefines a built-in kind or
repeats another, and a ``watch.kinds`` entry that is neither built in nor
declared. It runs before the rules are compiled, and changes nothing but
what it returns: a refused config leaves every running part as it was.
"""

from __future__ import annotations

from typing import Any

from notifier.config.model import WatchConfig
from notifier.kinds.custom import custom_kind
from notifier.kinds.registry import BUILT_IN_KINDS, KINDS, Kinds
from notifier.kinds.spec import KindSpec
from notifier.rules.config.problems import KeyPath
from notifier.rules.matching.match_compiler import unknown_kind
from notifier.suggestions import Wording


def config_kinds(watch: WatchConfig) -> tuple[Kinds, list[tuple[KeyPath, Wording]]]:
    problems: list[tuple[KeyPath, Wording]] = []
    declared: dict[str, KindSpec[Any]] = {}
    for index, resource in enumerate(watch.resources):
        where: KeyPath = ("watch", "resources", index, "kind")
        if resource.kind in BUILT_IN_KINDS:
            problems.append((where, f"{resource.kind} is a built-in kind: leave it out"))
        elif resource.kind in declared:
            problems.append((where, f"{resource.kind} is declared twice"))
        else:
            declared[resource.kind] = custom_kind(resource)
    kinds = KINDS.declaring(declared.values())
    for index, kind in enumerate(watch.kinds):
        if kind not in kinds:
            problems.append((("watch", "kinds", index), unknown_kind(kind, kinds.all)))
    return kinds, problems

"""From ``inhibit_rules:`` entries to ``CompiledInhibition``s, every problem with its place.

A source's ``to`` names the states that make it active (held now, not just
entered: a Node NotReady for an hour still inhibits); they must be states of
its kinds. Both sides are matched whatever the transition's origin: a source
seen in the initial list is active from the start.
"""

from __future__ import annotations

import re

from notifier.kinds.registry import Kinds
from notifier.origin import Origin
from notifier.rules.config.problems import KeyPath, RuleProblems
from notifier.rules.config.specs import InhibitSpec
from notifier.rules.matching.match_compiler import MatchCompiler
from notifier.rules.suppression.inhibitions import EQUAL_KEYS, CompiledInhibition

_LABEL_KEY = re.compile(r"^label:[A-Za-z0-9./_-]{1,316}$")
_EVERY_ORIGIN = frozenset(Origin)


def compile_inhibition(
    position: int, spec: InhibitSpec, problems: RuleProblems, vocabulary: Kinds
) -> CompiledInhibition | None:
    path: KeyPath = ("inhibit_rules", position)
    before = len(problems.items)
    if not spec.source.to:
        problems.add((*path, "source", "to"), "name the states that make a source active")
    source_only = spec.source.model_copy(update={"to": []})
    source, kinds, _ = MatchCompiler(problems, (*path, "source"), vocabulary).compile(
        source_only, origins=_EVERY_ORIGIN, opt_out_annotation=None
    )
    states = frozenset().union(*(vocabulary.states_for(kind) for kind in kinds))
    for index, name in enumerate(spec.source.to):
        if name not in states:
            where = (*path, "source", "to", index)
            problems.add(where, f"{name!r} is not a state of {'/'.join(sorted(kinds))}")
    target, _, _ = MatchCompiler(problems, (*path, "target"), vocabulary).compile(
        spec.target, origins=_EVERY_ORIGIN, opt_out_annotation=None
    )
    for index, key in enumerate(spec.equal):
        if key not in EQUAL_KEYS and not _LABEL_KEY.match(key):
            expected = ", ".join(EQUAL_KEYS)
            problems.add((*path, "equal", index), f"unknown key {key!r}: {expected} or label:<key>")
    if len(problems.items) > before:
        return None
    return CompiledInhibition(
        spec.name, kinds, frozenset(spec.source.to), source, target, tuple(spec.equal)
    )

"""Inhibition: while a source object is in some states, matching targets are not told.

As Alertmanager's inhibit rules: a Node ``NotReady`` mutes the failures of
the Pods on that node (``equal: [node]``); a Deployment ``Stuck`` mutes its
Pods' ``ImagePullBackOff`` (``equal: [workload]``). Every transition of a
source kind updates which sources are active (the object holds one of the
source's states now); a transition that a target matches and whose
``equal`` values an active source shares is suppressed as ``inhibited``.
An inhibition ends when its source leaves the states or is deleted.

The values compared (``equal``): ``namespace``; ``node`` (a Pod's node, a
Node's own name); ``workload`` (a Deployment, StatefulSet, DaemonSet, Job
or CronJob itself, or the owner of anything else, as ``Kind/name``);
``label:<key>``. A key an object does not have is "", so two objects lacking
it are equal: name keys both have.

``compile_inhibition`` makes one from an ``inhibit_rules:`` entry, every problem
with its place. A source's ``to`` names the states that make it active (held
now, not just entered: a Node NotReady for an hour still inhibits); they must
be states of its kinds. Both sides are matched whatever the transition's
origin: a source seen in the initial list is active from the start.

Pure and thread-safe (one lock over the active sources).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass

from notifier.kinds.registry import Kinds, spec_of
from notifier.objects import EventType, Kind, ObjectKey
from notifier.origin import Origin
from notifier.rules.config.problems import KeyPath, RuleProblems
from notifier.rules.config.specs import InhibitSpec
from notifier.rules.matching.match_compiler import MatchCompiler
from notifier.rules.matching.predicates import Matcher
from notifier.rules.matching.probing import Probe
from notifier.transitions.model import Transition

EQUAL_KEYS = ("namespace", "node", "workload")


@dataclass(frozen=True, slots=True)
class CompiledInhibition:
    name: str
    source_kinds: frozenset[Kind]
    source_states: frozenset[str]  # the source holds one of these now
    source: Matcher  # the source's other conditions (namespaces, labels, ...)
    target: Matcher
    equal: tuple[str, ...]


def equal_values(keys: Sequence[str], probe: Probe) -> tuple[str, ...]:
    return tuple(_value(key, probe) for key in keys)


def _value(key: str, probe: Probe) -> str:
    obj = probe.obj
    if key == "namespace":
        return obj.metadata.namespace
    if key == "workload":
        if spec_of(obj).workload:
            return f"{probe.transition.kind}/{obj.metadata.name}"
        owner = probe.owner
        return f"{owner[0]}/{owner[1]}" if owner else ""
    if key.startswith("label:"):
        return obj.metadata.labels.get(key.removeprefix("label:"), "")
    return spec_of(obj).labels(obj).get(key, "")


class Inhibitor:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        # inhibition name -> source object -> its equal values
        self._active: dict[str, dict[tuple[Kind, ObjectKey], tuple[str, ...]]] = {}

    def observe(self, inhibitions: Sequence[CompiledInhibition], probe: Probe) -> None:
        """Record whether ``probe``'s object is now an active source of each inhibition."""
        transition = probe.transition
        where = (transition.kind, transition.key)
        for inhibition in inhibitions:
            if transition.kind not in inhibition.source_kinds:
                continue
            values = equal_values(inhibition.equal, probe) if _holds(inhibition, probe) else None
            with self._lock:
                sources = self._active.setdefault(inhibition.name, {})
                if values is None:
                    sources.pop(where, None)
                else:
                    sources[where] = values

    def inhibited_by(self, inhibitions: Sequence[CompiledInhibition], probe: Probe) -> str | None:
        """The first inhibition that mutes ``probe``'s transition, if any."""
        for inhibition in inhibitions:
            with self._lock:
                sources = self._active.get(inhibition.name)
                if not sources:
                    continue
                active = set(sources.values())
            if inhibition.target.first_failure(probe) is not None:
                continue
            if equal_values(inhibition.equal, probe) in active:
                return inhibition.name
        return None

    def active(self) -> dict[str, int]:
        """How many sources each inhibition has now (for /debug)."""
        with self._lock:
            return {name: len(sources) for name, sources in self._active.items() if sources}


def _holds(inhibition: CompiledInhibition, probe: Probe) -> bool:
    transition: Transition = probe.transition
    if transition.event is EventType.DELETED:
        return False
    if inhibition.source_states.isdisjoint(transition.new_states):
        return False
    return inhibition.source.first_failure(probe) is None


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

"""The compiled ``match:`` of one rule: a short tuple of predicates tried in order.

Each predicate answers ``test(probe)`` in a few dict or set operations and,
for ``rules test --explain``, says in words why a transition failed it.
Predicates are ordered cheapest and most selective first; the origin check
is always last, so a transition that fails *only* on its origin can be
counted as suppressed at startup rather than as unmatched.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from notifier.objects import EventType, Kind
from notifier.origin import Origin
from notifier.records import record
from notifier.rules.matching.patterns import NameFilter
from notifier.rules.matching.probing import Probe
from notifier.rules.matching.selectors import Selector


class Predicate(Protocol):
    def test(self, probe: Probe) -> bool: ...

    def why_not(self, probe: Probe) -> str: ...


def _listed(names: Iterable[str]) -> str:
    return ", ".join(sorted(names)) or "none"


@record
class KindIs:
    kinds: frozenset[Kind]

    def test(self, probe: Probe) -> bool:
        return probe.transition.kind in self.kinds

    def why_not(self, probe: Probe) -> str:
        return f"kind {probe.transition.kind} is not one of {_listed(self.kinds)}"


@record
class Reaches:
    """``to:``: the transition entered one of these states or carries one of these signals."""

    names: frozenset[str]

    def test(self, probe: Probe) -> bool:
        return not self.names.isdisjoint(probe.reached)

    def why_not(self, probe: Probe) -> str:
        return f"reached {_listed(probe.reached)}, not any of {_listed(self.names)}"


@record
class LeavesFrom:
    """``from:``: one of these states held before the change."""

    names: frozenset[str]

    def test(self, probe: Probe) -> bool:
        return not self.names.isdisjoint(probe.transition.old_states)

    def why_not(self, probe: Probe) -> str:
        before = _listed(probe.transition.old_states)
        return f"states before were {before}, not any of {_listed(self.names)}"


@record
class EventIs:
    events: frozenset[EventType]

    def test(self, probe: Probe) -> bool:
        return probe.transition.event in self.events

    def why_not(self, probe: Probe) -> str:
        return f"event {probe.transition.event} is not one of {_listed(self.events)}"


@record
class NamespaceIn:
    names: NameFilter

    def test(self, probe: Probe) -> bool:
        return self.names.matches(probe.obj.metadata.namespace)

    def why_not(self, probe: Probe) -> str:
        namespace = probe.obj.metadata.namespace
        return f"namespace {namespace!r} does not match {list(self.names.text)}"


@record
class NameIn:
    names: NameFilter

    def test(self, probe: Probe) -> bool:
        return self.names.matches(probe.obj.metadata.name)

    def why_not(self, probe: Probe) -> str:
        return f"name {probe.obj.metadata.name!r} does not match {list(self.names.text)}"


@record
class ReasonIn:
    """``reasons:``: the reason its kind gives (a Job's failure, an Event's, a container's)."""

    reasons: NameFilter

    def test(self, probe: Probe) -> bool:
        return self.reasons.matches(probe.reason)

    def why_not(self, probe: Probe) -> str:
        return f"reason {probe.reason!r} does not match {list(self.reasons.text)}"


@record
class ChangedFields:
    """``fields:``: at least one change at or below one of these dotted paths."""

    prefixes: tuple[str, ...]

    def test(self, probe: Probe) -> bool:
        # A plain loop: any() over a generator costs noticeably more on this hot path.
        for change in probe.transition.changes:  # noqa: SIM110
            if _under(change.path, self.prefixes):
                return True
        return False

    def why_not(self, probe: Probe) -> str:
        changed = [change.path for change in probe.transition.changes]
        return f"changed fields {changed or 'none'} are not under any of {list(self.prefixes)}"


def _under(path: str, prefixes: tuple[str, ...]) -> bool:
    for prefix in prefixes:
        if path.startswith(prefix) and (len(path) == len(prefix) or path[len(prefix)] in ".["):
            return True
    return False


@record
class LabelsMatch:
    selector: Selector

    def test(self, probe: Probe) -> bool:
        return self.selector.matches(probe.obj.metadata.labels)

    def why_not(self, probe: Probe) -> str:
        failing = self.selector.failing(probe.obj.metadata.labels)
        return f"labels do not meet {str(failing)!r} of selector {self.selector.text!r}"


@record
class AnnotationsMatch:
    selector: Selector

    def test(self, probe: Probe) -> bool:
        return self.selector.matches(probe.obj.metadata.annotations)

    def why_not(self, probe: Probe) -> str:
        failing = self.selector.failing(probe.obj.metadata.annotations)
        return f"annotations do not meet {str(failing)!r} of selector {self.selector.text!r}"


@record
class OwnerIs:
    kind: str | None
    names: NameFilter

    def test(self, probe: Probe) -> bool:
        owner = probe.owner
        if owner is None:
            return False
        return (self.kind is None or owner[0] == self.kind) and self.names.matches(owner[1])

    def why_not(self, probe: Probe) -> str:
        owner = probe.owner
        wanted = f"{self.kind or '*'} {list(self.names.text) or '*'}"
        found = "no owner" if owner is None else f"owner {owner[0]} {owner[1]}"
        return f"{found}, wanted {wanted}"


@record
class NamespaceLabelsMatch:
    selector: Selector

    def test(self, probe: Probe) -> bool:
        labels = probe.namespace_labels
        return labels is not None and self.selector.matches(labels)

    def why_not(self, probe: Probe) -> str:
        namespace = probe.obj.metadata.namespace
        if probe.namespace_labels is None:
            return f"labels of namespace {namespace!r} are unknown"
        return f"namespace {namespace!r} labels do not meet {self.selector.text!r}"


@record
class NotOptedOut:
    annotation: str

    def test(self, probe: Probe) -> bool:
        return not probe.opted_out(self.annotation)

    def why_not(self, probe: Probe) -> str:
        return f"the object opted out with annotation {self.annotation}: 'true'"


@record
class OriginIn:
    origins: frozenset[Origin]

    def test(self, probe: Probe) -> bool:
        return probe.transition.origin in self.origins

    def why_not(self, probe: Probe) -> str:
        origin = probe.transition.origin
        return f"origin {origin} is not one of {_listed(self.origins)} (see 'origins')"


@record
class Matcher:
    predicates: tuple[Predicate, ...]

    def first_failure(self, probe: Probe) -> Predicate | None:
        for predicate in self.predicates:
            if not predicate.test(probe):
                return predicate
        return None

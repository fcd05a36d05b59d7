"""A transition as the matchers see it, with the lookups a rule may need.

``EvalContext`` carries what the service injects: the time (for ``until`` and
mute windows), the Namespace-labels lookup for ``namespace_selector`` and the
owner lookup for ``owner``. ``Probe`` wraps one transition for one
evaluation and computes the costly facts (reached names, owner, namespace
labels) at most once, and only if a rule asks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar, cast

from notifier.kinds.registry import spec_of
from notifier.objects import KubeObject
from notifier.transitions.model import Transition
from notifier.transitions.owners import owner_of

NamespaceLabels = Callable[[str], Mapping[str, str] | None]
OwnerLookup = Callable[[KubeObject], tuple[str, str] | None]


def no_namespace_labels(namespace: str) -> Mapping[str, str] | None:
    """The lookup used when the service gives none: every namespace is unknown."""
    return None


def default_owner_of(obj: KubeObject) -> tuple[str, str] | None:
    """The controller, with a ReplicaSet's pods reported as their Deployment's."""
    return owner_of(obj)


@dataclass(frozen=True, slots=True)
class EvalContext:
    now: float  # wall-clock seconds, as time.time()
    namespace_labels: NamespaceLabels = no_namespace_labels
    owner_of: OwnerLookup = default_owner_of


_UNSET: object = object()
_A = TypeVar("_A")
_R = TypeVar("_R")


class Probe:
    """One transition under evaluation; cheap to build, lazy about the rest."""

    __slots__ = ("_labels_of_namespace", "_owner", "_reached", "context", "obj", "transition")

    def __init__(self, transition: Transition, context: EvalContext) -> None:
        self.transition = transition
        self.context = context
        self.obj: KubeObject = transition.obj
        self._reached: frozenset[str] | None = None
        self._owner: object = _UNSET
        self._labels_of_namespace: object = _UNSET

    @property
    def reached(self) -> frozenset[str]:
        if self._reached is None:
            self._reached = self.transition.reached
        return self._reached

    @property
    def owner(self) -> tuple[str, str] | None:
        if self._owner is _UNSET:
            self._owner = safely(self.context.owner_of, self.obj)
        return cast(tuple[str, str] | None, self._owner)

    @property
    def reason(self) -> str:
        """The reason a message would give (the kind's facts); computed only when asked."""
        obj, old = self.obj, self.transition.old
        before = old if type(old) is type(obj) else None
        facts = safely(lambda current: spec_of(current).facts(current, before), obj)
        return "" if facts is None else str(facts["reason"])

    @property
    def namespace_labels(self) -> Mapping[str, str] | None:
        if self._labels_of_namespace is _UNSET:
            lookup = self.context.namespace_labels
            self._labels_of_namespace = safely(lookup, self.obj.metadata.namespace)
        return cast(Mapping[str, str] | None, self._labels_of_namespace)

    def opted_out(self, annotation: str) -> bool:
        return self.obj.metadata.annotations.get(annotation, "").lower() == "true"


def safely(lookup: Callable[[_A], _R | None], argument: _A) -> _R | None:
    """A failing injected lookup counts as "unknown": matching must never raise."""
    try:
        return lookup(argument)
    except Exception:
        return None

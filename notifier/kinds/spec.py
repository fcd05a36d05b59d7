"""What the service must know about a kind, as one value: ``KindSpec``.

Each module of ``notifier.kinds`` builds one ``KindSpec`` and the registry
lists them. Generic code (the source, transitions, rule facts, ``rules
check``, the docs and the chart's RBAC) asks the registry and never names a
kind. Every field is required, so a kind that leaves out a part fails at
import (and at type-check); ``__post_init__`` checks the parts agree.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypedDict, TypeVar

import msgspec

from notifier.kinds.diffing import Diff
from notifier.kinds.sharing import Sharing
from notifier.objects import Kind, KubeObject

T = TypeVar("T", bound=KubeObject)

CREATED = "Created"
DELETED = "Deleted"
COMMON_SIGNALS = {
    CREATED: "the object appeared (`added`)",
    DELETED: "the object went away (`deleted`)",
}


class Facts(TypedDict):
    """What a message says of the object beyond its name: see docs/rules.md."""

    reason: str
    message: str
    container: dict[str, Any] | None
    restart_count: int
    exit_code: int | None
    # The kind's own facts, as label/value pairs the message shows (``Replicas``, ``Capacity``,
    # ``Schedule``...); an empty value is left out.
    details: tuple[tuple[str, str], ...]


REPLICAS = "Replicas"  # a workload's detail, also the template variable ``replicas``


def facts(reason: str = "", message: str = "", details: tuple[tuple[str, str], ...] = ()) -> Facts:
    """The facts of a kind without containers."""
    return Facts(
        reason=reason,
        message=message,
        container=None,
        restart_count=0,
        exit_code=None,
        details=details,
    )


@dataclass(frozen=True)
class ApiResource:
    """Where a kind lives in the API: ``group`` is "" for the core group."""

    group: str
    version: str
    plural: str
    namespaced: bool = True

    @property
    def group_path(self) -> str:
        return f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"

    @property
    def group_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    def path(self, namespace: str | None) -> str:
        if namespace and self.namespaced:
            return f"{self.group_path}/namespaces/{namespace}/{self.plural}"
        return f"{self.group_path}/{self.plural}"


def no_edge_states(old: Any, new: Any, signals: frozenset[str]) -> frozenset[str]:
    return frozenset()


def no_entry_time(obj: Any, states: frozenset[str]) -> float | None:
    return None


def no_signals(old: Any, new: Any) -> Iterable[str]:
    return ()


def no_log_sources(obj: Any) -> tuple[tuple[str, bool], ...]:
    return ()


@dataclass(frozen=True)
class KindSpec(Generic[T]):
    """One kind: its Struct, where it is served, and how its changes are told.

    ``states`` and ``signals`` map each name a rule may use to the fields it
    comes from (docs/transitions.md's tables are made from them);
    ``states_of`` and ``signals_between`` may return only those names.
    ``critical`` and ``warning`` say which states make a message's severity.
    """

    kind: Kind
    struct: type[T]
    api: ApiResource
    summary: str
    states: Mapping[str, str]
    signals: Mapping[str, str]
    states_of: Callable[[T], frozenset[str]]
    diff: Callable[[Diff, T, T], None]
    facts: Callable[[T, T | None], Facts]
    share: Callable[[Sharing, T], T]
    signals_between: Callable[[T, T], Iterable[str]] = no_signals
    edge_states: Callable[[T, T, frozenset[str]], frozenset[str]] = no_edge_states
    owner: Callable[[T], tuple[str, str] | None] | None = None  # None: the controller owner
    # Values inhibition rules may compare (``equal: [node]``): a Pod's node, a Node's name.
    labels: Callable[[T], Mapping[str, str]] = lambda obj: {}
    # Containers whose log ``enrich: [logs]`` attaches: (name, previous instance?).
    log_sources: Callable[[T], tuple[tuple[str, bool], ...]] = no_log_sources
    # When the object entered one of these states, by its own timestamps (a condition's
    # lastTransitionTime); None: it does not say, and a rule's ``for:`` counts from when seen.
    entered_at: Callable[[T, frozenset[str]], float | None] = no_entry_time
    critical: tuple[str, ...] = ()
    warning: tuple[str, ...] = ()
    # States that keep an open incident open without opening one: a rollout not yet
    # complete (an incident ends only once the object is out of them, docs/rules.md).
    unsettled: tuple[str, ...] = ()
    # A workload: its objects own Pods, and inhibition's ``equal: [workload]`` names it.
    workload: bool = False
    # Kinds that own this kind's objects but are not kinds here, and where they are served:
    # owner chains follow them (``enrich: [owners]``), and the chart grants ``get`` on them.
    owned_by: Mapping[str, ApiResource] = field(default_factory=dict)
    all_signals: Mapping[str, str] = field(init=False)

    def __post_init__(self) -> None:
        if self.struct.__struct_config__.tag != self.kind.value:
            raise TypeError(f"{self.struct.__name__} must be tagged {self.kind.value!r}")
        unknown = set(self.critical + self.warning + self.unsettled) - set(self.states) - {DELETED}
        if unknown:
            raise TypeError(f"{self.kind}: severities name unknown states {sorted(unknown)}")
        object.__setattr__(self, "all_signals", {**COMMON_SIGNALS, **self.signals})

    def severity(self, reached: Iterable[str]) -> str:
        """``critical``, ``warning`` or ``info``: the worst of the states reached."""
        names = set(reached)
        if names.intersection(self.critical):
            return "critical"
        return "warning" if names.intersection((*self.warning, DELETED)) else "info"

    def rank(self, state: str) -> tuple[int, int]:
        """How bad ``state`` is, the higher the worse: severity, then its place in the list
        (``OOMKilled`` before ``CrashLoopBackOff``)."""
        for level, names in ((2, self.critical), (1, self.warning)):
            if state in names:
                return (level, len(names) - names.index(state))
        return (0, 0)

    @property
    def names(self) -> frozenset[str]:
        """Every word a rule may use in ``from`` / ``to`` for this kind."""
        return frozenset(self.states) | frozenset(self.all_signals)


def shared_spec(sharing: Sharing, obj: Any) -> Any:
    """The share of a kind whose whole ``spec`` repeats across objects (interned as one value)."""
    return msgspec.structs.replace(
        obj, metadata=sharing.metadata(obj.metadata), spec=sharing.values.intern(obj.spec)
    )

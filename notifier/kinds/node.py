"""Nodes: ready or not, resource pressure, and cordoned (``Unschedulable``).

Cluster-scoped: one watch for the whole cluster whatever ``watch.namespaces``
says. ``Ready``/``NotReady``/``Unknown`` come from the Ready condition the
kubelet keeps (``Unknown``: the node controller stopped hearing from it).
Heartbeat times are not kept: they change every few seconds and would be
news on every update. Each condition's ``lastTransitionTime`` is: a rule's
``for:`` on ``NotReady`` counts from it.
"""

from __future__ import annotations

import msgspec

from notifier.kinds.diffing import Diff
from notifier.kinds.sharing import Sharing
from notifier.kinds.spec import ApiResource, Facts, KindSpec, facts
from notifier.kinds.workload import condition, condition_is
from notifier.objects import Condition, Kind, KubeObject, Wire, timestamp

READINESS = {"True": "Ready", "False": "NotReady", "Unknown": "Unknown"}
PRESSURES = ("MemoryPressure", "DiskPressure", "PIDPressure", "NetworkUnavailable")


class Taint(Wire, frozen=True):
    key: str = ""
    value: str = ""
    effect: str = ""


class NodeSpec(Wire, frozen=True):
    unschedulable: bool = False
    taints: tuple[Taint, ...] = ()


class NodeSystemInfo(Wire, frozen=True):
    kubelet_version: str = ""


class NodeCondition(Condition, frozen=True):
    """A Node's condition keeps when it last changed: ``for:`` on NotReady counts from it."""

    last_transition_time: str = ""


class NodeStatus(Wire, frozen=True):
    conditions: tuple[NodeCondition, ...] = ()
    node_info: NodeSystemInfo = NodeSystemInfo()


class Node(KubeObject, frozen=True, tag="Node"):
    spec: NodeSpec = NodeSpec()
    status: NodeStatus = NodeStatus()


def node_states(node: Node) -> frozenset[str]:
    conditions = node.status.conditions
    states = {name for name in PRESSURES if condition_is(conditions, name)}
    ready = condition(conditions, "Ready")
    if ready is not None:
        states.add(READINESS.get(ready.status, "Unknown"))
    if node.spec.unschedulable:
        states.add("Unschedulable")
    return frozenset(states)


def _entered_at(node: Node, states: frozenset[str]) -> float | None:
    """The earliest ``lastTransitionTime`` of the conditions ``states`` come from."""
    types = {name for name in states if name in PRESSURES}
    if states & set(READINESS.values()):
        types.add("Ready")
    times = [timestamp(c.last_transition_time) for c in node.status.conditions if c.type in types]
    return min((t for t in times if t is not None), default=None)


def _diff(diff: Diff, old: Node, new: Node) -> None:
    diff.flag("spec.unschedulable", old.spec.unschedulable, new.spec.unschedulable)
    if old.spec.taints != new.spec.taints:
        diff.text("spec.taints", _taints(old), _taints(new))
    was, now = old.status, new.status
    diff.text(
        "status.nodeInfo.kubeletVersion",
        was.node_info.kubelet_version,
        now.node_info.kubelet_version,
    )
    diff.conditions(was.conditions, now.conditions)


def _taints(node: Node) -> str:
    return ",".join(f"{t.key}={t.value}:{t.effect}" for t in node.spec.taints)


def _facts(node: Node, old: Node | None) -> Facts:
    conditions = node.status.conditions
    troubled = [
        c
        for c in conditions
        if (c.type == "Ready" and c.status != "True") or (c.type != "Ready" and c.status == "True")
    ]
    chosen = troubled[0] if troubled else condition(conditions, "Ready")
    if chosen is None:
        return facts()
    return facts(chosen.reason, chosen.message)


def _share(sharing: Sharing, node: Node) -> Node:
    return msgspec.structs.replace(
        node,
        metadata=sharing.metadata(node.metadata),
        spec=sharing.values.intern(node.spec),
        status=msgspec.structs.replace(
            node.status,
            conditions=sharing.values.intern(node.status.conditions),
            node_info=sharing.values.intern(node.status.node_info),
        ),
    )


NODE = KindSpec(
    kind=Kind.NODE,
    struct=Node,
    api=ApiResource("", "v1", "nodes", namespaced=False),
    summary="ready or not, resource pressure, cordoned; cluster-scoped",
    states={
        "Ready": "`status.conditions[Ready]` is `True`",
        "NotReady": "`status.conditions[Ready]` is `False`",
        "Unknown": "`status.conditions[Ready]` is `Unknown` (the kubelet stopped reporting)",
        **{name: f"`status.conditions[{name}]` is `True`" for name in PRESSURES},
        "Unschedulable": "`spec.unschedulable` (cordoned)",
    },
    signals={},
    states_of=node_states,
    diff=_diff,
    facts=_facts,
    share=_share,
    labels=lambda node: {"node": node.metadata.name},
    entered_at=_entered_at,
    critical=("NotReady",),
    warning=("Unknown", *PRESSURES),
)

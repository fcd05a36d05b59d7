"""Around the failing Pod: what its containers say, its Node, and its siblings in trouble.

- ``trouble_of``: the Pod's trouble as one reason (``CrashLoopBackOff``,
  ``OOMKilled``, ``ImagePullBackOff``...), the container in it, and what
  tells the cause (an OOM kill's memory limit, a pull error's message);
- ``node_state``: the Node's pressure conditions and taints now, and the
  Pods evicted from it in this namespace within the window (one read of the
  namespace's ``Evicted`` events);
- ``blast_radius``: how many other Pods of the same owner are in the same trouble now.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from notifier.enrichment.changes import BlastRadius, NodeState
from notifier.enrichment.manifests import ContainerStatus, EventList, Node, Pod, PodList
from notifier.enrichment.reads import MAX_POD_LIST, Reads
from notifier.enrichment.rollouts import Window
from notifier.enrichment.templates import shown

POD_LIST_LIMIT = 500
_PRESSURES = ("MemoryPressure", "DiskPressure", "PIDPressure")
_QUIET_WAITS = ("", "ContainerCreating", "PodInitializing")


@dataclass(frozen=True, slots=True)
class Trouble:
    reason: str  # "" when no container is in trouble
    container: str = ""
    detail: str = ""  # the memory limit of an OOM kill, a pull error's message


def trouble_of(pod: Pod) -> Trouble:
    found = next(_troubles(pod), None)
    return found or Trouble(shown(pod.status.reason))


def _troubles(pod: Pod) -> Iterator[Trouble]:
    every = (*pod.spec.init_containers, *pod.spec.containers)
    limits = {c.name: c.resources.get("limits") or {} for c in every}
    for status in (*pod.status.init_container_statuses, *pod.status.container_statuses):
        reason = _reason(status)
        if not reason:
            continue
        detail = ""
        if reason == "OOMKilled":
            memory = limits.get(status.name, {}).get("memory")
            detail = f"memory limit {shown(str(memory))}" if memory else "no memory limit"
        elif reason in ("ImagePullBackOff", "ErrImagePull", "InvalidImageName"):
            detail = shown(status.state.waiting.message) if status.state.waiting else ""
        yield Trouble(shown(reason), shown(status.name), detail)


def _reason(status: ContainerStatus) -> str:
    for state in (status.state, status.last_state):
        if state.terminated is not None and state.terminated.reason == "OOMKilled":
            return "OOMKilled"
    waiting = status.state.waiting
    if waiting is not None and waiting.reason not in _QUIET_WAITS:
        return waiting.reason
    ended = status.state.terminated
    return ended.reason if ended is not None and ended.exit_code != 0 else ""


def node_state(reads: Reads, ns: str, name: str, window: Window) -> NodeState:
    node = reads.read(f"/api/v1/nodes/{name}", {}, Node)
    conditions = {c.type: c.status for c in node.status.conditions}
    pressure = [kind for kind in _PRESSURES if conditions.get(kind) == "True"]
    if conditions.get("Ready", "True") != "True":
        pressure.append("NotReady")
    taints = tuple(shown(f"{t.key}:{t.effect}") for t in node.spec.taints[:10])
    query = {"fieldSelector": "reason=Evicted", "limit": "200"}
    events = reads.read(f"/api/v1/namespaces/{ns}/events", query, EventList).items
    evicted = sum(
        1 for e in events
        if e.source.host == name and window.ago(e.last_timestamp or e.event_time or "") is not None
    )  # fmt: skip
    return NodeState(shown(name), tuple(pressure), taints, evicted)


def blast_radius(
    reads: Reads, ns: str, owner: str, selector: dict[str, str], *, pod: Pod, trouble: Trouble
) -> BlastRadius:
    chosen = ",".join(f"{key}={value}" for key, value in sorted(selector.items()))
    query = {"labelSelector": chosen, "limit": str(POD_LIST_LIMIT)}
    listed = reads.read(f"/api/v1/namespaces/{ns}/pods", query, PodList, max_bytes=MAX_POD_LIST)
    others = [p for p in listed.items if p.metadata.uid != pod.metadata.uid]
    alike = sum(1 for other in others if trouble_of(other).reason == trouble.reason)
    return BlastRadius(owner, trouble.reason, alike, len(listed.items))

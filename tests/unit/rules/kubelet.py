"""The object versions a real kubelet and controller write, as issue #37 recorded them.

Each sequence is a list of ``(seconds, object JSON)``: what the API server holds
from that second on. Kwok writes a crash loop's CrashLoopBackOff once; the
kubelet (v1.35) cycles through Running/Ready for about 2 s, ``terminated``
with Ready False for the whole back-off (10, 20, 40, 80, 160 s) while the phase
stays Running, and ``waiting:CrashLoopBackOff`` for 0.2 s before each start.
"""

from __future__ import annotations

import copy
from typing import Any

Step = tuple[float, dict[str, Any]]
BACK_OFFS = (10.0, 20.0, 40.0, 80.0, 160.0)
RUNS_FOR = 2.0  # how long a crashing container runs before it ends
CREATED = "2024-05-01T10:06:40Z"
EMPTY_DIR_FULL = 'Usage of EmptyDir volume "scratch" exceeds the limit "1Mi". '

_STARTING = [
    {"type": "PodReadyToStartContainers", "status": "False"},
    {"type": "Initialized", "status": "True"},
    {"type": "Ready", "status": "False", "reason": "ContainersNotReady"},
    {"type": "ContainersReady", "status": "False", "reason": "ContainersNotReady"},
    {"type": "PodScheduled", "status": "True"},
]


def pod(
    name: str,
    *,
    restart_policy: str = "Always",
    owner: tuple[str, str] | None = ("ReplicaSet", "web-7d4b9c6f5d"),
) -> dict[str, Any]:
    """A Pod just scheduled: Pending, no status from the kubelet yet (``owner`` None: made
    by no controller)."""
    kind, owner_name = owner or ("", "")
    made: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": "shop",
            "uid": f"uid-{name}",
            "resourceVersion": "1",
            "creationTimestamp": CREATED,
            "labels": {"app": "web", "pod-template-hash": "7d4b9c6f5d"},
            "ownerReferences": [
                {
                    "apiVersion": "v1",
                    "kind": kind,
                    "name": owner_name,
                    "uid": "o",
                    "controller": True,
                }
            ],
        },
        "spec": {
            "nodeName": "node-a",
            "restartPolicy": restart_policy,
            "containers": [{"name": "app", "image": "registry.example/app:1"}],
        },
        "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "True"}]},
    }
    if owner is None:
        del made["metadata"]["ownerReferences"]
    return made


def with_status(base: dict[str, Any], version: int, **status: Any) -> dict[str, Any]:
    """``base`` at resourceVersion ``version`` with this status."""
    result = copy.deepcopy(base)
    result["metadata"]["resourceVersion"] = str(version)
    result["status"] = status
    return result


def container(
    state: dict[str, Any],
    restarts: int = 0,
    last: dict[str, Any] | None = None,
    ready: bool = False,
) -> dict[str, Any]:
    return {
        "name": "app",
        "image": "registry.example/app:1",
        "ready": ready,
        "restartCount": restarts,
        "state": state,
        "lastState": last or {},
    }


def _ready(value: bool, reason: str = "ContainersNotReady") -> list[dict[str, Any]]:
    if value:
        return [{"type": "Ready", "status": "True"}, {"type": "ContainersReady", "status": "True"}]
    return [
        {"type": "Ready", "status": "False", "reason": reason},
        {"type": "ContainersReady", "status": "False", "reason": reason},
    ]


def _ended(reason: str, code: int) -> dict[str, Any]:
    return {"terminated": {"exitCode": code, "reason": reason, "finishedAt": CREATED}}


def crash_loop(
    name: str = "crashy",
    reason: str = "Error",
    code: int = 1,
    back_offs: tuple[float, ...] = BACK_OFFS,
    *,
    recovers: bool = False,
    owner: tuple[str, str] | None = ("ReplicaSet", "web-7d4b9c6f5d"),
) -> list[Step]:
    """A container that ends ``RUNS_FOR`` after each start, through these back-offs; with
    ``recovers``, it then keeps running."""
    base, at, version = pod(name, owner=owner), 0.0, 2
    creating = container({"waiting": {"reason": "ContainerCreating"}})
    steps: list[Step] = [(at, with_status(base, version, phase="Pending", conditions=_STARTING,
                                          containerStatuses=[creating]))]  # fmt: skip
    last: dict[str, Any] | None = None
    for restarts, back_off in enumerate((*back_offs, None)):
        at += 1.0 if restarts == 0 else 0.2
        running = container({"running": {}}, restarts, last, ready=True)
        steps.append((at, _running(base, version := version + 1, True, running)))
        if recovers and back_off is None:
            break
        at += RUNS_FOR
        ended = container(_ended(reason, code), restarts, last)
        steps.append((at, _running(base, version := version + 1, False, ended)))
        if back_off is None:
            break
        last = _ended(reason, code)
        at += back_off - 0.2
        waiting = container(
            {"waiting": {"reason": "CrashLoopBackOff", "message": f"back-off {back_off:.0f}s"}},
            restarts,
            last,
        )
        steps.append((at, _running(base, version := version + 1, False, waiting)))
    return steps


def _running(
    base: dict[str, Any], version: int, ready: bool, one: dict[str, Any]
) -> dict[str, Any]:
    """Phase Running with one container, Ready or not."""
    return with_status(
        base, version, phase="Running", conditions=_ready(ready), containerStatuses=[one]
    )


def oom_killed_again(loop: list[Step], after: float) -> list[Step]:
    """``loop`` (one that recovers), then its container OOM-killed once more ``after`` seconds
    past its last step and started again 10 s later: restartCount rises, ``lastState`` the
    new kill."""
    at, last = loop[-1]
    base = copy.deepcopy(last)
    [running] = base["status"]["containerStatuses"]
    restarts, version = running["restartCount"], int(last["metadata"]["resourceVersion"])
    killed = _ended("OOMKilled", 137)
    ended = container(killed, restarts, running["lastState"])
    again = container({"running": {}}, restarts + 1, killed, ready=True)
    return [
        *loop,
        (at + after, _running(base, version + 1, False, ended)),
        (at + after + 10.0, _running(base, version + 2, True, again)),
    ]


def oom_never(name: str = "hungry") -> list[Step]:
    """restartPolicy Never: killed before Running was posted, Failed 1.1 s later."""
    base = pod(name, restart_policy="Never")
    creating = container({"waiting": {"reason": "ContainerCreating"}})
    killed = container(_ended("OOMKilled", 137))
    return [
        (0.0, with_status(base, 2, phase="Pending", conditions=_STARTING,
                          containerStatuses=[creating])),
        (1.0, with_status(base, 3, phase="Pending", conditions=_ready(False, "PodFailed"),
                          containerStatuses=[killed])),
        (2.1, with_status(base, 4, phase="Failed", conditions=_ready(False, "PodFailed"),
                          containerStatuses=[killed])),
    ]  # fmt: skip


def image_pull(name: str = "pull", changes: int = 9, span: float = 204.0) -> list[Step]:
    """ErrImagePull, then ImagePullBackOff and ErrImagePull alternating at every retry."""
    base = pod(name)
    creating = container({"waiting": {"reason": "ContainerCreating"}})
    steps: list[Step] = [(0.0, with_status(base, 2, phase="Pending", conditions=_STARTING,
                                           containerStatuses=[creating]))]  # fmt: skip
    for change in range(changes):
        reason = "ErrImagePull" if change % 2 == 0 else "ImagePullBackOff"
        waiting = container({"waiting": {"reason": reason, "message": "not found"}})
        steps.append((1.0 + change * span / changes, with_status(
            base, 3 + change, phase="Pending", conditions=_STARTING, containerStatuses=[waiting]
        )))  # fmt: skip
    return steps


def job_pod(name: str, *, fails: bool) -> list[Step]:
    """A Job's Pod that runs and ends: Running with Ready False/PodCompleted (or PodFailed)
    and a terminated container for about a second, then Succeeded (or Failed)."""
    base = pod(name, restart_policy="Never", owner=("Job", "nightly"))
    creating = container({"waiting": {"reason": "ContainerCreating"}})
    running = container({"running": {}}, ready=True)
    reason, code = ("Error", 1) if fails else ("Completed", 0)
    why = "PodFailed" if fails else "PodCompleted"
    ended = container(_ended(reason, code))
    return [
        (0.0, with_status(base, 2, phase="Pending", conditions=_STARTING,
                          containerStatuses=[creating])),
        (1.0, with_status(base, 3, phase="Running", conditions=_ready(True),
                          containerStatuses=[running])),
        (5.0, with_status(base, 4, phase="Running", conditions=_ready(False, why),
                          containerStatuses=[ended])),
        (6.0, with_status(base, 5, phase="Failed" if fails else "Succeeded",
                          conditions=_ready(False, why), containerStatuses=[ended])),
    ]  # fmt: skip


def never_ready(name: str = "unready", span: float = 30.0) -> list[Step]:
    """A readiness probe that never passes: Running, its container running, never Ready."""
    base = pod(name)
    creating = container({"waiting": {"reason": "ContainerCreating"}})
    running = container({"running": {"startedAt": "2026-11-01T00:00:01Z"}})
    return [
        (0.0, base),
        (0.5, with_status(base, 2, phase="Pending", conditions=_STARTING,
                          containerStatuses=[creating])),
        (1.0, _running(base, 3, False, running)),
        (span, _running(base, 4, False, running)),
    ]  # fmt: skip


def stuck_creating(name: str = "nosandbox", span: float = 180.0) -> list[Step]:
    """FailedCreatePodSandBox: Pending with ``waiting:ContainerCreating`` and nothing else."""
    base = pod(name)
    creating = container({"waiting": {"reason": "ContainerCreating"}})
    return [
        (0.0, base),
        (0.5, with_status(base, 2, phase="Pending", conditions=_STARTING,
                          containerStatuses=[creating])),
        (span, with_status(base, 3, phase="Pending", conditions=_STARTING,
                           containerStatuses=[creating], message="still creating")),
    ]  # fmt: skip


def evicted(name: str = "filler", *, code: int = 0, failed_first: bool = False) -> list[Step]:
    """Evicted past its emptyDir's limit (tests/data/kubelet/eviction*.yaml): exit 143 on
    SIGTERM ends it ``Failed``/``Evicted``; exit 0, ``Succeeded`` with no reason at all,
    which the kubelet may post 0.1 s after a ``Failed``/``Evicted`` with the container still
    running (``failed_first``, seen once in three runs)."""
    base = pod(name, owner=None)
    creating = container({"waiting": {"reason": "ContainerCreating"}})
    running = container({"running": {}}, ready=True)
    if code == 0:
        phase, why, ended, told = "Succeeded", "PodCompleted", _ended("Completed", 0), {}
    else:
        phase, why, ended = "Failed", "PodFailed", _ended("Error", code)
        told = {"reason": "Evicted", "message": EMPTY_DIR_FULL}
    steps = [
        (0.0, base),
        (0.2, with_status(base, 2, phase="Pending", conditions=_STARTING,
                          containerStatuses=[creating])),
        (2.0, _running(base, 3, True, running)),
        (6.0, with_status(base, 5, phase=phase, **told,
                          conditions=_ready(False, why), containerStatuses=[container(ended)])),
    ]  # fmt: skip
    if failed_first:
        first = with_status(
            base,
            4,
            phase="Failed",
            reason="Evicted",
            message=EMPTY_DIR_FULL,
            conditions=_ready(False, "PodFailed"),
            containerStatuses=[running],
        )
        steps.insert(3, (5.9, first))
    return steps


def node(ready: str, version: int, *, tainted: bool = False) -> dict[str, Any]:
    """A Node whose conditions all say ``ready`` (True, or Unknown once it stopped posting)."""
    pressures = "False" if ready == "True" else "Unknown"
    conditions = [{"type": "Ready", "status": ready, "reason": "KubeletReady",
                   "lastTransitionTime": CREATED}]  # fmt: skip
    conditions += [
        {"type": kind, "status": pressures, "lastTransitionTime": CREATED}
        for kind in ("MemoryPressure", "DiskPressure", "PIDPressure")
    ]
    taints = [{"key": "node.kubernetes.io/unreachable", "effect": "NoSchedule"}] if tainted else []
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "node-a", "uid": "node-uid", "resourceVersion": str(version),
                     "creationTimestamp": CREATED},
        "spec": {"taints": taints},
        "status": {"conditions": conditions},
    }  # fmt: skip


def node_lost_and_back(back_at: float = 120.0) -> list[Step]:
    """Every condition Unknown, the taint in a second write, then Ready again."""
    return [
        (0.0, node("True", 1)),
        (40.0, node("Unknown", 2)),
        (40.1, node("Unknown", 3, tainted=True)),
        (back_at, node("True", 4, tainted=True)),
        (back_at + 0.5, node("True", 5)),
    ]


def deployment(version: int, generation: int = 1, **status: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "shop", "uid": "d-uid", "generation": generation,
                     "resourceVersion": str(version), "creationTimestamp": CREATED},
        "spec": {"replicas": 2, "progressDeadlineSeconds": 600,
                 "template": {"spec": {"containers": [{"name": "web", "image": "web:1"}]}}},
        "status": status,
    }  # fmt: skip


_DEADLINE = "ProgressDeadlineExceeded"


def _condition(kind: str, status: str, reason: str) -> dict[str, Any]:
    return {"type": kind, "status": status, "reason": reason}


def _rolling(version: int, reason: str = "ReplicaSetUpdated") -> dict[str, Any]:
    return deployment(version, observedGeneration=1, replicas=2, updatedReplicas=2,
                      unavailableReplicas=2, conditions=[
                          _condition("Available", "False", "MinimumReplicasUnavailable"),
                          _condition("Progressing", "True", reason)])  # fmt: skip


def new_deployment() -> list[Step]:
    """Created, short of pods for a moment (Available False), then complete."""
    done = deployment(4, observedGeneration=1, replicas=2, updatedReplicas=2, readyReplicas=2,
                      availableReplicas=2, conditions=[
                          _condition("Available", "True", "MinimumReplicasAvailable"),
                          _condition("Progressing", "True", "NewReplicaSetAvailable")])  # fmt: skip
    return [(0.0, deployment(1)), (0.05, _rolling(2, "NewReplicaSetCreated")), (0.1, _rolling(3)),
            (4.0, done)]  # fmt: skip


def deployment_stuck_twice() -> list[Step]:
    """A bad image: Stuck at its deadline; the node lost and back makes new pods, so it
    progresses again and is Stuck again, never having completed."""
    stuck = deployment(4, observedGeneration=1, replicas=2, updatedReplicas=2,
                       unavailableReplicas=2, conditions=[
                           _condition("Available", "False", "MinimumReplicasUnavailable"),
                           _condition("Progressing", "False", _DEADLINE)])  # fmt: skip
    again = copy.deepcopy(stuck)
    again["metadata"]["resourceVersion"] = "6"
    return [(0.0, deployment(1)), (0.05, _rolling(2, "NewReplicaSetCreated")), (0.1, _rolling(3)),
            (600.0, stuck), (900.0, _rolling(5)), (1500.0, again)]  # fmt: skip


def job_failing(name: str = "nightly", at: float = 8.0) -> list[Step]:
    """The Job whose Pods fail: running, then Failed (BackoffLimitExceeded) at ``at``."""
    base: dict[str, Any] = {
        "apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": name, "namespace": "shop", "uid": f"uid-{name}",
                     "resourceVersion": "1", "creationTimestamp": CREATED},
        "spec": {"backoffLimit": 1, "template": {"spec": {"containers": [
            {"name": "app", "image": "registry.example/app:1"}]}}},
        "status": {"active": 1},
    }  # fmt: skip
    failed = with_status(base, 2, failed=2, conditions=[
        {"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded"}])  # fmt: skip
    return [(0.0, base), (at, failed)]

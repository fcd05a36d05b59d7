"""Pods: phases, readiness, containers in trouble (crash loops, OOM kills, pull errors).

States are levels read from one version of the Pod; ``RestartCountIncreased``
is the one signal. An OOM kill followed at once by a restart may never be
seen down, so ``edge_states`` adds ``OOMKilled`` to the one transition in
which the restart shows (docs/transitions.md says why).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import chain

import msgspec

from notifier.kinds.containers import (
    OOM_KILLED,
    ContainerStatus,
    container_facts,
    down_after_oom,
    last_oom,
    log_sources,
    restarted,
    share_statuses,
    status_fields,
)
from notifier.kinds.diffing import Diff, name_of
from notifier.kinds.sharing import Sharing
from notifier.kinds.spec import ApiResource, Facts, KindSpec
from notifier.kinds.workload import PodSpec, condition, diff_pod_spec, share_pod_spec
from notifier.objects import Condition, Kind, KubeObject, Wire, controller_of

PHASES = ("Pending", "Running", "Succeeded", "Failed", "Unknown")
WAITING_STATES = (
    "CrashLoopBackOff",
    "ImagePullBackOff",
    "ErrImagePull",
    "CreateContainerConfigError",
)
CRASH_LOOP = "CrashLoopBackOff"
CREATING = "ContainerCreating"
RESTARTED = "RestartCountIncreased"
# The Ready condition's reasons once a Pod's containers have all ended (a Job's Pod): its
# readiness is over, not lost.
_FINISHED = frozenset({"PodCompleted", "PodFailed"})
EVICTED = "Evicted"
# The condition the kubelet and the controllers set on a Pod they end, and the one reason of
# it that is the kubelet's own (node pressure, node shutdown); the others (the scheduler's
# preemption, the taint manager, the Eviction API, the pod GC) come with a deletion: the
# Pod is ``Terminating`` (docs/transitions.md, "Evicted").
DISRUPTION = "DisruptionTarget"
BY_KUBELET = "TerminationByKubelet"
# What a message says of an eviction that left no words on the Pod (its Events hold them).
ENDED_BY_KUBELET = (
    "the kubelet stopped this Pod although its restartPolicy is Always (an eviction: "
    "the Pod's Events say why)"
)


class PodStatus(Wire, frozen=True):
    # ``startTime`` is left out (nothing reads it): without it, a Pod's status holds no
    # per-object value in the common case and is shared whole (``_share``).
    phase: str = ""
    reason: str = ""
    message: str = ""
    conditions: tuple[Condition, ...] = ()
    container_statuses: tuple[ContainerStatus, ...] = ()
    init_container_statuses: tuple[ContainerStatus, ...] = ()


class Pod(KubeObject, frozen=True, tag="Pod"):
    spec: PodSpec = PodSpec()
    status: PodStatus = PodStatus()


def pod_states(pod: Pod) -> frozenset[str]:
    status = pod.status
    states = set(_container_states(status))
    phase = status.phase or "Pending"
    if _backing_off(pod, phase):
        states.add(CRASH_LOOP)
    if phase in PHASES:
        states.add(phase)
    if phase == "Running":
        states.update(_readiness(status.conditions))
    if evicted(pod):
        states.add(EVICTED)
    if pod.metadata.deletion_timestamp:
        states.add("Terminating")
    return frozenset(states)


def evicted(pod: Pod) -> bool:
    """The kubelet evicted the Pod.

    Its reason says so while the phase is ``Failed``. A program that exits 0 on SIGTERM
    leaves the Pod ``Succeeded`` and the kubelet drops the reason with the phase: then its
    ``DisruptionTarget`` condition says so (node pressure), or nothing on the Pod does (an
    emptyDir or ephemeral-storage limit) but that it ended while its restart policy is
    ``Always`` and no one deleted it, which only the kubelet does.
    """
    status = pod.status
    return status.reason == EVICTED or _eviction(status) is not None or _ended_by_kubelet(pod)


def _eviction(status: PodStatus) -> Condition | None:
    """The kubelet's ``DisruptionTarget`` condition, when it is set and ``True``."""
    found = condition(status.conditions, DISRUPTION)
    ended = found is not None and found.status == "True" and found.reason == BY_KUBELET
    return found if ended else None


def _ended_by_kubelet(pod: Pod) -> bool:
    always = (pod.spec.restart_policy or "Always") == "Always"
    return always and pod.status.phase == "Succeeded" and not pod.metadata.deletion_timestamp


def restarted_containers(old: Pod, new: Pod) -> list[ContainerStatus]:
    """Containers (init ones included) of ``new`` whose restartCount grew since ``old``."""
    return [
        *restarted(old.status.init_container_statuses, new.status.init_container_statuses),
        *restarted(old.status.container_statuses, new.status.container_statuses),
    ]


def oom_restarted(old: Pod, new: Pod) -> bool:
    """A container restarted between ``old`` and ``new`` after an OOM kill."""
    return any(last_oom(status) for status in restarted_containers(old, new))


def _signals(old: Pod, new: Pod) -> Iterator[str]:
    if restarted_containers(old, new):
        yield RESTARTED


def _edge_states(old: Pod, new: Pod, signals: frozenset[str]) -> frozenset[str]:
    if RESTARTED in signals and oom_restarted(old, new):
        return frozenset({OOM_KILLED})
    return frozenset()


def _all_statuses(status: PodStatus) -> Iterator[ContainerStatus]:
    return chain(status.init_container_statuses, status.container_statuses)


def _container_states(status: PodStatus) -> Iterator[str]:
    for container in _all_statuses(status):
        waiting = container.state.waiting
        if waiting is not None and waiting.reason in WAITING_STATES:
            yield waiting.reason
        if waiting is not None and waiting.reason == CREATING:
            yield CREATING
        if down_after_oom(container):
            yield OOM_KILLED


def _readiness(conditions: Iterable[Condition]) -> Iterator[str]:
    """Ready / NotReady from the Ready condition; nothing when the kubelet has not set it, nor
    once every container has ended (``PodCompleted``, ``PodFailed``: a Job's Pod)."""
    ready = condition(tuple(conditions), "Ready")
    if ready is not None and ready.reason not in _FINISHED:
        yield "Ready" if ready.status == "True" else "NotReady"


def _backing_off(pod: Pod, phase: str) -> bool:
    """A container ended and the kubelet will start it again after its back-off.

    The kubelet shows ``terminated`` for the whole back-off and ``waiting:CrashLoopBackOff``
    only for the moment before the next start, so both are the crash loop.
    """
    if phase not in ("Running", "Pending") or pod.metadata.deletion_timestamp:
        return False
    policy = pod.spec.restart_policy or "Always"
    if policy == "Never":
        return False
    status = pod.status
    main = (c.state.terminated for c in status.container_statuses)
    init = (c.state.terminated for c in status.init_container_statuses)
    return any(
        ended is not None and (policy == "Always" or ended.exit_code != 0) for ended in main
    ) or any(ended is not None and ended.exit_code != 0 for ended in init)


def _diff(diff: Diff, old: Pod, new: Pod) -> None:
    diff_pod_spec(diff, "spec", old.spec, new.spec)
    if old.status == new.status:
        return
    was, now = old.status, new.status
    diff.text("status.phase", was.phase, now.phase)
    diff.text("status.reason", was.reason, now.reason)
    diff.text("status.message", was.message, now.message)
    diff.conditions(was.conditions, now.conditions)
    init_old, init_new = was.init_container_statuses, now.init_container_statuses
    diff.keyed("status.initContainerStatuses", init_old, init_new, name_of, status_fields)
    main_old, main_new = was.container_statuses, now.container_statuses
    diff.keyed("status.containerStatuses", main_old, main_new, name_of, status_fields)


def _facts(pod: Pod, old: Pod | None) -> Facts:
    container = container_facts(
        pod.status.container_statuses + pod.status.init_container_statuses,
        () if old is None else old.status.container_statuses + old.status.init_container_statuses,
    )
    statuses = pod.status.container_statuses + pod.status.init_container_statuses
    reason, message = _told(pod)
    return Facts(
        reason=reason or (container["reason"] if container else ""),
        message=message or (container["message"] if container else ""),
        container=container,
        restart_count=sum(status.restart_count for status in statuses),
        exit_code=container["exit_code"] if container else None,
        details=(),
    )


def _told(pod: Pod) -> tuple[str, str]:
    """The Pod's own reason and message; for an eviction the phase did not keep, the
    kubelet's words on its condition, or ours where it left none."""
    status = pod.status
    if status.reason or not evicted(pod):
        return status.reason, status.message
    eviction = _eviction(status)
    return EVICTED, eviction.message if eviction is not None else ENDED_BY_KUBELET


def _share(sharing: Sharing, pod: Pod) -> Pod:
    return msgspec.structs.replace(
        pod,
        metadata=sharing.metadata(pod.metadata),
        spec=share_pod_spec(sharing, pod.spec),
        # A status the table holds (unchanged by this change, or another Pod's) is
        # shared whole by one lookup: its parts are shared already.
        status=sharing.values.lookup(pod.status) or _share_status(sharing, pod.status),
    )


def _share_status(sharing: Sharing, status: PodStatus) -> PodStatus:
    """A status the table does not hold, its parts shared, then held (``lookup`` missed)."""
    intern = sharing.values.intern
    return sharing.values.add(
        msgspec.structs.replace(
            status,
            phase=intern(status.phase),
            reason=intern(status.reason),
            conditions=sharing.conditions(status.conditions),
            container_statuses=share_statuses(sharing, status.container_statuses),
            init_container_statuses=share_statuses(sharing, status.init_container_statuses),
        )
    )


_CONTAINERS = "`status.(init)ContainerStatuses[*]`"
POD_TEMPLATE_HASH = "pod-template-hash"


def pod_owner(pod: Pod) -> tuple[str, str] | None:
    """The Pod's controller, a Deployment for its ReplicaSets' Pods.

    The deployment controller names its ReplicaSets ``<deployment>-<pod-template-hash>``
    and stamps the same hash on the Pods (the ``pod-template-hash`` label); a ReplicaSet
    whose name does not end in the Pod's hash (one made by hand) stays itself.
    """
    ref = controller_of(pod)
    if ref is None:
        return None
    suffix = f"-{pod.metadata.labels.get(POD_TEMPLATE_HASH, '')}"
    deployment = ref.name.removesuffix(suffix) if len(suffix) > 1 else ref.name
    if ref.kind == "ReplicaSet" and deployment and deployment != ref.name:
        return ("Deployment", deployment)
    return (ref.kind, ref.name)


POD = KindSpec(
    kind=Kind.POD,
    struct=Pod,
    api=ApiResource("", "v1", "pods"),
    summary="phases, readiness and containers in trouble",
    states={
        **{phase: "`status.phase` (empty counts as `Pending`)" for phase in PHASES},
        "Ready": "`status.conditions[Ready]` is `True`, while `Running`",
        "NotReady": "`status.conditions[Ready]` is not `True`, while `Running`, and not "
        "because every container ended (reason `PodCompleted`, `PodFailed`)",
        **{reason: f"{_CONTAINERS}`.state.waiting.reason`" for reason in WAITING_STATES},
        CRASH_LOOP: f"{_CONTAINERS}`.state.waiting.reason`, or a container `terminated` "
        "that the restart policy starts again (the kubelet's back-off), while `Running` or "
        "`Pending` and not `Terminating`",
        CREATING: f"{_CONTAINERS}`.state.waiting.reason`: normal for seconds at a start; "
        "with `for:` a Pod stuck creating (a sandbox that cannot be made, "
        "`FailedCreatePodSandBox`; volumes that do not mount, `FailedMount`)",
        OOM_KILLED: f"{_CONTAINERS}: terminated `OOMKilled`, or waiting after one",
        EVICTED: '`status.reason == "Evicted"`; or, as an evicted program that exits 0 '
        "leaves the Pod `Succeeded` with no reason, `status.conditions[DisruptionTarget]` "
        "`True/TerminationByKubelet`, or `Succeeded` with `spec.restartPolicy` `Always` "
        "and not `Terminating`",
        "Terminating": "`metadata.deletionTimestamp` is set",
    },
    signals={RESTARTED: f"{_CONTAINERS}`.restartCount` grew (matched by name)"},
    states_of=pod_states,
    signals_between=_signals,
    edge_states=_edge_states,
    diff=_diff,
    facts=_facts,
    share=_share,
    owner=pod_owner,
    owned_by={
        "ReplicaSet": ApiResource("apps", "v1", "replicasets"),
        "ReplicationController": ApiResource("", "v1", "replicationcontrollers"),
    },
    labels=lambda pod: {"node": pod.spec.node_name},
    log_sources=lambda pod: log_sources(
        pod.status.init_container_statuses + pod.status.container_statuses
    ),
    critical=(OOM_KILLED, *WAITING_STATES, EVICTED, "Failed"),
    warning=("NotReady", "Terminating", "Unknown"),
)

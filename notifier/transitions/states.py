"""States: the levels an object is in, derived from one version of it.

Contract: ``states_of(obj)`` reads only ``obj``, never raises on odd objects
(missing status, unknown phases, empty containers) and returns only names
from ``notifier.transitions.vocabulary``. A state holds for as long as the
fields it is derived from say so; docs/transitions.md lists each one with
its field. Services have no states.

One state needs a second version to be seen reliably: a container that is
OOM-killed and restarted at once may never be observed down. For that edge
``oom_restarted(old, new)`` tells the detector to count OOMKilled for the
one transition in which it happened (see docs/transitions.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import chain

from notifier.objects import (
    Condition,
    ContainerStatus,
    Deployment,
    KubeObject,
    Pod,
    PodStatus,
)
from notifier.transitions.changes import changed_items, name_of
from notifier.transitions.vocabulary import POD_PHASES

OOM_KILLED = "OOMKilled"
WAITING_STATES = frozenset(
    {"CrashLoopBackOff", "ImagePullBackOff", "ErrImagePull", "CreateContainerConfigError"}
)
NO_STATES: frozenset[str] = frozenset()

# A rollout is finished once the Progressing condition carries this reason.
_ROLLOUT_FINISHED = "NewReplicaSetAvailable"
_DEADLINE_EXCEEDED = "ProgressDeadlineExceeded"


def states_of(obj: KubeObject) -> frozenset[str]:
    """The states ``obj`` is in now."""
    if isinstance(obj, Pod):
        return pod_states(obj)
    if isinstance(obj, Deployment):
        return deployment_states(obj)
    return NO_STATES


def pod_states(pod: Pod) -> frozenset[str]:
    status = pod.status
    states = set(_container_states(status))
    phase = status.phase or "Pending"
    if phase in POD_PHASES:
        states.add(phase)
    if phase == "Running":
        states.update(_readiness(status.conditions))
    if status.reason == "Evicted":
        states.add("Evicted")
    if pod.metadata.deletion_timestamp:
        states.add("Terminating")
    return frozenset(states)


def deployment_states(deployment: Deployment) -> frozenset[str]:
    conditions = deployment.status.conditions
    progressing = condition(conditions, "Progressing")
    states = set(_availability(conditions))
    if deployment.spec.paused:
        states.add("Paused")
    if _is_replica_failure(conditions):
        states.add("ReplicaFailure")
    states.update(_rollout_state(deployment, progressing))
    return frozenset(states)


def oom_restarted(old: Pod, new: Pod) -> bool:
    """A container restarted between ``old`` and ``new`` after an OOM kill."""
    return any(_last_oom(status) for status in restarted_containers(old, new))


def restarted_containers(old: Pod, new: Pod) -> list[ContainerStatus]:
    """Containers (init ones included) of ``new`` whose restartCount grew since ``old``."""
    return [
        *_restarted(old.status.init_container_statuses, new.status.init_container_statuses),
        *_restarted(old.status.container_statuses, new.status.container_statuses),
    ]


def _restarted(
    old: tuple[ContainerStatus, ...], new: tuple[ContainerStatus, ...]
) -> Iterator[ContainerStatus]:
    if old == new:
        return
    before, after = changed_items(old, new, name_of)
    for name, status in after.items():
        was = before.get(name)
        if status.restart_count > (0 if was is None else was.restart_count):
            yield status


def condition(conditions: Iterable[Condition], kind: str) -> Condition | None:
    for cond in conditions:
        if cond.type == kind:
            return cond
    return None


def desired_replicas(deployment: Deployment) -> int:
    """``spec.replicas``, which the API server defaults to 1 when unset."""
    replicas = deployment.spec.replicas
    return 1 if replicas is None else replicas


def _all_container_statuses(status: PodStatus) -> Iterator[ContainerStatus]:
    return chain(status.init_container_statuses, status.container_statuses)


def _container_states(status: PodStatus) -> Iterator[str]:
    for container in _all_container_statuses(status):
        waiting = container.state.waiting
        if waiting is not None and waiting.reason in WAITING_STATES:
            yield waiting.reason
        if _down_after_oom(container):
            yield OOM_KILLED


def _down_after_oom(container: ContainerStatus) -> bool:
    """Terminated by an OOM kill, or waiting to be started again after one.

    A container that runs again after its OOM kill has left the state, even
    though ``lastState`` still remembers the kill: that keeps OOMKilled a level.
    """
    terminated = container.state.terminated
    if terminated is not None:
        return terminated.reason == OOM_KILLED
    return container.state.waiting is not None and _last_oom(container)


def _last_oom(container: ContainerStatus) -> bool:
    last = container.last_state.terminated
    return last is not None and last.reason == OOM_KILLED


def _readiness(conditions: Iterable[Condition]) -> Iterator[str]:
    """Ready / NotReady from the Ready condition; nothing when the kubelet has not set it."""
    ready = condition(conditions, "Ready")
    if ready is not None:
        yield "Ready" if ready.status == "True" else "NotReady"


def _availability(conditions: Iterable[Condition]) -> Iterator[str]:
    available = condition(conditions, "Available")
    if available is not None:
        yield "Available" if available.status == "True" else "Unavailable"


def _is_replica_failure(conditions: Iterable[Condition]) -> bool:
    failure = condition(conditions, "ReplicaFailure")
    return failure is not None and failure.status == "True"


def _rollout_state(deployment: Deployment, progressing: Condition | None) -> Iterator[str]:
    """At most one of Stuck, Complete, Progressing: where the rollout stands."""
    if _is_stuck(progressing):
        yield "Stuck"
    elif _is_complete(deployment, progressing):
        yield "Complete"
    elif not deployment.spec.paused and _is_progressing(deployment, progressing):
        yield "Progressing"


def _is_stuck(progressing: Condition | None) -> bool:
    return (
        progressing is not None
        and progressing.status == "False"
        and progressing.reason == _DEADLINE_EXCEEDED
    )


def _is_complete(deployment: Deployment, progressing: Condition | None) -> bool:
    """The deployment controller's own test (DeploymentComplete) plus its condition."""
    if progressing is None or progressing.status != "True":
        return False
    status = deployment.status
    desired = desired_replicas(deployment)
    return (
        progressing.reason == _ROLLOUT_FINISHED
        and status.updated_replicas == desired
        and status.replicas == desired
        and status.available_replicas == desired
        and status.observed_generation >= deployment.metadata.generation
    )


def _is_progressing(deployment: Deployment, progressing: Condition | None) -> bool:
    """A spec the controller has not acted on yet, pods still to update, or a rollout reason."""
    status = deployment.status
    if status.observed_generation < deployment.metadata.generation:
        return True
    if status.updated_replicas < desired_replicas(deployment):
        return True
    return (
        progressing is not None
        and progressing.status == "True"
        and progressing.reason != _ROLLOUT_FINISHED
    )

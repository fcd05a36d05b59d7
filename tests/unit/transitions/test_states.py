"""states_of on recorded objects: each version of each fixture and the exact states it is in."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from notifier.kinds.containers import (
    ContainerState,
    ContainerStateTerminated,
    ContainerStateWaiting,
    ContainerStatus,
)
from notifier.kinds.deployment import Deployment, DeploymentSpec, DeploymentStatus
from notifier.kinds.pod import Pod, PodStatus
from notifier.objects import Condition, ObjectMeta
from notifier.transitions.states import states_of
from tests.unit.transitions.recorded import deployments, pods, services

POD_CASES = [
    ("pod_crashloop", 0, {"Pending"}),  # just created: no phase detail yet
    ("pod_crashloop", 2, {"Pending", "ContainerCreating"}),  # no readiness before Running
    ("pod_crashloop", 3, {"Running", "Ready"}),
    # container terminated with Error(1): the kubelet's back-off, before CrashLoopBackOff shows
    ("pod_crashloop", 4, {"Running", "NotReady", "CrashLoopBackOff"}),
    ("pod_crashloop", 5, {"Running", "NotReady"}),  # restarted, probe not passed yet
    ("pod_crashloop", 6, {"Running", "NotReady", "CrashLoopBackOff"}),
    ("pod_oomkilled", 1, {"Running", "NotReady"}),  # running again: OOM is in the past
    ("pod_oomkilled", 2, {"Running", "NotReady", "CrashLoopBackOff", "OOMKilled"}),
    ("pod_oomkilled", 3, {"Running", "Ready"}),
    ("pod_job_oom", 1, {"Failed", "OOMKilled"}),  # Failed: no readiness states
    ("pod_imagepull", 0, {"Pending", "ContainerCreating"}),
    ("pod_imagepull", 1, {"Pending", "ErrImagePull"}),
    ("pod_imagepull", 2, {"Pending", "ImagePullBackOff"}),
    ("pod_init_config_error", 0, {"Pending", "CreateContainerConfigError"}),  # init container
    ("pod_init_config_error", 1, {"Pending"}),
    ("pod_init_config_error", 2, {"Running", "Ready"}),
    ("pod_evicted", 1, {"Failed", "Evicted"}),
    ("pod_terminating", 1, {"Running", "Ready", "Terminating"}),
]

DEPLOYMENT_CASES = [
    ("deployment_rollout", 0, {"Complete", "Available"}),
    ("deployment_rollout", 1, {"Progressing", "Available"}),  # spec not observed yet
    ("deployment_rollout", 2, {"Progressing", "Available"}),  # ReplicaSetUpdated
    ("deployment_rollout", 4, {"Complete", "Available"}),
    ("deployment_rollout", 5, {"Progressing", "Available"}),  # scaled, not observed yet
    ("deployment_rollout", 6, {"Unavailable"}),  # pods created, not available yet
    ("deployment_rollout", 7, {"Complete", "Available"}),
    ("deployment_stuck", 1, {"Progressing", "Available"}),
    ("deployment_stuck", 2, {"Stuck", "Available"}),
    ("deployment_stuck", 3, {"Paused", "Available"}),  # paused: neither Stuck nor Progressing
    ("deployment_quota", 0, {"Progressing"}),  # no conditions yet: no Available/Unavailable
    # short of pods while it rolls out: Progressing (Stuck at its deadline), not Unavailable
    ("deployment_quota", 1, {"Progressing", "ReplicaFailure"}),
]


@pytest.mark.parametrize(("fixture", "version", "expected"), POD_CASES)
def test_pod_states(fixture: str, version: int, expected: set[str]) -> None:
    assert states_of(pods(fixture)[version]) == expected


@pytest.mark.parametrize(("fixture", "version", "expected"), DEPLOYMENT_CASES)
def test_deployment_states(fixture: str, version: int, expected: set[str]) -> None:
    assert states_of(deployments(fixture)[version]) == expected


def test_services_have_no_states() -> None:
    assert all(states_of(service) == frozenset() for service in services("service"))


def _pod(phase: str = "Running", **status: object) -> Pod:
    return Pod(metadata=ObjectMeta(name="p"), status=replace(PodStatus(phase=phase), **status))


def _terminated(reason: str, code: int) -> ContainerState:
    return ContainerState(terminated=ContainerStateTerminated(exit_code=code, reason=reason))


def _waiting(reason: str) -> ContainerState:
    return ContainerState(waiting=ContainerStateWaiting(reason=reason))


_READY_FALSE = (Condition(type="Ready", status="False", reason="PodCompleted"),)


@pytest.mark.parametrize(
    ("phase", "status", "expected"),
    [
        pytest.param("", {}, {"Pending"}, id="empty phase counts as Pending"),
        pytest.param("Hibernating", {}, set(), id="unknown phase gives no phase state"),
        pytest.param("Unknown", {}, {"Unknown"}, id="the real Unknown phase"),
        pytest.param("Running", {}, {"Running"}, id="no Ready condition: no readiness"),
        pytest.param(
            "Running",
            {"conditions": (Condition(type="Ready", status="Unknown"),)},
            {"Running", "NotReady"},
            id="Ready condition Unknown is NotReady",
        ),
        pytest.param(
            "Running",
            {"conditions": _READY_FALSE},
            {"Running"},
            id="finished pods are neither Ready nor NotReady",
        ),
        pytest.param("Failed", {"reason": "Evicted"}, {"Failed", "Evicted"}, id="evicted"),
    ],
)
def test_pod_states_from_status(phase: str, status: dict[str, object], expected: set[str]) -> None:
    assert states_of(_pod(phase, **status)) == expected


@pytest.mark.parametrize(
    ("container", "expected"),
    [
        pytest.param(
            ContainerStatus(name="c", state=_terminated("OOMKilled", 137)),
            {"OOMKilled", "CrashLoopBackOff"},  # restartPolicy Always: in its back-off
            id="terminated by OOM now",
        ),
        pytest.param(
            ContainerStatus(
                name="c",
                state=_waiting("CrashLoopBackOff"),
                last_state=_terminated("OOMKilled", 137),
            ),
            {"OOMKilled", "CrashLoopBackOff"},
            id="waiting to restart after OOM",
        ),
        pytest.param(
            ContainerStatus(
                name="c",
                state=ContainerState(waiting=ContainerStateWaiting(reason="ContainerCreating")),
                last_state=_terminated("OOMKilled", 137),
            ),
            {"OOMKilled", "ContainerCreating"},
            id="any waiting reason after OOM is still down",
        ),
        pytest.param(
            ContainerStatus(name="c", state=_terminated("Error", 137)),
            {"CrashLoopBackOff"},
            id="exit 137 without the OOMKilled reason is not OOM",
        ),
        pytest.param(
            ContainerStatus(
                name="c",
                state=_terminated("Completed", 0),
                last_state=_terminated("OOMKilled", 137),
            ),
            {"CrashLoopBackOff"},  # restartPolicy Always starts it again
            id="terminated for another reason since the OOM",
        ),
        pytest.param(
            ContainerStatus(name="c", state=_waiting("RunContainerError")),
            set(),
            id="waiting reasons outside the vocabulary are not states",
        ),
    ],
)
def test_container_states(container: ContainerStatus, expected: set[str]) -> None:
    pod = _pod(container_statuses=(container,))
    assert states_of(pod) - {"Running"} == expected


def test_init_container_waiting_reason_counts() -> None:
    pod = _pod(
        "Pending", init_container_statuses=(ContainerStatus(state=_waiting("ErrImagePull")),)
    )
    assert states_of(pod) == {"Pending", "ErrImagePull"}


def _deployment(desired: int | None, **status: object) -> Deployment:
    return Deployment(
        metadata=ObjectMeta(name="d", generation=2),
        spec=DeploymentSpec(replicas=desired),
        status=replace(DeploymentStatus(observed_generation=2), **status),
    )


def _progressing(status: str, reason: str) -> tuple[Condition, ...]:
    return (Condition(type="Progressing", status=status, reason=reason),)


@pytest.mark.parametrize(
    ("deployment", "expected"),
    [
        pytest.param(
            _deployment(
                None,
                replicas=1,
                updated_replicas=1,
                available_replicas=1,
                conditions=_progressing("True", "NewReplicaSetAvailable"),
            ),
            {"Complete"},
            id="replicas unset means 1",
        ),
        pytest.param(
            _deployment(
                3,
                replicas=4,
                updated_replicas=3,
                available_replicas=3,
                conditions=_progressing("True", "NewReplicaSetAvailable"),
            ),
            set(),
            id="old pods still running: not Complete",
        ),
        pytest.param(
            _deployment(0, conditions=_progressing("True", "NewReplicaSetAvailable")),
            {"Complete"},
            id="scaled to zero and settled",
        ),
        pytest.param(
            _deployment(
                2, updated_replicas=1, conditions=_progressing("False", "ProgressDeadlineExceeded")
            ),
            {"Stuck"},
            id="stuck is never also Progressing",
        ),
        pytest.param(
            _deployment(
                2, updated_replicas=2, conditions=_progressing("True", "FoundNewReplicaSet")
            ),
            {"Progressing"},
            id="any other Progressing reason is a rollout in progress",
        ),
        pytest.param(
            _deployment(2, conditions=(Condition(type="ReplicaFailure", status="False"),)),
            {"Progressing"},
            id="ReplicaFailure False is not a failure",
        ),
    ],
)
def test_deployment_states_from_status(deployment: Deployment, expected: set[str]) -> None:
    assert states_of(deployment) == expected

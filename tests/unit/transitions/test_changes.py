"""changes_between on recorded watch streams: the exact field changes, in order."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from notifier.kinds.containers import (
    ContainerState,
    ContainerStateRunning,
    ContainerStateTerminated,
    ContainerStateWaiting,
    render_state,
)
from notifier.kinds.service import ServicePort, render_port
from notifier.objects import KubeObject
from notifier.transitions.changes import changes_between
from notifier.transitions.model import Change
from tests.unit.transitions.recorded import deployments, pods, services

WEB = "status.containerStatuses[web]"
API = "status.containerStatuses[api]"


def _pair(fixture: str, old: int, new: int) -> tuple[KubeObject, KubeObject]:
    stream: list[KubeObject]
    if fixture.startswith("pod_"):
        stream = [*pods(fixture)]
    elif fixture.startswith("deployment_"):
        stream = [*deployments(fixture)]
    else:
        stream = [*services(fixture)]
    return stream[old], stream[new]


CASES = [
    pytest.param(
        "pod_crashloop",
        0,
        1,
        [
            Change("spec.nodeName", None, "node-1"),
            Change("status.conditions[PodScheduled]", None, "True"),
        ],
        id="pod scheduled",
    ),
    pytest.param(
        "pod_crashloop",
        3,
        4,
        [
            Change("status.conditions[Ready]", "True", "False/ContainersNotReady"),
            Change("status.conditions[ContainersReady]", "True", "False/ContainersNotReady"),
            Change(f"{WEB}.ready", "True", "False"),
            Change(f"{WEB}.state", "running", "terminated:Error(1)"),
        ],
        id="container crashed",
    ),
    pytest.param(
        "pod_crashloop",
        4,
        5,
        [
            Change(f"{WEB}.restartCount", "0", "1"),
            Change(f"{WEB}.state", "terminated:Error(1)", "running"),
            Change(f"{WEB}.lastState", None, "terminated:Error(1)"),
        ],
        id="container restarted",
    ),
    pytest.param(
        "pod_crashloop",
        5,
        6,
        [
            Change(f"{WEB}.restartCount", "1", "2"),
            Change(f"{WEB}.state", "running", "waiting:CrashLoopBackOff"),
        ],
        id="into CrashLoopBackOff; lastState text unchanged",
    ),
    pytest.param(
        "pod_oomkilled",
        0,
        1,
        [
            Change("status.conditions[Ready]", "True", "False/ContainersNotReady"),
            Change("status.conditions[ContainersReady]", "True", "False/ContainersNotReady"),
            Change(f"{API}.ready", "True", "False"),
            Change(f"{API}.restartCount", "0", "1"),
            Change(f"{API}.lastState", None, "terminated:OOMKilled(137)"),
        ],
        id="OOM kill seen after the restart; running->running is no state change",
    ),
    pytest.param(
        "pod_oomkilled",
        3,
        4,
        [Change("metadata.labels.debug", None, "true")],
        id="label added",
    ),
    pytest.param(
        "pod_evicted",
        0,
        1,
        [
            Change("status.phase", "Running", "Failed"),
            Change("status.reason", None, "Evicted"),
            Change(
                "status.message",
                None,
                "The node was low on resource: memory. Threshold quantity: 100Mi, "
                "available: 91340Ki. Container report was using 1900Mi, request is 0, "
                "has larger consumption of memory. ",
            ),
            Change("status.conditions[DisruptionTarget]", None, "True/TerminationByKubelet"),
            Change("status.conditions[Ready]", "True", "False/PodFailed"),
            Change("status.conditions[ContainersReady]", "True", "False/PodFailed"),
            Change("status.containerStatuses[report].ready", "True", "False"),
            Change("status.containerStatuses[report].state", "running", "terminated:Error(137)"),
        ],
        id="evicted",
    ),
    pytest.param(
        "pod_terminating",
        0,
        1,
        [Change("metadata.deletionTimestamp", None, "2024-05-16T12:00:30Z")],
        id="deletion requested",
    ),
    pytest.param(
        "deployment_rollout",
        0,
        1,
        [
            Change("metadata.generation", "1", "2"),
            Change(
                "spec.template.spec.containers[web].image",
                "registry.example.com/shop/web:v1",
                "registry.example.com/shop/web:v2",
            ),
        ],
        id="image changed; last-applied-configuration ignored",
    ),
    pytest.param(
        "deployment_rollout",
        1,
        2,
        [
            Change("metadata.annotations.deployment.kubernetes.io/revision", "1", "2"),
            Change("status.observedGeneration", "1", "2"),
            Change("status.replicas", "2", "3"),
            Change("status.updatedReplicas", "2", "1"),
            Change("status.unavailableReplicas", "0", "1"),
            Change(
                "status.conditions[Progressing]",
                "True/NewReplicaSetAvailable",
                "True/ReplicaSetUpdated",
            ),
        ],
        id="rollout observed",
    ),
    pytest.param(
        "deployment_rollout",
        4,
        5,
        [Change("metadata.generation", "2", "3"), Change("spec.replicas", "2", "5")],
        id="scaled 2 -> 5",
    ),
    pytest.param(
        "deployment_rollout",
        5,
        6,
        [
            Change("status.observedGeneration", "2", "3"),
            Change("status.replicas", "2", "5"),
            Change("status.updatedReplicas", "2", "5"),
            Change("status.unavailableReplicas", "0", "3"),
            Change(
                "status.conditions[Available]",
                "True/MinimumReplicasAvailable",
                "False/MinimumReplicasUnavailable",
            ),
        ],
        id="scale observed; conditions reordered is no change",
    ),
    pytest.param(
        "deployment_stuck",
        1,
        2,
        [
            Change(
                "status.conditions[Progressing]",
                "True/ReplicaSetUpdated",
                "False/ProgressDeadlineExceeded",
            )
        ],
        id="progress deadline exceeded",
    ),
    pytest.param(
        "deployment_stuck",
        2,
        3,
        [
            Change("metadata.generation", "5", "6"),
            Change("spec.paused", "False", "True"),
            Change("status.observedGeneration", "5", "6"),
            Change(
                "status.conditions[Progressing]",
                "False/ProgressDeadlineExceeded",
                "Unknown/DeploymentPaused",
            ),
        ],
        id="paused",
    ),
    pytest.param(
        "service",
        0,
        1,
        [
            Change("spec.type", "ClusterIP", "NodePort"),
            Change("spec.ports", "http=80/TCP->8080", "http=80:30080/TCP->8080"),
        ],
        id="ClusterIP -> NodePort",
    ),
    pytest.param(
        "service",
        1,
        2,
        [Change("spec.ports", "http=80:30080/TCP->8080", "http=80:30080/TCP->9090")],
        id="target port",
    ),
    pytest.param(
        "service",
        2,
        3,
        [Change("spec.selector", "app=web", "app=web,track=canary")],
        id="selector",
    ),
    pytest.param(
        "service",
        4,
        5,
        [
            Change("spec.type", "NodePort", "LoadBalancer"),
            Change("status.loadBalancer.ingress", None, "203.0.113.24"),
        ],
        id="LoadBalancer with an address",
    ),
]


@pytest.mark.parametrize(("fixture", "old", "new", "expected"), CASES)
def test_changes(fixture: str, old: int, new: int, expected: list[Change]) -> None:
    assert list(changes_between(*_pair(fixture, old, new))) == expected


@pytest.mark.parametrize(
    ("fixture", "old", "new"),
    [
        pytest.param("pod_crashloop", 6, 7, id="back-off message only"),
        pytest.param("service", 3, 4, id="managedFields and resourceVersion only"),
        pytest.param("deployment_rollout", 7, 7, id="same object"),
    ],
)
def test_no_changes(fixture: str, old: int, new: int) -> None:
    assert changes_between(*_pair(fixture, old, new)) == ()


def test_a_removed_container_shows_its_fields_going_away() -> None:
    old = pods("pod_init_config_error")[2]
    new = replace(old, status=replace(old.status, init_container_statuses=()))
    prefix = "status.initContainerStatuses[migrate]"
    assert changes_between(old, new) == (
        Change(f"{prefix}.ready", "True", None),
        Change(f"{prefix}.restartCount", "0", None),
        Change(f"{prefix}.state", "terminated:Completed(0)", None),
    )


def test_reordered_containers_are_no_change() -> None:
    old = pods("pod_init_config_error")[2]
    both = (*old.status.init_container_statuses, *old.status.container_statuses)
    moved = replace(old.status, container_statuses=both, init_container_statuses=())
    swapped = replace(moved, container_statuses=both[::-1])
    assert changes_between(replace(old, status=moved), replace(old, status=swapped)) == ()


def test_different_kinds_cannot_be_diffed() -> None:
    with pytest.raises(TypeError):
        changes_between(pods("pod_crashloop")[0], services("service")[0])


@pytest.mark.parametrize(
    ("state", "text"),
    [
        (ContainerState(), None),
        (ContainerState(running=ContainerStateRunning()), "running"),
        (ContainerState(waiting=ContainerStateWaiting()), "waiting"),
        (
            ContainerState(waiting=ContainerStateWaiting(reason="ErrImagePull")),
            "waiting:ErrImagePull",
        ),
        (ContainerState(terminated=ContainerStateTerminated(exit_code=2)), "terminated(2)"),
        (
            ContainerState(terminated=ContainerStateTerminated(exit_code=137, reason="OOMKilled")),
            "terminated:OOMKilled(137)",
        ),
    ],
)
def test_render_state(state: ContainerState, text: str | None) -> None:
    assert render_state(state) == text


@pytest.mark.parametrize(
    ("port", "text"),
    [
        (ServicePort(port=80), "80/TCP"),
        (ServicePort(port=53, protocol="UDP", target_port="dns"), "53/UDP->dns"),
        (
            ServicePort(name="https", port=443, target_port=8443, node_port=31443),
            "https=443:31443/TCP->8443",
        ),
    ],
)
def test_render_port(port: ServicePort, text: str) -> None:
    assert render_port(port) == text

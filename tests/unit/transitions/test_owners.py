"""owner_of: the controller of an object, resolved without any API call."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from notifier.kinds.pod import Pod
from notifier.objects import KubeObject, ObjectMeta, OwnerReference
from notifier.transitions.owners import owner_of
from tests.unit.transitions.recorded import deployments, pods, services


def _pod(labels: dict[str, str], *refs: OwnerReference) -> Pod:
    return Pod(metadata=ObjectMeta(name="p", labels=labels, owner_references=refs))


def _controller(kind: str, name: str) -> OwnerReference:
    return OwnerReference(kind=kind, name=name, uid="u", controller=True)


HASH = {"pod-template-hash": "7d4b9c6f5d"}

CASES = [
    pytest.param(pods("pod_crashloop")[0], ("Deployment", "web"), id="deployment pod"),
    pytest.param(pods("pod_job_oom")[0], ("Job", "busybox"), id="job pod"),
    pytest.param(pods("pod_terminating")[0], ("StatefulSet", "cache"), id="statefulset pod"),
    pytest.param(
        _pod({}, _controller("ReplicaSet", "frontend")),
        ("ReplicaSet", "frontend"),
        id="hand-made ReplicaSet, no hash label",
    ),
    pytest.param(
        _pod(HASH, _controller("ReplicaSet", "frontend-5c9d7b6f48")),
        ("ReplicaSet", "frontend-5c9d7b6f48"),
        id="hash label does not match the name",
    ),
    pytest.param(
        _pod(HASH, _controller("ReplicaSet", "-7d4b9c6f5d")),
        ("ReplicaSet", "-7d4b9c6f5d"),
        id="nothing left after the hash",
    ),
    pytest.param(
        _pod(HASH, _controller("ReplicaSet", "my-app-v2-7d4b9c6f5d")),
        ("Deployment", "my-app-v2"),
        id="dashes in the deployment name",
    ),
    pytest.param(
        _pod({}, OwnerReference(kind="ReplicaSet", name="web-1", controller=False)),
        None,
        id="owner that is not the controller",
    ),
    pytest.param(_pod({}), None, id="bare pod"),
    pytest.param(deployments("deployment_rollout")[0], None, id="deployment"),
    pytest.param(services("service")[0], None, id="service"),
]


@pytest.mark.parametrize(("obj", "owner"), CASES)
def test_owner_of(obj: KubeObject, owner: tuple[str, str] | None) -> None:
    assert owner_of(obj) == owner


def test_controller_is_picked_among_several_owners() -> None:
    pod = pods("pod_crashloop")[0]
    extra = OwnerReference(kind="ConfigMap", name="keeper", controller=False)
    refs = (extra, *pod.metadata.owner_references)
    assert owner_of(replace(pod, metadata=replace(pod.metadata, owner_references=refs))) == (
        "Deployment",
        "web",
    )

"""Smoke tests that prove the control plane is real, with the Python kubernetes client."""

from __future__ import annotations

import time
import uuid

import pytest
from kubernetes import client, config

from tests.controlplane.cluster import ControlPlane

pytestmark = pytest.mark.integration


def _api(plane: ControlPlane) -> client.ApiClient:
    return config.new_client_from_config(config_file=str(plane.kubeconfig))


def _namespace(api: client.ApiClient) -> str:
    name = f"smoke-{uuid.uuid4().hex[:8]}"
    client.CoreV1Api(api).create_namespace(
        client.V1Namespace(metadata=client.V1ObjectMeta(name=name))
    )
    return name


def _pod(name: str, labels: dict[str, str] | None = None) -> client.V1Pod:
    return client.V1Pod(
        metadata=client.V1ObjectMeta(name=name, labels=labels or {}),
        spec=client.V1PodSpec(containers=[client.V1Container(name="main", image="busybox:1.36")]),
    )


def _wait(check: object, timeout: float, what: str) -> None:
    assert callable(check)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def test_version_is_the_built_release(control_plane: ControlPlane) -> None:
    info = client.VersionApi(_api(control_plane)).get_code()
    assert info.git_version.startswith("v1.") and info.git_version != "v0.0.0"


def test_create_and_read_back(control_plane: ControlPlane) -> None:
    api = _api(control_plane)
    core = client.CoreV1Api(api)
    ns = _namespace(api)
    core.create_namespaced_pod(ns, _pod("p1"))
    svc = client.V1Service(
        metadata=client.V1ObjectMeta(name="s1"),
        spec=client.V1ServiceSpec(selector={"app": "x"}, ports=[client.V1ServicePort(port=80)]),
    )
    core.create_namespaced_service(ns, svc)
    assert core.read_namespaced_pod("p1", ns).metadata.uid
    read = core.read_namespaced_service("s1", ns)
    assert read.spec.ports[0].port == 80 and read.spec.cluster_ip.startswith("10.0.0.")


def test_rbac_is_enforced(control_plane: ControlPlane) -> None:
    """An identity with no bindings is refused: RBAC is really on."""
    api = _api(control_plane)
    review = client.V1SubjectAccessReview(
        spec=client.V1SubjectAccessReviewSpec(
            user="nobody",
            resource_attributes=client.V1ResourceAttributes(verb="list", resource="pods"),
        )
    )
    result = client.AuthorizationV1Api(api).create_subject_access_review(review)
    assert result.status.allowed is False


def test_etcd_compaction_moves_forward(control_plane: ControlPlane) -> None:
    first = control_plane.compact_etcd()
    client.CoreV1Api(_api(control_plane)).create_namespace(
        client.V1Namespace(metadata=client.V1ObjectMeta(name=f"c-{uuid.uuid4().hex[:6]}"))
    )
    assert control_plane.compact_etcd() > first


@pytest.mark.fullcluster
def test_deployment_becomes_available(full_cluster: ControlPlane) -> None:
    api = _api(full_cluster)
    ns = _namespace(api)
    labels = {"app": "web"}
    deployment = client.V1Deployment(
        metadata=client.V1ObjectMeta(name="web"),
        spec=client.V1DeploymentSpec(
            replicas=2,
            selector=client.V1LabelSelector(match_labels=labels),
            template=client.V1PodTemplateSpec(
                metadata=client.V1ObjectMeta(labels=labels),
                spec=client.V1PodSpec(
                    containers=[client.V1Container(name="web", image="nginx:1.27")]
                ),
            ),
        ),
    )
    apps = client.AppsV1Api(api)
    apps.create_namespaced_deployment(ns, deployment)
    _wait(
        lambda: (
            (apps.read_namespaced_deployment_status("web", ns).status.available_replicas or 0) == 2
        ),
        90,
        "2 available replicas",
    )


@pytest.mark.fullcluster
def test_pod_marked_to_fail_reaches_failed(full_cluster: ControlPlane) -> None:
    api = _api(full_cluster)
    core = client.CoreV1Api(api)
    ns = _namespace(api)
    core.create_namespaced_pod(ns, _pod("doomed", {"kube-notifier.test/stage": "fail"}))
    _wait(
        lambda: core.read_namespaced_pod("doomed", ns).status.phase == "Failed", 60, "phase Failed"
    )

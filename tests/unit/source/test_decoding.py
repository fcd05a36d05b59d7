"""Decoding watch event lines, ERROR events and paged list bodies as the API server sends them.

The reflector tells an ERROR event from an object event by the object
decoder's ValidationError (a Status is not a Pod), then reads the Status
with ERROR_DECODER: both halves of that contract are checked here.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest

from notifier.kinds.deployment import Deployment
from notifier.kinds.pod import Pod
from notifier.kinds.registry import BUILT_IN_KINDS, KINDS
from notifier.kinds.service import Service
from notifier.objects import Kind
from notifier.source.listwatch import ERROR_DECODER, STATUS_DECODER, Bookmark
from notifier.source.resources import decode_event, resource_for


def _line(document: dict[str, Any]) -> bytes:
    """Compact JSON on one line, as a watch stream carries it."""
    return json.dumps(document, separators=(",", ":")).encode()


MANAGED_FIELDS = [
    {
        "manager": "kubelet",
        "operation": "Update",
        "apiVersion": "v1",
        "time": "2024-05-14T09:14:41Z",
        "fieldsType": "FieldsV1",
        "fieldsV1": {"f:status": {"f:containerStatuses": {}, "f:phase": {}}},
        "subresource": "status",
    }
]

CRASHLOOP_POD: dict[str, Any] = {
    "kind": "Pod",
    "apiVersion": "v1",
    "metadata": {
        "name": "web-7d4b9c6f5d-x2x9k",
        "generateName": "web-7d4b9c6f5d-",
        "namespace": "shop",
        "uid": "5f0e2c1a-3b4d-4e5f-8a9b-0c1d2e3f4a5b",
        "resourceVersion": "184399",
        "creationTimestamp": "2024-05-14T09:12:03Z",
        "labels": {"app": "web", "pod-template-hash": "7d4b9c6f5d"},
        "ownerReferences": [
            {
                "apiVersion": "apps/v1",
                "kind": "ReplicaSet",
                "name": "web-7d4b9c6f5d",
                "uid": "9a8b7c6d-5e4f-4a3b-2c1d-0e9f8a7b6c5d",
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ],
        "managedFields": MANAGED_FIELDS,
    },
    "spec": {
        "nodeName": "node-1",
        "restartPolicy": "Always",
        "containers": [
            {
                "name": "web",
                "image": "registry.example.com/shop/web:v1",
                "ports": [{"containerPort": 8080, "protocol": "TCP"}],
                "resources": {"limits": {"memory": "256Mi"}},
            }
        ],
        "serviceAccountName": "default",
        "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists"}],
    },
    "status": {
        "phase": "Running",
        "qosClass": "Burstable",
        "startTime": "2024-05-14T09:12:05Z",
        "conditions": [
            {"type": "Ready", "status": "False", "reason": "ContainersNotReady"},
            {"type": "PodScheduled", "status": "True", "lastTransitionTime": None},
        ],
        "containerStatuses": [
            {
                "name": "web",
                "ready": False,
                "restartCount": 3,
                "image": "registry.example.com/shop/web:v1",
                "imageID": "registry.example.com/shop/web@sha256:4f1c",
                "containerID": "containerd://8e2d",
                "started": False,
                "state": {
                    "waiting": {
                        "reason": "CrashLoopBackOff",
                        "message": "back-off 40s restarting failed container=web",
                    }
                },
                "lastState": {
                    "terminated": {
                        "exitCode": 137,
                        "reason": "OOMKilled",
                        "startedAt": "2024-05-14T09:14:01Z",
                        "finishedAt": "2024-05-14T09:14:40Z",
                        "containerID": "containerd://8e2d",
                    }
                },
            }
        ],
    },
}

DEPLOYMENT: dict[str, Any] = {
    "kind": "Deployment",
    "apiVersion": "apps/v1",
    "metadata": {
        "name": "web",
        "namespace": "shop",
        "uid": "2c9d8e7f-6a5b-4c3d-9e1f-0a2b3c4d5e6f",
        "resourceVersion": "184410",
        "generation": 4,
        "annotations": {"deployment.kubernetes.io/revision": "3"},
    },
    "spec": {
        "replicas": 3,
        "selector": {"matchLabels": {"app": "web"}},
        "progressDeadlineSeconds": 600,
        "strategy": {"type": "RollingUpdate"},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "web", "image": "registry.example.com/shop/web:v2"}]},
        },
    },
    "status": {
        "observedGeneration": 4,
        "replicas": 4,
        "updatedReplicas": 1,
        "readyReplicas": 3,
        "availableReplicas": 3,
        "unavailableReplicas": 1,
        "conditions": [
            {"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable"},
            {"type": "Progressing", "status": "True", "reason": "ReplicaSetUpdated"},
        ],
    },
}

SERVICE: dict[str, Any] = {
    "kind": "Service",
    "apiVersion": "v1",
    "metadata": {
        "name": "web",
        "namespace": "shop",
        "uid": "svc-8f7e",
        "resourceVersion": "184420",
    },
    "spec": {
        "type": "LoadBalancer",
        "clusterIP": "10.96.14.7",
        "clusterIPs": ["10.96.14.7"],
        "selector": {"app": "web"},
        "ports": [
            {
                "name": "http",
                "protocol": "TCP",
                "port": 80,
                "targetPort": "http",
                "nodePort": 31380,
            },
            {"name": "metrics", "protocol": "TCP", "port": 9090, "targetPort": 9090},
        ],
    },
    "status": {"loadBalancer": {"ingress": [{"ip": "203.0.113.10"}]}},
}


def _status(code: int, reason: str, message: str) -> dict[str, Any]:
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    }


EXPIRED = _status(410, "Expired", "too old resource version: 183000 (184150)")


# -- watch events -------------------------------------------------------------------------------


def test_a_pod_event_decodes_into_the_trimmed_pod() -> None:
    line = _line({"type": "MODIFIED", "object": CRASHLOOP_POD})
    event = resource_for(Kind.POD, kinds=KINDS).decoders.event.decode(line)
    pod = event.object
    assert event.type == "MODIFIED"
    assert isinstance(pod, Pod)
    assert (pod.metadata.namespace, pod.metadata.name) == ("shop", "web-7d4b9c6f5d-x2x9k")
    assert pod.metadata.resource_version == "184399"
    assert pod.metadata.owner_references[0].controller
    status = pod.status.container_statuses[0]
    assert status.restart_count == 3
    assert status.state.waiting is not None and status.state.waiting.reason == "CrashLoopBackOff"
    assert status.last_state.terminated is not None
    assert (status.last_state.terminated.exit_code, status.last_state.terminated.reason) == (
        137,
        "OOMKilled",
    )


def test_a_deployment_event_decodes_into_a_deployment() -> None:
    event = resource_for(Kind.DEPLOYMENT, kinds=KINDS).decoders.event.decode(
        _line({"type": "ADDED", "object": DEPLOYMENT})
    )
    deployment = event.object
    assert isinstance(deployment, Deployment)
    assert (deployment.spec.replicas, deployment.status.unavailable_replicas) == (3, 1)
    assert deployment.spec.template.spec.containers[0].image.endswith("web:v2")
    assert [c.type for c in deployment.status.conditions] == ["Available", "Progressing"]


def test_a_service_event_keeps_named_and_numbered_target_ports() -> None:
    event = resource_for(Kind.SERVICE, kinds=KINDS).decoders.event.decode(
        _line({"type": "DELETED", "object": SERVICE})
    )
    service = event.object
    assert event.type == "DELETED"
    assert isinstance(service, Service)
    assert service.spec.cluster_ip == "10.96.14.7"
    assert [p.target_port for p in service.spec.ports] == ["http", 9090]
    assert service.status.load_balancer.ingress[0].ip == "203.0.113.10"


# Bookmarks as the API server encodes them: an empty object of the watched kind whose Go
# zero values include nulls (``spec.containers`` has no omitempty), plus the resourceVersion.
_NULL_POD_SPEC = {"containers": None}
_TEMPLATE = {"metadata": {"creationTimestamp": None}, "spec": _NULL_POD_SPEC}
BOOKMARKS: dict[Kind, dict[str, Any]] = {
    Kind.POD: {"kind": "Pod", "apiVersion": "v1", "spec": _NULL_POD_SPEC, "status": {}},
    Kind.DEPLOYMENT: {
        "kind": "Deployment",
        "apiVersion": "apps/v1",
        "spec": {
            "selector": None,
            "template": {"metadata": {"creationTimestamp": None}, "spec": _NULL_POD_SPEC},
            "strategy": {},
        },
        "status": {},
    },
    Kind.SERVICE: {
        "kind": "Service",
        "apiVersion": "v1",
        "spec": {},
        "status": {"loadBalancer": {}},
    },
    # The other kinds as the API server writes an empty object of theirs (Go zero values).
    Kind.JOB: {
        "kind": "Job",
        "apiVersion": "batch/v1",
        "spec": {"template": _TEMPLATE},
        "status": {},
    },
    Kind.CRONJOB: {
        "kind": "CronJob",
        "apiVersion": "batch/v1",
        "spec": {
            "schedule": "",
            "jobTemplate": {
                "metadata": {"creationTimestamp": None},
                "spec": {"template": _TEMPLATE},
            },
        },
        "status": {},
    },
    Kind.STATEFULSET: {
        "kind": "StatefulSet",
        "apiVersion": "apps/v1",
        "spec": {"selector": None, "template": _TEMPLATE, "serviceName": "", "updateStrategy": {}},
        "status": {"replicas": 0, "availableReplicas": 0},
    },
    Kind.DAEMONSET: {
        "kind": "DaemonSet",
        "apiVersion": "apps/v1",
        "spec": {"selector": None, "template": _TEMPLATE, "updateStrategy": {}},
        "status": {"currentNumberScheduled": 0, "numberMisscheduled": 0, "numberReady": 0},
    },
    Kind.NODE: {
        "kind": "Node",
        "apiVersion": "v1",
        "spec": {},
        "status": {
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 0}},
            "nodeInfo": {"machineID": "", "kubeletVersion": "", "operatingSystem": ""},
        },
    },
    Kind.PVC: {
        "kind": "PersistentVolumeClaim",
        "apiVersion": "v1",
        "spec": {"resources": {}},
        "status": {},
    },
    Kind.HPA: {
        "kind": "HorizontalPodAutoscaler",
        "apiVersion": "autoscaling/v2",
        "spec": {"scaleTargetRef": {"kind": "", "name": ""}, "maxReplicas": 0},
        "status": {"desiredReplicas": 0, "currentMetrics": None},
    },
    Kind("PodDisruptionBudget"): {
        "kind": "PodDisruptionBudget",
        "apiVersion": "policy/v1",
        "spec": {},
        "status": {
            "disruptionsAllowed": 0,
            "currentHealthy": 0,
            "desiredHealthy": 0,
            "expectedPods": 0,
        },
    },
    Kind.EVENT: {
        "kind": "Event",
        "apiVersion": "v1",
        "involvedObject": {},
        "reason": "",
        "source": {},
        "firstTimestamp": None,
        "lastTimestamp": None,
        "eventTime": None,
        "reportingComponent": "",
    },
}


@pytest.mark.parametrize("kind", list(BUILT_IN_KINDS))
def test_a_bookmark_decodes_and_carries_its_resource_version(kind: Kind) -> None:
    """Real bookmarks carry ``"containers": null`` (no omitempty in Go) for Pods and
    Deployments: the typed decode fails and decode_event must still see a bookmark."""
    # A kind without an entry: the empty object most kinds' bookmarks carry.
    bookmark = dict(BOOKMARKS.get(kind, {"kind": kind.value, "spec": {}, "status": {}}))
    bookmark["metadata"] = {"resourceVersion": "184501", "creationTimestamp": None}
    event = decode_event(
        resource_for(kind, kinds=KINDS), _line({"type": "BOOKMARK", "object": bookmark})
    )
    assert event == Bookmark("184501")


def test_an_event_of_another_kind_is_rejected() -> None:
    line = _line({"type": "ADDED", "object": DEPLOYMENT})
    with pytest.raises(msgspec.ValidationError):
        resource_for(Kind.POD, kinds=KINDS).decoders.event.decode(line)


def test_a_truncated_line_is_a_decode_error() -> None:
    line = _line({"type": "ADDED", "object": CRASHLOOP_POD})[:200]
    with pytest.raises(msgspec.DecodeError):
        resource_for(Kind.POD, kinds=KINDS).decoders.event.decode(line)


# -- ERROR events and error bodies --------------------------------------------------------------


@pytest.mark.parametrize("kind", list(BUILT_IN_KINDS))
def test_an_error_event_is_not_an_object_event_for_any_kind(kind: Kind) -> None:
    line = _line({"type": "ERROR", "object": EXPIRED})
    with pytest.raises(msgspec.ValidationError):
        resource_for(kind, kinds=KINDS).decoders.event.decode(line)


def test_an_error_event_without_type_meta_is_not_an_object_event_either() -> None:
    # An older or proxied server might omit kind; the "status" string still cannot be a Pod.
    status = {key: value for key, value in EXPIRED.items() if key not in ("kind", "apiVersion")}
    with pytest.raises(msgspec.ValidationError):
        resource_for(Kind.POD, kinds=KINDS).decoders.event.decode(
            _line({"type": "ERROR", "object": status})
        )


def test_a_410_error_event_gives_code_reason_and_message() -> None:
    error = ERROR_DECODER.decode(_line({"type": "ERROR", "object": EXPIRED}))
    assert error.type == "ERROR"
    assert (error.object.code, error.object.reason) == (410, "Expired")
    assert error.object.message == "too old resource version: 183000 (184150)"


def test_an_internal_error_event_keeps_its_code() -> None:
    internal = _status(500, "InternalError", "an error on the server has prevented the request")
    error = ERROR_DECODER.decode(_line({"type": "ERROR", "object": internal}))
    assert (error.object.code, error.object.reason) == (500, "InternalError")


def test_a_forbidden_list_body_gives_its_message() -> None:
    body = _status(
        403,
        "Forbidden",
        'pods is forbidden: User "system:serviceaccount:ops:kube-notifier" '
        'cannot list resource "pods" in API group "" at the cluster scope',
    )
    body["details"] = {"kind": "pods"}
    status = STATUS_DECODER.decode(_line(body))
    assert (status.code, status.reason) == (403, "Forbidden")
    assert status.message.startswith("pods is forbidden")


# -- list bodies --------------------------------------------------------------------------------


def _page(kind: str, items: list[dict[str, Any]], metadata: dict[str, Any]) -> bytes:
    # List items come without kind and apiVersion: only the list itself carries them.
    bare = [{k: v for k, v in item.items() if k not in ("kind", "apiVersion")} for item in items]
    return _line({"kind": kind, "apiVersion": "v1", "metadata": metadata, "items": bare})


CONTINUE = "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTg0NDAwLCJzdGFydCI6InNob3Avd2ViLTEwMFx1MDAwMCJ9"


def test_a_first_page_carries_the_continue_token_and_the_list_version() -> None:
    body = _page(
        "PodList",
        [CRASHLOOP_POD],
        {"resourceVersion": "184400", "continue": CONTINUE, "remainingItemCount": 4499},
    )
    page = resource_for(Kind.POD, kinds=KINDS).decoders.list.decode(body)
    assert page.metadata.continue_ == CONTINUE
    assert page.metadata.resource_version == "184400"
    assert [type(item) for item in page.items] == [Pod]
    assert page.items[0].metadata.name == "web-7d4b9c6f5d-x2x9k"


def test_the_last_page_has_no_continue_token() -> None:
    body = _page("PodList", [CRASHLOOP_POD], {"resourceVersion": "184400"})
    assert resource_for(Kind.POD, kinds=KINDS).decoders.list.decode(body).metadata.continue_ == ""


def test_an_empty_list_may_omit_items() -> None:
    body = _line({"kind": "ServiceList", "apiVersion": "v1", "metadata": {"resourceVersion": "7"}})
    page = resource_for(Kind.SERVICE, kinds=KINDS).decoders.list.decode(body)
    assert (page.items, page.metadata.resource_version) == ([], "7")


def test_deployment_and_service_lists_decode_into_their_kinds() -> None:
    deployments = resource_for(Kind.DEPLOYMENT, kinds=KINDS).decoders.list.decode(
        _page("DeploymentList", [DEPLOYMENT], {"resourceVersion": "1"})
    )
    services = resource_for(Kind.SERVICE, kinds=KINDS).decoders.list.decode(
        _page("ServiceList", [SERVICE], {"resourceVersion": "1"})
    )
    assert [type(item) for item in deployments.items] == [Deployment]
    assert [type(item) for item in services.items] == [Service]


def test_an_expired_continue_token_is_a_410_status_body() -> None:
    body = _status(410, "Expired", "The provided continue parameter is too old to display a list.")
    body["metadata"] = {"continue": CONTINUE}
    status = STATUS_DECODER.decode(_line(body))
    assert (status.code, status.reason) == (410, "Expired")


# -- where each kind lives ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "namespace", "path"),
    [
        (Kind.POD, "shop", "/api/v1/namespaces/shop/pods"),
        (Kind.POD, None, "/api/v1/pods"),
        (Kind.DEPLOYMENT, "shop", "/apis/apps/v1/namespaces/shop/deployments"),
        (Kind.DEPLOYMENT, None, "/apis/apps/v1/deployments"),
        (Kind.SERVICE, "shop", "/api/v1/namespaces/shop/services"),
        (Kind.SERVICE, None, "/api/v1/services"),
    ],
)
def test_resource_paths(kind: Kind, namespace: str | None, path: str) -> None:
    assert resource_for(kind, kinds=KINDS).path(namespace) == path

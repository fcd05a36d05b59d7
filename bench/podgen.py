"""Realistic Pod JSON as kube-apiserver sends it in a watch stream; deterministic per seed.

Each Pod looks like one a Deployment made and a kubelet runs: ~9-10 KB of
compact JSON with managedFields (one entry by kube-controller-manager, one
by the kubelet for the status subresource), labels and annotations,
ownerReferences to a ReplicaSet, two containers with env, resources,
probes and volumeMounts, and a status with conditions and containerStatuses.
A fleet of a few namespaces, nodes and images is shared by all the Pods,
as in a real cluster, so the same strings repeat across Pods.

The same ``seed`` gives the same bytes, so two runs (or two subprocesses)
read the very same stream.

    stream = recorded_stream(pods=10_000, modified=20_000, seed=7)
    stream.added     # one ADDED line per Pod (the initial state)
    stream.modified  # MODIFIED lines over those Pods, in random order
"""

from __future__ import annotations

import functools
import hashlib
import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import msgspec

Json = dict[str, Any]

NAMESPACES = ("payments", "checkout", "search", "platform", "data", "web")
TEAMS = ("core", "growth", "infra", "ml")
APP_IMAGES = (
    "registry.example.com/payments/api",
    "registry.example.com/checkout/web",
    "registry.example.com/search/indexer",
    "registry.example.com/platform/gateway",
    "registry.example.com/data/worker",
    "registry.example.com/web/frontend",
)
SIDECAR_IMAGES = (
    ("envoy", "docker.io/envoyproxy/envoy:v1.30.1"),
    ("fluent-bit", "cr.fluentbit.io/fluent/fluent-bit:3.0.4"),
    ("otel-agent", "otel/opentelemetry-collector-contrib:0.101.0"),
)
WORDS = ("api", "web", "worker", "gateway", "indexer", "cache", "billing", "auth", "cart", "feed")
_EPOCH = datetime(2024, 5, 1, 8, 0, 0)  # naive, read as UTC
_ALPHANUM = "bcdfghjklmnpqrstvwxz2456789"  # the alphabet of generated name suffixes


@dataclass(frozen=True)
class Deployment:
    """What every Pod of one Deployment (through its current ReplicaSet) shares."""

    namespace: str
    name: str
    template_hash: str
    replica_set_uid: str
    app_image: str
    sidecar: tuple[str, str]  # container name, image
    team: str
    config_checksum: str


@dataclass(frozen=True)
class Fleet:
    deployments: tuple[Deployment, ...]
    nodes: tuple[str, ...]


@dataclass
class Stream:
    """A recorded watch stream: one JSON document per line, without the newline."""

    added: list[bytes] = field(default_factory=list)
    modified: list[bytes] = field(default_factory=list)

    def digest(self) -> str:
        """sha256 of every line in order: proves two readers had the same stream."""
        hasher = hashlib.sha256()
        for line in (*self.added, *self.modified):
            hasher.update(line)
            hasher.update(b"\n")
        return hasher.hexdigest()


# -- the fleet ---------------------------------------------------------------
def _uid(rng: random.Random) -> str:
    value = f"{rng.getrandbits(128):032x}"
    return f"{value[:8]}-{value[8:12]}-{value[12:16]}-{value[16:20]}-{value[20:]}"


def _suffix(rng: random.Random, length: int) -> str:
    return "".join(rng.choice(_ALPHANUM) for _ in range(length))


def _deployment(rng: random.Random, index: int) -> Deployment:
    namespace = NAMESPACES[index % len(NAMESPACES)]
    name = f"{rng.choice(WORDS)}-{rng.choice(WORDS)}-{index}"
    return Deployment(
        namespace=namespace,
        name=name,
        template_hash=_suffix(rng, 10),
        replica_set_uid=_uid(rng),
        app_image=f"{rng.choice(APP_IMAGES)}:v1.{rng.randrange(40)}.{rng.randrange(10)}",
        sidecar=rng.choice(SIDECAR_IMAGES),
        team=rng.choice(TEAMS),
        config_checksum=f"{rng.getrandbits(256):064x}",
    )


def make_fleet(rng: random.Random, deployments: int = 200, nodes: int = 50) -> Fleet:
    return Fleet(
        deployments=tuple(_deployment(rng, i) for i in range(deployments)),
        nodes=tuple(
            f"ip-10-0-{i // 250}-{i % 250}.eu-west-1.compute.internal" for i in range(nodes)
        ),
    )


# -- one Pod -----------------------------------------------------------------
@dataclass(frozen=True)
class PodIdentity:
    """What stays fixed for one Pod across its watch events."""

    deployment: Deployment
    name: str
    uid: str
    node: str
    pod_ip: str
    host_ip: str
    created: datetime


def make_identity(rng: random.Random, fleet: Fleet) -> PodIdentity:
    deployment = rng.choice(fleet.deployments)
    node_index = rng.randrange(len(fleet.nodes))
    return PodIdentity(
        deployment=deployment,
        name=f"{deployment.name}-{deployment.template_hash}-{_suffix(rng, 5)}",
        uid=_uid(rng),
        node=fleet.nodes[node_index],
        pod_ip=f"10.244.{rng.randrange(256)}.{rng.randrange(1, 255)}",
        host_ip=f"10.0.{node_index // 250}.{node_index % 250}",
        created=_EPOCH + timedelta(seconds=rng.randrange(86_400)),
    )


@dataclass(frozen=True)
class PodState:
    """What changes between watch events of one Pod."""

    resource_version: int
    restarts: int = 0
    crash_looping: bool = False


def _ts(moment: datetime) -> str:
    return f"{moment.isoformat()}Z"


def _labels(deployment: Deployment) -> dict[str, str]:
    app = deployment.name.rsplit("-", 1)[0]
    return {
        "app": app,
        "app.kubernetes.io/name": app,
        "app.kubernetes.io/version": deployment.app_image.rsplit(":", 1)[1],
        "pod-template-hash": deployment.template_hash,
        "team": deployment.team,
    }


def _annotations(pod: PodIdentity) -> dict[str, str]:
    return {
        "checksum/config": pod.deployment.config_checksum,
        "kubectl.kubernetes.io/default-container": "app",
        "prometheus.io/port": "9090",
        "prometheus.io/scrape": "true",
    }


def _metadata(pod: PodIdentity, state: PodState) -> Json:
    deployment = pod.deployment
    return {
        "name": pod.name,
        "generateName": f"{deployment.name}-{deployment.template_hash}-",
        "namespace": deployment.namespace,
        "uid": pod.uid,
        "resourceVersion": str(state.resource_version),
        "creationTimestamp": _ts(pod.created),
        "labels": _labels(deployment),
        "annotations": _annotations(pod),
        "ownerReferences": [
            {
                "apiVersion": "apps/v1",
                "kind": "ReplicaSet",
                "name": f"{deployment.name}-{deployment.template_hash}",
                "uid": deployment.replica_set_uid,
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ],
    }


def _probe(path: str, port: int, delay: int) -> Json:
    return {
        "httpGet": {"path": path, "port": port, "scheme": "HTTP"},
        "initialDelaySeconds": delay,
        "timeoutSeconds": 1,
        "periodSeconds": 10,
        "successThreshold": 1,
        "failureThreshold": 3,
    }


def _field_ref(path: str) -> Json:
    return {"fieldRef": {"apiVersion": "v1", "fieldPath": path}}


def _env(deployment: Deployment) -> list[Json]:
    secret = {"secretKeyRef": {"name": f"{deployment.name}-db", "key": "password"}}
    return [
        {"name": "SERVICE_NAME", "value": deployment.name},
        {"name": "OTEL_EXPORTER_OTLP_ENDPOINT", "value": "http://otel-collector.platform:4317"},
        {"name": "POD_NAME", "valueFrom": _field_ref("metadata.name")},
        {"name": "POD_IP", "valueFrom": _field_ref("status.podIP")},
        {"name": "DB_PASSWORD", "valueFrom": secret},
    ]


def _mounts(token_volume: str | None) -> list[Json]:
    mounts: list[Json] = [{"name": "config", "readOnly": True, "mountPath": "/etc/app"}]
    if token_volume:
        mounts.append(
            {
                "name": token_volume,
                "readOnly": True,
                "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount",
            }
        )
    return mounts


def _container(name: str, image: str, port: int, env: list[Json], token_volume: str | None) -> Json:
    container = {
        "name": name,
        "image": image,
        "ports": [{"name": "http", "containerPort": port, "protocol": "TCP"}],
        "env": env,
        "resources": {
            "limits": {"cpu": "1", "memory": "512Mi"},
            "requests": {"cpu": "250m", "memory": "256Mi"},
        },
        "volumeMounts": _mounts(token_volume),
        "livenessProbe": _probe("/healthz", port, 10),
        "readinessProbe": _probe("/readyz", port, 5),
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
        "imagePullPolicy": "IfNotPresent",
    }
    if name != "app":
        del container["livenessProbe"]  # sidecars here only gate readiness
    return container


def _volumes(deployment: Deployment, token_volume: str | None) -> list[Json]:
    volumes: list[Json] = [
        {"name": "config", "configMap": {"name": f"{deployment.name}-config", "defaultMode": 420}}
    ]
    if token_volume:
        ca = {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}
        namespace = {"path": "namespace", **_field_ref("metadata.namespace")}
        token_sources = [
            {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
            {"configMap": ca},
            {"downwardAPI": {"items": [namespace]}},
        ]
        volumes.append(
            {"name": token_volume, "projected": {"sources": token_sources, "defaultMode": 420}}
        )
    return volumes


def _tolerations() -> list[Json]:
    return [
        {
            "key": f"node.kubernetes.io/{taint}",
            "operator": "Exists",
            "effect": "NoExecute",
            "tolerationSeconds": 300,
        }
        for taint in ("not-ready", "unreachable")
    ]


def _spec(deployment: Deployment, token_volume: str | None, node: str | None) -> Json:
    """The Pod spec; without ``token_volume`` and ``node``, the part the controller wrote."""
    sidecar_name, sidecar_image = deployment.sidecar
    spec: Json = {
        "volumes": _volumes(deployment, token_volume),
        "containers": [
            _container("app", deployment.app_image, 8080, _env(deployment), token_volume),
            _container(sidecar_name, sidecar_image, 15000, _env(deployment)[:1], token_volume),
        ],
        "restartPolicy": "Always",
        "terminationGracePeriodSeconds": 30,
        "dnsPolicy": "ClusterFirst",
        "serviceAccountName": "default",
        "serviceAccount": "default",
        "nodeName": node,
        "securityContext": {},
        "schedulerName": "default-scheduler",
        "tolerations": _tolerations(),
        "priority": 0,
        "enableServiceLinks": True,
        "preemptionPolicy": "PreemptLowerPriority",
    }
    if node is None:
        del spec["nodeName"]  # set by the scheduler's binding, not by the controller
    return spec


def _pod_spec(pod: PodIdentity) -> Json:
    return _spec(pod.deployment, f"kube-api-access-{pod.uid[:5]}", pod.node)


def _condition(kind: str, ready: bool, when: datetime, crash_looping: bool) -> Json:
    condition: Json = {"type": kind, "status": "True" if ready else "False"}
    condition["lastProbeTime"] = None
    condition["lastTransitionTime"] = _ts(when)
    if not ready:
        condition["reason"] = "ContainersNotReady"
        condition["message"] = "containers with unready status: [app]"
    return condition


def _conditions(pod: PodIdentity, state: PodState) -> list[Json]:
    started = pod.created + timedelta(seconds=2)
    ready = not state.crash_looping
    return [
        _condition("PodReadyToStartContainers", True, started, False),
        _condition("Initialized", True, pod.created, False),
        _condition("Ready", ready, started, state.crash_looping),
        _condition("ContainersReady", ready, started, state.crash_looping),
        _condition("PodScheduled", True, pod.created, False),
    ]


def _app_state(pod: PodIdentity, state: PodState) -> tuple[Json, Json]:
    """``state`` and ``lastState`` of the app container."""
    started = pod.created + timedelta(seconds=3 + 60 * state.restarts)
    if state.crash_looping:
        waiting = {
            "reason": "CrashLoopBackOff",
            "message": f"back-off 5m0s restarting failed container=app pod={pod.name}_"
            f"{pod.deployment.namespace}({pod.uid})",
        }
        current: Json = {"waiting": waiting}
    else:
        current = {"running": {"startedAt": _ts(started)}}
    if not state.restarts:
        return current, {}
    terminated = {
        "exitCode": 137,
        "reason": "OOMKilled",
        "startedAt": _ts(started - timedelta(seconds=50)),
        "finishedAt": _ts(started - timedelta(seconds=1)),
        "containerID": f"containerd://{hashlib.sha256(pod.uid.encode()).hexdigest()}",
    }
    return current, {"terminated": terminated}


def _container_status(
    pod: PodIdentity, name: str, image: str, states: tuple[Json, Json], restarts: int
) -> Json:
    digest = hashlib.sha256(image.encode()).hexdigest()
    ready = "running" in states[0]
    return {
        "name": name,
        "state": states[0],
        "lastState": states[1],
        "ready": ready,
        "restartCount": restarts,
        "image": image,
        "imageID": f"{image.rsplit(':', 1)[0]}@sha256:{digest}",
        "containerID": f"containerd://{hashlib.sha256((pod.uid + name).encode()).hexdigest()}",
        "started": ready,
    }


def _status(pod: PodIdentity, state: PodState) -> Json:
    sidecar_name, sidecar_image = pod.deployment.sidecar
    sidecar_started = {"running": {"startedAt": _ts(pod.created + timedelta(seconds=3))}}
    return {
        "phase": "Running",
        "conditions": _conditions(pod, state),
        "hostIP": pod.host_ip,
        "hostIPs": [{"ip": pod.host_ip}],
        "podIP": pod.pod_ip,
        "podIPs": [{"ip": pod.pod_ip}],
        "startTime": _ts(pod.created + timedelta(seconds=1)),
        "containerStatuses": [
            _container_status(
                pod, "app", pod.deployment.app_image, _app_state(pod, state), state.restarts
            ),
            _container_status(pod, sidecar_name, sidecar_image, (sidecar_started, {}), 0),
        ],
        "qosClass": "Burstable",
    }


# -- managedFields: the server-side-apply bookkeeping that dominates a Pod's size --
# How the API server keys the items of each list it tracks; other lists are atomic.
_LIST_KEYS = {
    "containers": ("name",),
    "env": ("name",),
    "ports": ("containerPort", "protocol"),
    "volumeMounts": ("mountPath",),
    "volumes": ("name",),
    "conditions": ("type",),
    "hostIPs": ("ip",),
    "podIPs": ("ip",),
}


def _fields_of(value: Json, top: bool = False) -> Json:
    """The FieldsV1 set of a map: keys as ``f:key``, keyed list items as ``k:{...}``.

    As the API server writes it: sorted keys, ``"."`` for a map or item that
    is itself owned (not at the top), ``{}`` for scalars and atomic lists.
    """
    fields: Json = {} if top else {".": {}}
    for key, item in value.items():
        if isinstance(item, list):
            fields[f"f:{key}"] = _list_fields(key, item)
        else:
            fields[f"f:{key}"] = _fields_of(item) if isinstance(item, dict) and item else {}
    return dict(sorted(fields.items()))


def _list_fields(name: str, items: list[Json]) -> Json:
    keys = _LIST_KEYS.get(name)
    if keys is None:
        return {}
    fields: Json = {".": {}}
    for item in items:
        fields[f"k:{msgspec.json.encode({k: item[k] for k in keys}).decode()}"] = _fields_of(item)
    return dict(sorted(fields.items()))


@functools.cache
def _owned_by_controller(deployment: Deployment) -> Json:
    """What kube-controller-manager set when it created a Pod from the template."""
    labels = _labels(deployment)
    meta = _fields_of({"generateName": "", "labels": labels}, top=True)
    meta["f:ownerReferences"] = {".": {}, f'k:{{"uid":"{deployment.replica_set_uid}"}}': {}}
    return {"f:metadata": meta, "f:spec": _fields_of(_spec(deployment, None, None), top=True)}


def _owned_by_kubelet(status: Json) -> Json:
    reported = ("conditions", "hostIP", "hostIPs", "phase", "podIP", "podIPs", "startTime")
    fields = _fields_of({key: status[key] for key in reported}, top=True)
    fields["f:containerStatuses"] = {}  # an atomic list: owned as a whole
    return {"f:status": dict(sorted(fields.items()))}


def _managed_fields(pod: PodIdentity, status: Json) -> list[Json]:
    return [
        {
            "manager": "kube-controller-manager",
            "operation": "Update",
            "apiVersion": "v1",
            "time": _ts(pod.created),
            "fieldsType": "FieldsV1",
            "fieldsV1": _owned_by_controller(pod.deployment),
        },
        {
            "manager": "kubelet",
            "operation": "Update",
            "apiVersion": "v1",
            "time": _ts(pod.created + timedelta(seconds=3)),
            "fieldsType": "FieldsV1",
            "fieldsV1": _owned_by_kubelet(status),
            "subresource": "status",
        },
    ]


def pod_document(pod: PodIdentity, state: PodState) -> Json:
    """The Pod as the API server serializes it (same key order as its Go structs)."""
    meta, status = _metadata(pod, state), _status(pod, state)
    meta["managedFields"] = _managed_fields(pod, status)
    return {
        "kind": "Pod",
        "apiVersion": "v1",
        "metadata": meta,
        "spec": _pod_spec(pod),
        "status": status,
    }


def event_line(event_type: str, document: Json) -> bytes:
    return msgspec.json.encode({"type": event_type, "object": document})


# -- the stream --------------------------------------------------------------
def _next_state(rng: random.Random, state: PodState, version: int) -> PodState:
    """Most updates only move the resourceVersion; a few restart or crash-loop a container."""
    roll = rng.random()
    if roll < 0.03:
        return PodState(version, state.restarts + 1, crash_looping=True)
    if state.crash_looping and roll < 0.5:
        return PodState(version, state.restarts, crash_looping=False)
    return PodState(version, state.restarts, state.crash_looping)


def recorded_stream(pods: int = 10_000, modified: int = 20_000, seed: int = 7) -> Stream:
    """``pods`` ADDED events, then ``modified`` MODIFIED events over random ones of them."""
    rng = random.Random(seed)
    fleet = make_fleet(rng)
    identities = [make_identity(rng, fleet) for _ in range(pods)]
    states = [PodState(resource_version=1_000_000 + i) for i in range(pods)]
    stream = Stream()
    stream.added = [
        event_line("ADDED", pod_document(p, s)) for p, s in zip(identities, states, strict=True)
    ]
    version = 1_000_000 + pods
    for _ in range(modified):
        index = rng.randrange(pods)
        version += 1
        states[index] = _next_state(rng, states[index], version)
        stream.modified.append(
            event_line("MODIFIED", pod_document(identities[index], states[index]))
        )
    return stream

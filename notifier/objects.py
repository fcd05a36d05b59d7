"""Trimmed Kubernetes objects: the only shape of Pods, Deployments and Services we hold.

The watch stream is decoded by msgspec straight into these Structs. Fields
not declared here (``managedFields``, most of ``spec``) are skipped while
decoding, so the cache holds only what rules, messages and transitions read.
Field names are the API's, in snake_case (``restart_count`` for
``restartCount``), so templates read like the Kubernetes docs.

Structs are frozen: a cached object is shared by the store, workers and
templates, and nobody may mutate what another thread is reading.
"""

from __future__ import annotations

from enum import StrEnum
from typing import NewType

import msgspec

ObjectKey = NewType("ObjectKey", str)
"""``namespace/name`` (``name`` when cluster-scoped), as client-go's MetaNamespaceKeyFunc."""


class Kind(StrEnum):
    POD = "Pod"
    DEPLOYMENT = "Deployment"
    SERVICE = "Service"


class _Wire(msgspec.Struct, frozen=True, rename="camel", omit_defaults=True, gc=False):
    """Base: camelCase on the wire, immutable, invisible to the cyclic GC (no cycles)."""


class OwnerReference(_Wire, frozen=True):
    kind: str = ""
    name: str = ""
    uid: str = ""
    controller: bool = False


class ObjectMeta(_Wire, frozen=True):
    name: str = ""
    namespace: str = ""
    uid: str = ""
    resource_version: str = ""
    generation: int = 0
    creation_timestamp: str | None = None
    deletion_timestamp: str | None = None
    labels: dict[str, str] = {}
    annotations: dict[str, str] = {}
    owner_references: tuple[OwnerReference, ...] = ()


class Condition(_Wire, frozen=True):
    type: str = ""
    status: str = ""
    reason: str = ""
    message: str = ""


class ContainerStateWaiting(_Wire, frozen=True):
    reason: str = ""
    message: str = ""


class ContainerStateRunning(_Wire, frozen=True):
    started_at: str | None = None


class ContainerStateTerminated(_Wire, frozen=True):
    exit_code: int = 0
    reason: str = ""
    message: str = ""
    signal: int = 0
    finished_at: str | None = None


class ContainerState(_Wire, frozen=True):
    waiting: ContainerStateWaiting | None = None
    running: ContainerStateRunning | None = None
    terminated: ContainerStateTerminated | None = None


class ContainerStatus(_Wire, frozen=True):
    name: str = ""
    ready: bool = False
    restart_count: int = 0
    image: str = ""
    state: ContainerState = ContainerState()
    last_state: ContainerState = ContainerState()


class Container(_Wire, frozen=True):
    name: str = ""
    image: str = ""


class PodSpec(_Wire, frozen=True):
    node_name: str = ""
    restart_policy: str = ""
    containers: tuple[Container, ...] = ()
    init_containers: tuple[Container, ...] = ()


class PodStatus(_Wire, frozen=True):
    phase: str = ""
    reason: str = ""
    message: str = ""
    start_time: str | None = None
    conditions: tuple[Condition, ...] = ()
    container_statuses: tuple[ContainerStatus, ...] = ()
    init_container_statuses: tuple[ContainerStatus, ...] = ()


class Pod(_Wire, frozen=True, tag="Pod", tag_field="kind"):
    metadata: ObjectMeta = ObjectMeta()
    spec: PodSpec = PodSpec()
    status: PodStatus = PodStatus()


class PodTemplateSpec(_Wire, frozen=True):
    metadata: ObjectMeta = ObjectMeta()  # `kubectl rollout restart` changes only its annotations
    spec: PodSpec = PodSpec()


class DeploymentSpec(_Wire, frozen=True):
    replicas: int | None = None
    paused: bool = False
    progress_deadline_seconds: int | None = None
    template: PodTemplateSpec = PodTemplateSpec()


class DeploymentStatus(_Wire, frozen=True):
    observed_generation: int = 0
    replicas: int = 0
    updated_replicas: int = 0
    ready_replicas: int = 0
    available_replicas: int = 0
    unavailable_replicas: int = 0
    conditions: tuple[Condition, ...] = ()


class Deployment(_Wire, frozen=True, tag="Deployment", tag_field="kind"):
    metadata: ObjectMeta = ObjectMeta()
    spec: DeploymentSpec = DeploymentSpec()
    status: DeploymentStatus = DeploymentStatus()


class ServicePort(_Wire, frozen=True):
    name: str = ""
    protocol: str = "TCP"
    port: int = 0
    target_port: int | str | None = None
    node_port: int | None = None


class ServiceSpec(_Wire, frozen=True):
    type: str = "ClusterIP"
    cluster_ip: str = msgspec.field(default="", name="clusterIP")
    external_name: str = ""
    ports: tuple[ServicePort, ...] = ()
    selector: dict[str, str] = {}


class LoadBalancerIngress(_Wire, frozen=True):
    ip: str = ""
    hostname: str = ""


class LoadBalancerStatus(_Wire, frozen=True):
    ingress: tuple[LoadBalancerIngress, ...] = ()


class ServiceStatus(_Wire, frozen=True):
    load_balancer: LoadBalancerStatus = LoadBalancerStatus()


class Service(_Wire, frozen=True, tag="Service", tag_field="kind"):
    metadata: ObjectMeta = ObjectMeta()
    spec: ServiceSpec = ServiceSpec()
    status: ServiceStatus = ServiceStatus()


KubeObject = Pod | Deployment | Service

OBJECT_TYPES: dict[Kind, type[Pod] | type[Deployment] | type[Service]] = {
    Kind.POD: Pod,
    Kind.DEPLOYMENT: Deployment,
    Kind.SERVICE: Service,
}


_KINDS: dict[type, Kind] = {Pod: Kind.POD, Deployment: Kind.DEPLOYMENT, Service: Kind.SERVICE}


def kind_of(obj: KubeObject) -> Kind:
    return _KINDS[type(obj)]


def key_of(obj: KubeObject) -> ObjectKey:
    meta = obj.metadata
    return ObjectKey(f"{meta.namespace}/{meta.name}" if meta.namespace else meta.name)


def controller_of(obj: KubeObject) -> OwnerReference | None:
    """The owner reference marked ``controller: true``, if any."""
    return next((ref for ref in obj.metadata.owner_references if ref.controller), None)

"""What ``enrich: [changes]`` reads from the API server, as msgspec Structs.

Only the fields the changes are told from: a pod template's containers and
volumes, metadata with ``managedFields``, a Node's conditions and taints.
A literal environment variable's ``value`` is decoded only to tell that it
changed; a ConfigMap's ``data`` is never decoded at all (only its
``managedFields`` name its keys), and a Secret is only ever read as
``PartialObjectMetadata``.
"""

from __future__ import annotations

from typing import Any

import msgspec


class _Wire(msgspec.Struct, rename="camel", frozen=True):
    pass


class Named(_Wire, frozen=True):
    name: str = ""


class OwnerRef(_Wire, frozen=True):
    kind: str = ""
    name: str = ""
    uid: str = ""
    controller: bool = False


class ManagedEntry(_Wire, frozen=True):
    manager: str = ""
    operation: str = ""
    time: str = ""
    subresource: str = ""
    fields_v1: dict[str, Any] = {}


class Meta(_Wire, frozen=True):
    name: str = ""
    uid: str = ""
    creation_timestamp: str = ""
    labels: dict[str, str] = {}
    annotations: dict[str, str] = {}  # read for the revision only, never shown
    owner_references: tuple[OwnerRef, ...] = ()
    managed_fields: tuple[ManagedEntry, ...] = ()

    def controller(self) -> OwnerRef | None:
        return next((ref for ref in self.owner_references if ref.controller), None)


class KeyRef(_Wire, frozen=True):
    name: str = ""
    key: str = ""


class EnvSource(_Wire, frozen=True):
    config_map_key_ref: KeyRef | None = None
    secret_key_ref: KeyRef | None = None
    field_ref: dict[str, Any] | None = None
    resource_field_ref: dict[str, Any] | None = None


class EnvVar(_Wire, frozen=True):
    name: str = ""
    value: str | None = None  # compared, never shown
    value_from: EnvSource | None = None


class EnvFrom(_Wire, frozen=True):
    config_map_ref: Named | None = None
    secret_ref: Named | None = None
    prefix: str = ""


class Container(_Wire, frozen=True):
    name: str = ""
    image: str = ""
    command: tuple[str, ...] = ()
    args: tuple[str, ...] = ()
    env: tuple[EnvVar, ...] = ()
    env_from: tuple[EnvFrom, ...] = ()
    resources: dict[str, Any] = {}
    liveness_probe: dict[str, Any] | None = None
    readiness_probe: dict[str, Any] | None = None
    startup_probe: dict[str, Any] | None = None


class SecretVolume(_Wire, frozen=True):
    secret_name: str = ""


class Projection(_Wire, frozen=True):
    config_map: Named | None = None
    secret: Named | None = None


class Projected(_Wire, frozen=True):
    sources: tuple[Projection, ...] = ()


class Volume(_Wire, frozen=True):
    name: str = ""
    config_map: Named | None = None
    secret: SecretVolume | None = None
    projected: Projected | None = None
    persistent_volume_claim: dict[str, Any] | None = None
    empty_dir: dict[str, Any] | None = None
    host_path: dict[str, Any] | None = None


class PodSpec(_Wire, frozen=True):
    node_name: str = ""
    containers: tuple[Container, ...] = ()
    init_containers: tuple[Container, ...] = ()
    volumes: tuple[Volume, ...] = ()


class Template(_Wire, frozen=True):
    spec: PodSpec = PodSpec()


class Selector(_Wire, frozen=True):
    match_labels: dict[str, str] = {}


class WorkloadSpec(_Wire, frozen=True):
    selector: Selector = Selector()
    template: Template = Template()


class Workload(_Wire, frozen=True):
    """A workload whose pod template is read, e.g. a ReplicaSet, a StatefulSet or a Job."""

    metadata: Meta = Meta()
    spec: WorkloadSpec = WorkloadSpec()


class WorkloadList(_Wire, frozen=True):
    items: tuple[Workload, ...] = ()


class RevisionData(_Wire, frozen=True):
    spec: WorkloadSpec = WorkloadSpec()


class ControllerRevision(_Wire, frozen=True):
    metadata: Meta = Meta()
    revision: int = 0
    data: RevisionData = RevisionData()


class RevisionList(_Wire, frozen=True):
    items: tuple[ControllerRevision, ...] = ()


class Terminated(_Wire, frozen=True):
    reason: str = ""
    exit_code: int = 0


class Waiting(_Wire, frozen=True):
    reason: str = ""
    message: str = ""


class State(_Wire, frozen=True):
    waiting: Waiting | None = None
    terminated: Terminated | None = None


class ContainerStatus(_Wire, frozen=True):
    name: str = ""
    state: State = State()
    last_state: State = State()


class PodStatus(_Wire, frozen=True):
    phase: str = ""
    reason: str = ""
    container_statuses: tuple[ContainerStatus, ...] = ()
    init_container_statuses: tuple[ContainerStatus, ...] = ()


class Pod(_Wire, frozen=True):
    metadata: Meta = Meta()
    spec: PodSpec = PodSpec()
    status: PodStatus = PodStatus()


class PodList(_Wire, frozen=True):
    items: tuple[Pod, ...] = ()


class ObjectMetadata(_Wire, frozen=True):
    """A ConfigMap or a Secret as ``PartialObjectMetadata``: no data."""

    metadata: Meta = Meta()


class Taint(_Wire, frozen=True):
    key: str = ""
    effect: str = ""


class NodeCondition(_Wire, frozen=True):
    type: str = ""
    status: str = ""


class NodeSpec(_Wire, frozen=True):
    taints: tuple[Taint, ...] = ()


class NodeStatus(_Wire, frozen=True):
    conditions: tuple[NodeCondition, ...] = ()


class Node(_Wire, frozen=True):
    metadata: Meta = Meta()
    spec: NodeSpec = NodeSpec()
    status: NodeStatus = NodeStatus()


class EventSource(_Wire, frozen=True):
    host: str = ""


class Event(_Wire, frozen=True):
    reason: str = ""
    source: EventSource = EventSource()
    last_timestamp: str | None = None
    event_time: str | None = None


class EventList(_Wire, frozen=True):
    items: tuple[Event, ...] = ()

"""Field-level differences between two versions of one object.

Contract: ``changes_between(old, new)`` returns one ``Change`` per field that
differs, in a stable order, never raising on odd objects. Both objects must
be of the same kind (``detecting.detect_all`` splits a kind or UID change
into a delete and an add before it gets here).

Paths use the API's camelCase, as users write them in ``fields:`` rules:
``status.phase``, ``spec.template.spec.containers[web].image``,
``metadata.labels.app``. Containers and conditions are addressed by name /
type, never by index, so a reordering is not a change. Values are rendered
as short text; ``None`` means the field is absent on that side.

What is deliberately not a change: ``metadata.resourceVersion`` (it changes
on every write), condition messages and timestamps, container state
messages (a CrashLoopBackOff's "back-off 20s" becoming "back-off 40s"), and
the ``kubectl.kubernetes.io/last-applied-configuration`` annotation (a copy
of the spec whose real changes are reported field by field).

Every part is compared as a Struct first (``__eq__`` runs in C) and rendered
as text only when it differs: most events touch a few fields of the status.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from operator import attrgetter
from typing import TypeVar

import msgspec

from notifier.objects import (
    Condition,
    Container,
    ContainerState,
    ContainerStatus,
    Deployment,
    DeploymentSpec,
    DeploymentStatus,
    KubeObject,
    ObjectMeta,
    Pod,
    PodSpec,
    PodStatus,
    Service,
    ServicePort,
    ServiceSpec,
    ServiceStatus,
)
from notifier.transitions.model import Change

Fields = dict[str, str]
"""Rendered fields of one item: path suffix -> text. Absent fields are left out."""

_Item = TypeVar("_Item", bound=msgspec.Struct)

IGNORED_ANNOTATIONS = frozenset({"kubectl.kubernetes.io/last-applied-configuration"})

name_of: Callable[[Container | ContainerStatus], str] = attrgetter("name")
_type: Callable[[Condition], str] = attrgetter("type")


def changes_between(old: KubeObject, new: KubeObject) -> tuple[Change, ...]:
    """What differs from ``old`` to ``new``, field by field."""
    if old == new:
        return ()
    diff = _Diff()
    if old.metadata != new.metadata:
        _diff_metadata(diff, old.metadata, new.metadata)
    if isinstance(old, Pod) and isinstance(new, Pod):
        _diff_pods(diff, old, new)
    elif isinstance(old, Deployment) and isinstance(new, Deployment):
        _diff_deployments(diff, old, new)
    elif isinstance(old, Service) and isinstance(new, Service):
        _diff_services(diff, old, new)
    else:
        raise TypeError(f"cannot diff a {type(old).__name__} with a {type(new).__name__}")
    return tuple(diff.changes)


def changed_items(
    old: Sequence[_Item], new: Sequence[_Item], address: Callable[[_Item], str]
) -> tuple[dict[str, _Item], dict[str, _Item]]:
    """The items of each side not found unchanged on the other, by name.

    Containers and conditions are matched by name (or type), so a reordering
    is no change. Detection uses this too, so a signal always has a matching
    change. A name given twice (an invalid object) keeps its last item.
    """
    before = {address(item): item for item in old if item not in new}
    after = {address(item): item for item in new if item not in old}
    return before, after


def render_state(state: ContainerState) -> str | None:
    """``waiting:CrashLoopBackOff``, ``running``, ``terminated:OOMKilled(137)``; None if unset."""
    if state.waiting is not None:
        return _with_reason("waiting", state.waiting.reason)
    if state.terminated is not None:
        terminated = state.terminated
        return f"{_with_reason('terminated', terminated.reason)}({terminated.exit_code})"
    if state.running is not None:
        return "running"
    return None


def render_condition(cond: Condition) -> str:
    """``True/NewReplicaSetAvailable``, or just ``True`` when there is no reason."""
    return _with_reason(cond.status, cond.reason, separator="/")


def render_port(port: ServicePort) -> str:
    """kubectl's ``80:30080/TCP`` plus ``->8080`` for the target and ``name=`` in front."""
    text = f"{port.port}:{port.node_port}" if port.node_port else str(port.port)
    text = f"{text}/{port.protocol}"
    if port.target_port is not None:
        text = f"{text}->{port.target_port}"
    return f"{port.name}={text}" if port.name else text


def render_ports(spec: ServiceSpec) -> str:
    return ",".join(render_port(port) for port in spec.ports)


def render_selector(selector: Mapping[str, str]) -> str:
    return ",".join(f"{key}={value}" for key, value in sorted(selector.items()))


def _with_reason(head: str, reason: str, separator: str = ":") -> str:
    return f"{head}{separator}{reason}" if reason else head


# --- the accumulator -----------------------------------------------------------------------


class _Diff:
    """Collects changes; every method compares before it renders anything."""

    __slots__ = ("changes",)

    def __init__(self) -> None:
        self.changes: list[Change] = []

    def text(self, path: str, old: str, new: str) -> None:
        """A string field; the empty string is how an absent field decodes."""
        if old != new:
            self.changes.append(Change(path, old or None, new or None))

    def number(self, path: str, old: int | None, new: int | None) -> None:
        if old != new:
            self.changes.append(Change(path, _optional_str(old), _optional_str(new)))

    def rendered(self, path: str, old: str | None, new: str | None) -> None:
        if old != new:
            self.changes.append(Change(path, old, new))

    def mapping(self, prefix: str, old: Mapping[str, str], new: Mapping[str, str]) -> None:
        """One change per key; ``new``'s order first, then keys that were removed."""
        if old == new:
            return
        for key in dict.fromkeys([*new, *old]):
            self.rendered(f"{prefix}.{key}", old.get(key), new.get(key))

    def keyed(
        self,
        prefix: str,
        old: Sequence[_Item],
        new: Sequence[_Item],
        address: Callable[[_Item], str],
        render: Callable[[_Item], Fields],
    ) -> None:
        """Items addressed as ``prefix[name]``; only items that differ are rendered."""
        if old == new:
            return
        before, after = changed_items(old, new, address)
        for name in dict.fromkeys([*after, *before]):
            was, now = before.get(name), after.get(name)
            old_fields = {} if was is None else render(was)
            new_fields = {} if now is None else render(now)
            self.fields(f"{prefix}[{name}]", old_fields, new_fields)

    def fields(self, prefix: str, old: Fields, new: Fields) -> None:
        keys = new.keys() if new.keys() == old.keys() else dict.fromkeys([*new, *old])
        for suffix in keys:
            was, now = old.get(suffix), new.get(suffix)
            if was != now:
                self.changes.append(Change(f"{prefix}{suffix}", was, now))


def _optional_str(value: int | None) -> str | None:
    return None if value is None else str(value)


# --- per kind --------------------------------------------------------------------------------


def _diff_metadata(diff: _Diff, old: ObjectMeta, new: ObjectMeta) -> None:
    diff.mapping("metadata.labels", old.labels, new.labels)
    if old.annotations != new.annotations:
        diff.mapping("metadata.annotations", _annotations(old), _annotations(new))
    diff.number("metadata.generation", old.generation, new.generation)
    diff.text(
        "metadata.deletionTimestamp", old.deletion_timestamp or "", new.deletion_timestamp or ""
    )
    if old.owner_references != new.owner_references:
        diff.text("metadata.ownerReferences", _owners(old), _owners(new))


def _diff_pods(diff: _Diff, old: Pod, new: Pod) -> None:
    if old.spec != new.spec:
        _diff_pod_spec(diff, "spec", old.spec, new.spec)
    if old.status != new.status:
        _diff_pod_status(diff, old.status, new.status)


def _diff_pod_spec(diff: _Diff, prefix: str, old: PodSpec, new: PodSpec) -> None:
    diff.text(f"{prefix}.nodeName", old.node_name, new.node_name)
    diff.keyed(
        f"{prefix}.initContainers", old.init_containers, new.init_containers, name_of, _image
    )
    diff.keyed(f"{prefix}.containers", old.containers, new.containers, name_of, _image)


def _diff_pod_status(diff: _Diff, old: PodStatus, new: PodStatus) -> None:
    diff.text("status.phase", old.phase, new.phase)
    diff.text("status.reason", old.reason, new.reason)
    diff.text("status.message", old.message, new.message)
    _diff_conditions(diff, old.conditions, new.conditions)
    init_old, init_new = old.init_container_statuses, new.init_container_statuses
    diff.keyed("status.initContainerStatuses", init_old, init_new, name_of, _container_fields)
    main_old, main_new = old.container_statuses, new.container_statuses
    diff.keyed("status.containerStatuses", main_old, main_new, name_of, _container_fields)


def _diff_deployments(diff: _Diff, old: Deployment, new: Deployment) -> None:
    if old.spec != new.spec:
        _diff_deployment_spec(diff, old.spec, new.spec)
    if old.status != new.status:
        _diff_deployment_status(diff, old.status, new.status)


def _diff_deployment_spec(diff: _Diff, old: DeploymentSpec, new: DeploymentSpec) -> None:
    diff.number("spec.replicas", old.replicas, new.replicas)
    diff.rendered("spec.paused", str(old.paused), str(new.paused))
    old_deadline, new_deadline = old.progress_deadline_seconds, new.progress_deadline_seconds
    diff.number("spec.progressDeadlineSeconds", old_deadline, new_deadline)
    if old.template != new.template:
        _diff_pod_spec(diff, "spec.template.spec", old.template.spec, new.template.spec)


def _diff_deployment_status(diff: _Diff, old: DeploymentStatus, new: DeploymentStatus) -> None:
    diff.number("status.observedGeneration", old.observed_generation, new.observed_generation)
    diff.number("status.replicas", old.replicas, new.replicas)
    diff.number("status.updatedReplicas", old.updated_replicas, new.updated_replicas)
    diff.number("status.readyReplicas", old.ready_replicas, new.ready_replicas)
    diff.number("status.availableReplicas", old.available_replicas, new.available_replicas)
    diff.number("status.unavailableReplicas", old.unavailable_replicas, new.unavailable_replicas)
    _diff_conditions(diff, old.conditions, new.conditions)


def _diff_services(diff: _Diff, old: Service, new: Service) -> None:
    old_spec, new_spec = old.spec, new.spec
    diff.text("spec.type", old_spec.type, new_spec.type)
    diff.text("spec.clusterIP", old_spec.cluster_ip, new_spec.cluster_ip)
    diff.text("spec.externalName", old_spec.external_name, new_spec.external_name)
    if old_spec.ports != new_spec.ports:
        diff.text("spec.ports", render_ports(old_spec), render_ports(new_spec))
    if old_spec.selector != new_spec.selector:
        diff.text(
            "spec.selector", render_selector(old_spec.selector), render_selector(new_spec.selector)
        )
    if old.status != new.status:
        diff.text("status.loadBalancer.ingress", _ingress(old.status), _ingress(new.status))


def _diff_conditions(diff: _Diff, old: Sequence[Condition], new: Sequence[Condition]) -> None:
    diff.keyed("status.conditions", old, new, _type, _condition_fields)


# --- rendering -----------------------------------------------------------------------------


def _image(container: Container) -> Fields:
    return {".image": container.image} if container.image else {}


def _condition_fields(cond: Condition) -> Fields:
    return {"": render_condition(cond)}


def _container_fields(status: ContainerStatus) -> Fields:
    fields = {".ready": str(status.ready), ".restartCount": str(status.restart_count)}
    state, last_state = render_state(status.state), render_state(status.last_state)
    if state is not None:
        fields[".state"] = state
    if last_state is not None:
        fields[".lastState"] = last_state
    return fields


def _annotations(meta: ObjectMeta) -> Mapping[str, str]:
    annotations = meta.annotations
    if IGNORED_ANNOTATIONS.isdisjoint(annotations):
        return annotations
    return {key: value for key, value in annotations.items() if key not in IGNORED_ANNOTATIONS}


def _owners(meta: ObjectMeta) -> str:
    return ",".join(f"{ref.kind}/{ref.name}" for ref in meta.owner_references)


def _ingress(status: ServiceStatus) -> str:
    return ",".join(entry.ip or entry.hostname for entry in status.load_balancer.ingress)

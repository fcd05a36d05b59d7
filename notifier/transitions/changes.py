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

Each section is compared as a whole first (Struct ``__eq__`` runs in C) and
flattened into ``path -> text`` only when it differs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TypeVar

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
"""Rendered fields of one section: path -> text. Absent fields are left out."""

_Section = TypeVar("_Section")

IGNORED_ANNOTATIONS = frozenset({"kubectl.kubernetes.io/last-applied-configuration"})


def changes_between(old: KubeObject, new: KubeObject) -> tuple[Change, ...]:
    """What differs from ``old`` to ``new``, field by field."""
    if old == new:
        return ()
    changes: list[Change] = []
    _diff_metadata(old.metadata, new.metadata, changes)
    if isinstance(old, Pod) and isinstance(new, Pod):
        _diff_pods(old, new, changes)
    elif isinstance(old, Deployment) and isinstance(new, Deployment):
        _diff_deployments(old, new, changes)
    elif isinstance(old, Service) and isinstance(new, Service):
        _diff_services(old, new, changes)
    else:
        raise TypeError(f"cannot diff a {type(old).__name__} with a {type(new).__name__}")
    return tuple(changes)


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


def render_selector(selector: Mapping[str, str]) -> str:
    return ",".join(f"{key}={value}" for key, value in sorted(selector.items()))


def _with_reason(head: str, reason: str, separator: str = ":") -> str:
    return f"{head}{separator}{reason}" if reason else head


# --- sections ------------------------------------------------------------------------------


def _diff_metadata(old: ObjectMeta, new: ObjectMeta, changes: list[Change]) -> None:
    if old == new:
        return
    _diff_mapping("metadata.labels", old.labels, new.labels, changes)
    _diff_mapping("metadata.annotations", _annotations(old), _annotations(new), changes)
    _diff_fields(_meta_fields(old), _meta_fields(new), changes)


def _diff_pods(old: Pod, new: Pod, changes: list[Change]) -> None:
    _diff_section(old.spec, new.spec, _pod_spec_fields, changes)
    _diff_section(old.status, new.status, _pod_status_fields, changes)


def _diff_deployments(old: Deployment, new: Deployment, changes: list[Change]) -> None:
    _diff_section(old.spec, new.spec, _deployment_spec_fields, changes)
    _diff_section(old.status, new.status, _deployment_status_fields, changes)


def _diff_services(old: Service, new: Service, changes: list[Change]) -> None:
    _diff_section(old.spec, new.spec, _service_spec_fields, changes)
    _diff_section(old.status, new.status, _service_status_fields, changes)


def _diff_section(
    old: _Section,
    new: _Section,
    flatten: Callable[[_Section], Fields],
    changes: list[Change],
) -> None:
    if old != new:
        _diff_fields(flatten(old), flatten(new), changes)


def _diff_mapping(
    prefix: str, old: Mapping[str, str], new: Mapping[str, str], changes: list[Change]
) -> None:
    if old != new:
        _diff_fields(old, new, changes, prefix=f"{prefix}.")


def _diff_fields(
    old: Mapping[str, str], new: Mapping[str, str], changes: list[Change], prefix: str = ""
) -> None:
    """Append a change for each key whose text differs; ``new``'s order, then removed keys."""
    for key in dict.fromkeys([*new, *old]):
        before, after = old.get(key), new.get(key)
        if before != after:
            changes.append(Change(f"{prefix}{key}", before, after))


# --- flattening ----------------------------------------------------------------------------


def _annotations(meta: ObjectMeta) -> Mapping[str, str]:
    annotations = meta.annotations
    if IGNORED_ANNOTATIONS.isdisjoint(annotations):
        return annotations
    return {key: value for key, value in annotations.items() if key not in IGNORED_ANNOTATIONS}


def _meta_fields(meta: ObjectMeta) -> Fields:
    fields: Fields = {"metadata.generation": str(meta.generation)}
    if meta.deletion_timestamp:
        fields["metadata.deletionTimestamp"] = meta.deletion_timestamp
    if meta.owner_references:
        fields["metadata.ownerReferences"] = ",".join(
            f"{ref.kind}/{ref.name}" for ref in meta.owner_references
        )
    return fields


def _pod_spec_fields(spec: PodSpec, prefix: str = "spec") -> Fields:
    fields: Fields = {}
    if spec.node_name:
        fields[f"{prefix}.nodeName"] = spec.node_name
    _add_images(fields, f"{prefix}.initContainers", spec.init_containers)
    _add_images(fields, f"{prefix}.containers", spec.containers)
    return fields


def _pod_status_fields(status: PodStatus) -> Fields:
    fields = _present(
        {
            "status.phase": status.phase,
            "status.reason": status.reason,
            "status.message": status.message,
        }
    )
    _add_conditions(fields, status.conditions)
    _add_container_statuses(fields, "status.initContainerStatuses", status.init_container_statuses)
    _add_container_statuses(fields, "status.containerStatuses", status.container_statuses)
    return fields


def _deployment_spec_fields(spec: DeploymentSpec) -> Fields:
    fields = _present(
        {
            "spec.replicas": _optional_int(spec.replicas),
            "spec.paused": str(spec.paused),
            "spec.progressDeadlineSeconds": _optional_int(spec.progress_deadline_seconds),
        }
    )
    fields.update(_pod_spec_fields(spec.template.spec, prefix="spec.template.spec"))
    return fields


def _deployment_status_fields(status: DeploymentStatus) -> Fields:
    fields: Fields = {
        "status.observedGeneration": str(status.observed_generation),
        "status.replicas": str(status.replicas),
        "status.updatedReplicas": str(status.updated_replicas),
        "status.readyReplicas": str(status.ready_replicas),
        "status.availableReplicas": str(status.available_replicas),
        "status.unavailableReplicas": str(status.unavailable_replicas),
    }
    _add_conditions(fields, status.conditions)
    return fields


def _service_spec_fields(spec: ServiceSpec) -> Fields:
    return _present(
        {
            "spec.type": spec.type,
            "spec.clusterIP": spec.cluster_ip,
            "spec.externalName": spec.external_name,
            "spec.ports": ",".join(render_port(port) for port in spec.ports),
            "spec.selector": render_selector(spec.selector),
        }
    )


def _service_status_fields(status: ServiceStatus) -> Fields:
    ingress = ",".join(entry.ip or entry.hostname for entry in status.load_balancer.ingress)
    return _present({"status.loadBalancer.ingress": ingress})


def _add_images(fields: Fields, prefix: str, containers: Iterable[Container]) -> None:
    for container in containers:
        if container.image:
            fields[f"{prefix}[{container.name}].image"] = container.image


def _add_conditions(fields: Fields, conditions: Iterable[Condition]) -> None:
    for cond in conditions:
        fields[f"status.conditions[{cond.type}]"] = render_condition(cond)


def _add_container_statuses(
    fields: Fields, prefix: str, statuses: Iterable[ContainerStatus]
) -> None:
    for status in statuses:
        at = f"{prefix}[{status.name}]"
        fields[f"{at}.ready"] = str(status.ready)
        fields[f"{at}.restartCount"] = str(status.restart_count)
        _put(fields, f"{at}.state", render_state(status.state))
        _put(fields, f"{at}.lastState", render_state(status.last_state))


def _present(fields: Mapping[str, str | None]) -> Fields:
    return {path: text for path, text in fields.items() if text}


def _put(fields: Fields, path: str, text: str | None) -> None:
    if text is not None:
        fields[path] = text


def _optional_int(value: int | None) -> str | None:
    return None if value is None else str(value)

"""The pod template the workload kinds share, and how a rollout reads in their status.

Deployments, StatefulSets, DaemonSets and Jobs embed a pod template; Pods
embed its spec. Its Structs, how its changes render and how it is shared
live here once. ``rollout_signals`` and ``template_changed`` are the edges
every workload with a template has.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec

from notifier.kinds.diffing import Diff, Fields, changed_items, name_of
from notifier.kinds.sharing import Sharing
from notifier.objects import Condition, ObjectMeta, Wire


class Container(Wire, frozen=True):
    name: str = ""
    image: str = ""


class PodSpec(Wire, frozen=True):
    node_name: str = ""
    restart_policy: str = ""
    containers: tuple[Container, ...] = ()
    init_containers: tuple[Container, ...] = ()


class PodTemplateSpec(Wire, frozen=True):
    metadata: ObjectMeta = ObjectMeta()  # `kubectl rollout restart` changes only its annotations
    spec: PodSpec = PodSpec()


def diff_pod_spec(diff: Diff, prefix: str, old: PodSpec, new: PodSpec) -> None:
    if old == new:
        return
    diff.text(f"{prefix}.nodeName", old.node_name, new.node_name)
    diff.keyed(
        f"{prefix}.initContainers", old.init_containers, new.init_containers, name_of, _image
    )
    diff.keyed(f"{prefix}.containers", old.containers, new.containers, name_of, _image)


def diff_template(diff: Diff, old: PodTemplateSpec, new: PodTemplateSpec) -> None:
    if old != new:
        diff_pod_spec(diff, "spec.template.spec", old.spec, new.spec)


def share_pod_spec(sharing: Sharing, spec: PodSpec) -> PodSpec:
    intern = sharing.values.intern
    return msgspec.structs.replace(
        spec,
        node_name=intern(spec.node_name),
        restart_policy=intern(spec.restart_policy),
        containers=intern(spec.containers),
        init_containers=intern(spec.init_containers),
    )


def share_template(sharing: Sharing, template: PodTemplateSpec) -> PodTemplateSpec:
    return msgspec.structs.replace(
        template,
        metadata=sharing.metadata(template.metadata),
        spec=share_pod_spec(sharing, template.spec),
    )


def share_workload(sharing: Sharing, obj: Any) -> Any:
    """A workload with its metadata and pod template shared (``obj.spec.template``)."""
    spec = msgspec.structs.replace(obj.spec, template=share_template(sharing, obj.spec.template))
    return msgspec.structs.replace(obj, metadata=sharing.metadata(obj.metadata), spec=spec)


def share_workload_and_conditions(sharing: Sharing, obj: Any) -> Any:
    """``share_workload``, and the status's conditions shared too."""
    shared = share_workload(sharing, obj)
    conditions = sharing.conditions(obj.status.conditions)
    return msgspec.structs.replace(
        shared, status=msgspec.structs.replace(obj.status, conditions=conditions)
    )


def template_signals(
    old: PodTemplateSpec, new: PodTemplateSpec, old_meta: ObjectMeta, new_meta: ObjectMeta
) -> Iterator[str]:
    """``ImageChanged``, and ``RolloutStarted`` when the template change raised the generation."""
    if old == new:
        return
    if images_changed(old.spec, new.spec):
        yield "ImageChanged"
    if new_meta.generation > old_meta.generation:
        yield "RolloutStarted"


def images_changed(old: PodSpec, new: PodSpec) -> bool:
    """A container present in both templates runs a different image."""
    return _renamed_image(old.init_containers, new.init_containers) or _renamed_image(
        old.containers, new.containers
    )


def condition(conditions: tuple[Condition, ...], kind: str) -> Condition | None:
    for cond in conditions:
        if cond.type == kind:
            return cond
    return None


def condition_is(conditions: tuple[Condition, ...], kind: str, status: str = "True") -> bool:
    found = condition(conditions, kind)
    return found is not None and found.status == status


def _renamed_image(old: tuple[Container, ...], new: tuple[Container, ...]) -> bool:
    if old == new:
        return False
    before, after = changed_items(old, new, name_of)
    return any(
        name in before and before[name].image != container.image
        for name, container in after.items()
    )


def _image(container: Container) -> Fields:
    return {".image": container.image} if container.image else {}

"""StatefulSets: the rollout states Deployments have, as far as their status tells.

A StatefulSet has no progress deadline, so it is never ``Stuck`` by its
own account: a rollout that does not finish stays ``Progressing`` (route it
with ``for:``-style grouping or watch its Pods' crash loops). The tests are
``kubectl rollout status``'s: the controller has observed the spec, every
replica runs the update revision and is ready.
"""

from __future__ import annotations

from collections.abc import Iterator

from notifier.kinds.deployment import replica_counts
from notifier.kinds.diffing import Diff
from notifier.kinds.spec import REPLICAS, ApiResource, Facts, KindSpec, facts
from notifier.kinds.workload import (
    PodTemplateSpec,
    diff_template,
    share_workload,
    template_signals,
)
from notifier.objects import Condition, Kind, KubeObject, Wire


class UpdateStrategy(Wire, frozen=True):
    type: str = ""


class StatefulSetSpec(Wire, frozen=True):
    replicas: int | None = None
    update_strategy: UpdateStrategy = UpdateStrategy()
    template: PodTemplateSpec = PodTemplateSpec()


class StatefulSetStatus(Wire, frozen=True):
    observed_generation: int = 0
    replicas: int = 0
    ready_replicas: int = 0
    current_replicas: int = 0
    updated_replicas: int = 0
    available_replicas: int = 0
    current_revision: str = ""
    update_revision: str = ""
    conditions: tuple[Condition, ...] = ()


class StatefulSet(KubeObject, frozen=True, tag="StatefulSet"):
    spec: StatefulSetSpec = StatefulSetSpec()
    status: StatefulSetStatus = StatefulSetStatus()


def desired(sts: StatefulSet) -> int:
    return 1 if sts.spec.replicas is None else sts.spec.replicas


def statefulset_states(sts: StatefulSet) -> frozenset[str]:
    status = sts.status
    states = {"Available" if status.available_replicas >= desired(sts) else "Unavailable"}
    if status.observed_generation < sts.metadata.generation or _rolling(sts):
        states.add("Progressing")
    elif status.ready_replicas >= desired(sts) and status.replicas == desired(sts):
        states.add("Complete")
    return frozenset(states)


def _rolling(sts: StatefulSet) -> bool:
    """Replicas still to update (RollingUpdate; OnDelete waits for someone to delete pods)."""
    status = sts.status
    if sts.spec.update_strategy.type == "OnDelete":
        return False
    if status.update_revision and status.update_revision != status.current_revision:
        return True
    return status.updated_replicas < desired(sts)


def _signals(old: StatefulSet, new: StatefulSet) -> Iterator[str]:
    if desired(old) != desired(new):
        yield "Scaled"
    yield from template_signals(old.spec.template, new.spec.template, old.metadata, new.metadata)


def _diff(diff: Diff, old: StatefulSet, new: StatefulSet) -> None:
    if old.spec != new.spec:
        diff.number("spec.replicas", old.spec.replicas, new.spec.replicas)
        diff_template(diff, old.spec.template, new.spec.template)
    if old.status != new.status:
        was, now = old.status, new.status
        replica_counts(diff, was, now)
        diff.text("status.updateRevision", was.update_revision, now.update_revision)
        diff.conditions(was.conditions, now.conditions)


def _facts(sts: StatefulSet, old: StatefulSet | None) -> Facts:
    status = sts.status
    text = f"{status.ready_replicas}/{desired(sts)} ready, {status.updated_replicas} updated"
    return facts(details=((REPLICAS, text),))


STATEFULSET = KindSpec(
    kind=Kind.STATEFULSET,
    struct=StatefulSet,
    api=ApiResource("apps", "v1", "statefulsets"),
    summary="rollouts (progressing, complete) and availability; no progress deadline",
    states={
        "Progressing": "`status.observedGeneration < generation`, or (RollingUpdate) "
        "`updateRevision != currentRevision` or `updatedReplicas <` desired",
        "Complete": "not progressing, `replicas ==` desired and `readyReplicas >=` desired",
        "Available": "`status.availableReplicas >=` desired (`spec.replicas`, unset is 1)",
        "Unavailable": "`status.availableReplicas <` desired",
    },
    signals={
        "Scaled": "`spec.replicas` changed (unset counts as 1)",
        "ImageChanged": "a container present in both pod templates runs a different image",
        "RolloutStarted": "`metadata.generation` rose with a new pod template",
    },
    states_of=statefulset_states,
    signals_between=_signals,
    diff=_diff,
    facts=_facts,
    share=share_workload,
    warning=("Unavailable",),
    unsettled=("Progressing",),
    workload=True,
)

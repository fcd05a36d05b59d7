"""DaemonSets: rollouts (progressing, complete), pods unavailable, and pods where none belong.

The tests are ``kubectl rollout status``'s: the controller has observed the
spec, every node that should run a pod runs the updated one, and each is
available. ``Misscheduled`` holds while pods run on nodes that should not
have them (a changed node selector or taint).
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


class DaemonSetSpec(Wire, frozen=True):
    template: PodTemplateSpec = PodTemplateSpec()


class DaemonSetStatus(Wire, frozen=True):
    observed_generation: int = 0
    desired_number_scheduled: int = 0
    current_number_scheduled: int = 0
    updated_number_scheduled: int = 0
    number_ready: int = 0
    number_available: int = 0
    number_unavailable: int = 0
    number_misscheduled: int = 0
    conditions: tuple[Condition, ...] = ()


class DaemonSet(KubeObject, frozen=True, tag="DaemonSet"):
    spec: DaemonSetSpec = DaemonSetSpec()
    status: DaemonSetStatus = DaemonSetStatus()


def daemonset_states(ds: DaemonSet) -> frozenset[str]:
    status = ds.status
    wanted = status.desired_number_scheduled
    states = {"Unavailable" if status.number_unavailable > 0 else "Available"}
    if status.number_misscheduled > 0:
        states.add("Misscheduled")
    if status.observed_generation < ds.metadata.generation or (
        status.updated_number_scheduled < wanted or status.number_available < wanted
    ):
        states.add("Progressing")
    else:
        states.add("Complete")
    return frozenset(states)


def _signals(old: DaemonSet, new: DaemonSet) -> Iterator[str]:
    yield from template_signals(old.spec.template, new.spec.template, old.metadata, new.metadata)


def _diff(diff: Diff, old: DaemonSet, new: DaemonSet) -> None:
    diff_template(diff, old.spec.template, new.spec.template)
    if old.status != new.status:
        replica_counts(diff, old.status, new.status)
        diff.conditions(old.status.conditions, new.status.conditions)


def _facts(ds: DaemonSet, old: DaemonSet | None) -> Facts:
    status = ds.status
    text = f"{status.number_ready}/{status.desired_number_scheduled} ready"
    if status.number_misscheduled:
        text += f", {status.number_misscheduled} misscheduled"
    return facts(details=((REPLICAS, text),))


DAEMONSET = KindSpec(
    kind=Kind.DAEMONSET,
    struct=DaemonSet,
    api=ApiResource("apps", "v1", "daemonsets"),
    summary="rollouts (progressing, complete), unavailable and misscheduled pods",
    states={
        "Progressing": "`status.observedGeneration < generation`, or `updatedNumberScheduled` "
        "or `numberAvailable` below `desiredNumberScheduled`",
        "Complete": "not progressing",
        "Available": "`status.numberUnavailable == 0`",
        "Unavailable": "`status.numberUnavailable > 0`",
        "Misscheduled": "`status.numberMisscheduled > 0`",
    },
    signals={
        "ImageChanged": "a container present in both pod templates runs a different image",
        "RolloutStarted": "`metadata.generation` rose with a new pod template",
    },
    states_of=daemonset_states,
    signals_between=_signals,
    diff=_diff,
    facts=_facts,
    share=share_workload,
    warning=("Unavailable", "Misscheduled"),
    unsettled=("Progressing",),
    workload=True,
)

"""Deployments: where a rollout stands (progressing, complete, stuck) and availability.

The three rollout states exclude one another and are checked in the order
``Stuck``, ``Complete``, ``Progressing``; ``Complete`` is the deployment
controller's own test (DeploymentComplete) plus its condition.
"""

from __future__ import annotations

from collections.abc import Iterator

import msgspec

from notifier.kinds.diffing import Diff
from notifier.kinds.spec import REPLICAS, ApiResource, Facts, KindSpec, facts
from notifier.kinds.workload import (
    PodTemplateSpec,
    condition,
    condition_is,
    diff_template,
    share_workload_and_conditions,
    template_signals,
)
from notifier.objects import Condition, Kind, KubeObject, Wire

_ROLLOUT_FINISHED = "NewReplicaSetAvailable"  # the Progressing condition's reason once done
_DEADLINE_EXCEEDED = "ProgressDeadlineExceeded"


class DeploymentSpec(Wire, frozen=True):
    replicas: int | None = None
    paused: bool = False
    progress_deadline_seconds: int | None = None
    template: PodTemplateSpec = PodTemplateSpec()


class DeploymentStatus(Wire, frozen=True):
    observed_generation: int = 0
    replicas: int = 0
    updated_replicas: int = 0
    ready_replicas: int = 0
    available_replicas: int = 0
    unavailable_replicas: int = 0
    conditions: tuple[Condition, ...] = ()


class Deployment(KubeObject, frozen=True, tag="Deployment"):
    spec: DeploymentSpec = DeploymentSpec()
    status: DeploymentStatus = DeploymentStatus()


def desired_replicas(deployment: Deployment) -> int:
    """``spec.replicas``, which the API server defaults to 1 when unset."""
    replicas = deployment.spec.replicas
    return 1 if replicas is None else replicas


def deployment_states(deployment: Deployment) -> frozenset[str]:
    conditions = deployment.status.conditions
    states = set(_rollout_state(deployment, condition(conditions, "Progressing")))
    # A rollout under way (a new Deployment's first) is short of available pods by design:
    # it is Progressing, and Stuck once its progress deadline passes.
    rolling = "Progressing" in states
    states.update(name for name in availability(conditions) if not rolling or name == "Available")
    if deployment.spec.paused:
        states.add("Paused")
    if condition_is(conditions, "ReplicaFailure"):
        states.add("ReplicaFailure")
    return frozenset(states)


def availability(conditions: tuple[Condition, ...]) -> Iterator[str]:
    available = condition(conditions, "Available")
    if available is not None:
        yield "Available" if available.status == "True" else "Unavailable"


def _rollout_state(deployment: Deployment, progressing: Condition | None) -> Iterator[str]:
    """At most one of Stuck, Complete, Progressing: where the rollout stands."""
    if _is_stuck(progressing):
        yield "Stuck"
    elif _is_complete(deployment, progressing):
        yield "Complete"
    elif not deployment.spec.paused and _is_progressing(deployment, progressing):
        yield "Progressing"


def _is_stuck(progressing: Condition | None) -> bool:
    return (
        progressing is not None
        and progressing.status == "False"
        and progressing.reason == _DEADLINE_EXCEEDED
    )


def _is_complete(deployment: Deployment, progressing: Condition | None) -> bool:
    if progressing is None or progressing.status != "True":
        return False
    status = deployment.status
    desired = desired_replicas(deployment)
    return (
        progressing.reason == _ROLLOUT_FINISHED
        and status.updated_replicas == desired
        and status.replicas == desired
        and status.available_replicas == desired
        and status.observed_generation >= deployment.metadata.generation
    )


def _is_progressing(deployment: Deployment, progressing: Condition | None) -> bool:
    """A spec the controller has not acted on yet, pods still to update, or a rollout reason."""
    status = deployment.status
    if status.observed_generation < deployment.metadata.generation:
        return True
    if status.updated_replicas < desired_replicas(deployment):
        return True
    return (
        progressing is not None
        and progressing.status == "True"
        and progressing.reason != _ROLLOUT_FINISHED
    )


def _signals(old: Deployment, new: Deployment) -> Iterator[str]:
    if desired_replicas(old) != desired_replicas(new):
        yield "Scaled"
    for signal in template_signals(
        old.spec.template, new.spec.template, old.metadata, new.metadata
    ):
        # A template edited while paused starts nothing until the deployment is resumed.
        if signal != "RolloutStarted" or not new.spec.paused:
            yield signal


def _diff(diff: Diff, old: Deployment, new: Deployment) -> None:
    if old.spec != new.spec:
        was, now = old.spec, new.spec
        diff.number("spec.replicas", was.replicas, now.replicas)
        diff.flag("spec.paused", was.paused, now.paused)
        diff.number(
            "spec.progressDeadlineSeconds",
            was.progress_deadline_seconds,
            now.progress_deadline_seconds,
        )
        diff_template(diff, was.template, now.template)
    if old.status != new.status:
        replica_counts(diff, old.status, new.status)
        diff.conditions(old.status.conditions, new.status.conditions)


def replica_counts(diff: Diff, old: msgspec.Struct, new: msgspec.Struct) -> None:
    """``status.<field>`` for every integer field of a workload's status."""
    for name, path in zip(old.__struct_fields__, old.__struct_encode_fields__, strict=True):
        was, now = getattr(old, name), getattr(new, name)
        if isinstance(was, int) and not isinstance(was, bool):
            diff.number(f"status.{path}", was, now)


def _facts(deployment: Deployment, old: Deployment | None) -> Facts:
    ready, wanted = deployment.status.ready_replicas, deployment.spec.replicas
    replicas = f"{ready}/{wanted if wanted is not None else '?'} ready"
    return trouble_facts(deployment.status.conditions, ((REPLICAS, replicas),))


def trouble_facts(conditions: tuple[Condition, ...], details: tuple[tuple[str, str], ...]) -> Facts:
    """Reason and message of the condition in trouble, else of the first one."""
    chosen = next((c for c in conditions if _is_trouble(c)), next(iter(conditions), None))
    if chosen is None:
        return facts(details=details)
    return facts(chosen.reason, chosen.message, details)


def _is_trouble(cond: Condition) -> bool:
    """``ReplicaFailure`` is bad when true; ``Available`` and ``Progressing`` when false."""
    if cond.type == "ReplicaFailure":
        return cond.status == "True"
    return cond.status == "False"


DEPLOYMENT = KindSpec(
    kind=Kind.DEPLOYMENT,
    struct=Deployment,
    api=ApiResource("apps", "v1", "deployments"),
    summary="rollouts: progressing, complete, stuck; availability",
    states={
        "Stuck": "`status.conditions[Progressing]` is `False/ProgressDeadlineExceeded`",
        "Complete": "the controller's DeploymentComplete test: `updated == replicas == "
        "available ==` desired, `observedGeneration >= generation`, "
        "Progressing `True/NewReplicaSetAvailable`",
        "Progressing": "not paused, and the spec is not yet observed, fewer pods updated than "
        "desired, or Progressing `True` with another reason",
        "ReplicaFailure": "`status.conditions[ReplicaFailure]` is `True`",
        "Available": "`status.conditions[Available]` is `True`",
        "Unavailable": "`status.conditions[Available]` is not `True`, while not `Progressing` "
        "(a rollout under way, a new Deployment's first, is short of pods by design)",
        "Paused": "`spec.paused`",
    },
    signals={
        "Scaled": "`spec.replicas` changed (unset counts as 1)",
        "ImageChanged": "a container present in both pod templates runs a different image",
        "RolloutStarted": "`metadata.generation` rose with a new pod template, not paused",
    },
    states_of=deployment_states,
    signals_between=_signals,
    diff=_diff,
    facts=_facts,
    share=share_workload_and_conditions,
    critical=("Stuck", "ReplicaFailure"),
    warning=("Unavailable",),
    unsettled=("Progressing",),
    workload=True,
)

"""HorizontalPodAutoscalers (autoscaling/v2): at its maximum, unable to scale, or blind.

``AtMaxReplicas``: the autoscaler wants more than ``maxReplicas`` allows
(``ScalingLimited`` is ``True`` with reason ``TooManyReplicas``), or runs at
the maximum. ``UnableToScale``: ``AbleToScale`` is ``False`` (the target's
scale subresource failed). ``MetricsUnavailable``: ``ScalingActive`` is
``False`` (no metrics: a missing metrics-server, a wrong metric name).
"""

from __future__ import annotations

from notifier.kinds.deployment import trouble_facts
from notifier.kinds.diffing import Diff
from notifier.kinds.spec import REPLICAS, ApiResource, Facts, KindSpec, shared_spec
from notifier.kinds.workload import condition, condition_is
from notifier.objects import Condition, Kind, KubeObject, Wire


class ScaleTarget(Wire, frozen=True):
    kind: str = ""
    name: str = ""


class HorizontalPodAutoscalerSpec(Wire, frozen=True):
    min_replicas: int | None = None
    max_replicas: int = 0
    scale_target_ref: ScaleTarget = ScaleTarget()


class HorizontalPodAutoscalerStatus(Wire, frozen=True):
    current_replicas: int = 0
    desired_replicas: int = 0
    conditions: tuple[Condition, ...] = ()


class HorizontalPodAutoscaler(KubeObject, frozen=True, tag="HorizontalPodAutoscaler"):
    spec: HorizontalPodAutoscalerSpec = HorizontalPodAutoscalerSpec()
    status: HorizontalPodAutoscalerStatus = HorizontalPodAutoscalerStatus()


def hpa_states(hpa: HorizontalPodAutoscaler) -> frozenset[str]:
    conditions, states = hpa.status.conditions, set[str]()
    limited = condition(conditions, "ScalingLimited")
    at_max = hpa.spec.max_replicas > 0 and hpa.status.current_replicas >= hpa.spec.max_replicas
    if at_max or (
        limited is not None and limited.status == "True" and limited.reason == "TooManyReplicas"
    ):
        states.add("AtMaxReplicas")
    if condition_is(conditions, "AbleToScale", "False"):
        states.add("UnableToScale")
    if condition_is(conditions, "ScalingActive", "False"):
        states.add("MetricsUnavailable")
    return frozenset(states)


def _signals(old: HorizontalPodAutoscaler, new: HorizontalPodAutoscaler) -> list[str]:
    return ["Scaled"] if old.status.desired_replicas != new.status.desired_replicas else []


def _diff(diff: Diff, old: HorizontalPodAutoscaler, new: HorizontalPodAutoscaler) -> None:
    diff.number("spec.minReplicas", old.spec.min_replicas, new.spec.min_replicas)
    diff.number("spec.maxReplicas", old.spec.max_replicas, new.spec.max_replicas)
    was, now = old.status, new.status
    diff.number("status.currentReplicas", was.current_replicas, now.current_replicas)
    diff.number("status.desiredReplicas", was.desired_replicas, now.desired_replicas)
    diff.conditions(was.conditions, now.conditions)


def _facts(hpa: HorizontalPodAutoscaler, old: HorizontalPodAutoscaler | None) -> Facts:
    status = hpa.status
    wanted, most = status.desired_replicas, hpa.spec.max_replicas
    text = f"{status.current_replicas} now, {wanted} wanted, max {most}"
    return trouble_facts(status.conditions, ((REPLICAS, text),))


HPA = KindSpec(
    kind=Kind.HPA,
    struct=HorizontalPodAutoscaler,
    api=ApiResource("autoscaling", "v2", "horizontalpodautoscalers"),
    summary="at its maximum, unable to scale, or without metrics",
    states={
        "AtMaxReplicas": "`status.currentReplicas >= spec.maxReplicas`, or "
        "`status.conditions[ScalingLimited]` is `True/TooManyReplicas`",
        "UnableToScale": "`status.conditions[AbleToScale]` is `False`",
        "MetricsUnavailable": "`status.conditions[ScalingActive]` is `False`",
    },
    signals={"Scaled": "`status.desiredReplicas` changed"},
    states_of=hpa_states,
    signals_between=_signals,
    diff=_diff,
    facts=_facts,
    share=shared_spec,
    warning=("AtMaxReplicas", "UnableToScale", "MetricsUnavailable"),
)

"""PodDisruptionBudgets (policy/v1): a budget that allows no disruption blocks every drain.

The disruption controller (kube-controller-manager) keeps the status: how many
of the budget's pods are healthy, how many must stay healthy, how many may be
evicted now. ``Blocking``: the budget expects pods and allows none to go, so a
``kubectl drain``, a node upgrade or a cluster autoscaler's scale-down waits
on it (``minAvailable`` equal to the replicas, or ``maxUnavailable: 0``).
``Unhealthy``: fewer healthy pods than the budget wants. ``Allowing``: at
least one pod may be evicted now.
"""

from __future__ import annotations

from notifier.kinds.deployment import trouble_facts
from notifier.kinds.diffing import Diff
from notifier.kinds.spec import ApiResource, Facts, KindSpec, shared_spec
from notifier.objects import Condition, Kind, KubeObject, Wire

PDB_KIND = Kind("PodDisruptionBudget")


class PodDisruptionBudgetSpec(Wire, frozen=True):
    min_available: int | str | None = None  # a count, or a percentage such as "50%"
    max_unavailable: int | str | None = None


class PodDisruptionBudgetStatus(Wire, frozen=True):
    observed_generation: int = 0
    current_healthy: int = 0
    desired_healthy: int = 0
    expected_pods: int = 0
    disruptions_allowed: int = 0
    conditions: tuple[Condition, ...] = ()


class PodDisruptionBudget(KubeObject, frozen=True, tag="PodDisruptionBudget"):
    spec: PodDisruptionBudgetSpec = PodDisruptionBudgetSpec()
    status: PodDisruptionBudgetStatus = PodDisruptionBudgetStatus()


def pdb_states(pdb: PodDisruptionBudget) -> frozenset[str]:
    status = pdb.status
    if status.observed_generation < pdb.metadata.generation:
        return frozenset()  # the controller has not looked at this spec yet: no verdict
    states = set[str]()
    if status.expected_pods > 0 and status.disruptions_allowed <= 0:
        states.add("Blocking")
    if status.disruptions_allowed > 0:
        states.add("Allowing")
    if status.current_healthy < status.desired_healthy:
        states.add("Unhealthy")
    return frozenset(states)


def _diff(diff: Diff, old: PodDisruptionBudget, new: PodDisruptionBudget) -> None:
    diff.text("spec.minAvailable", _text(old.spec.min_available), _text(new.spec.min_available))
    diff.text(
        "spec.maxUnavailable", _text(old.spec.max_unavailable), _text(new.spec.max_unavailable)
    )
    was, now = old.status, new.status
    diff.number("status.currentHealthy", was.current_healthy, now.current_healthy)
    diff.number("status.desiredHealthy", was.desired_healthy, now.desired_healthy)
    diff.number("status.disruptionsAllowed", was.disruptions_allowed, now.disruptions_allowed)
    diff.conditions(was.conditions, now.conditions)


def _text(value: int | str | None) -> str:
    return "" if value is None else str(value)


def _facts(pdb: PodDisruptionBudget, old: PodDisruptionBudget | None) -> Facts:
    status = pdb.status
    text = (
        f"{status.current_healthy} healthy of {status.expected_pods}, "
        f"{status.desired_healthy} needed, {status.disruptions_allowed} may be evicted"
    )
    return trouble_facts(status.conditions, (("Pods", text),))


PDB = KindSpec(
    kind=PDB_KIND,
    struct=PodDisruptionBudget,
    api=ApiResource("policy", "v1", "poddisruptionbudgets"),
    summary="budgets that block every drain, or have too few healthy pods",
    states={
        "Blocking": "`status.expectedPods > 0` and `status.disruptionsAllowed` is 0: "
        "no pod may be evicted, so a drain waits",
        "Allowing": "`status.disruptionsAllowed > 0`",
        "Unhealthy": "`status.currentHealthy < status.desiredHealthy`",
    },
    signals={},
    states_of=pdb_states,
    diff=_diff,
    facts=_facts,
    share=shared_spec,
    warning=("Blocking", "Unhealthy"),
)

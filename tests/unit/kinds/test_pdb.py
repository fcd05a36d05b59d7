"""PodDisruptionBudgets: states from the disruption controller's status."""

from __future__ import annotations

from typing import Any

import msgspec

from notifier.kinds.pdb import PDB, PodDisruptionBudget, pdb_states
from notifier.kinds.registry import spec_of


def _budget(generation: int = 1, observed: int = 1, **status: int) -> PodDisruptionBudget:
    doc: dict[str, Any] = {
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "web", "namespace": "shop", "generation": generation},
        "spec": {"minAvailable": "50%"},
        "status": {"observedGeneration": observed, **status},
    }
    return msgspec.convert(doc, type=PodDisruptionBudget)


def test_a_budget_that_allows_no_eviction_of_the_pods_it_expects_blocks() -> None:
    budget = _budget(expectedPods=2, currentHealthy=2, desiredHealthy=2, disruptionsAllowed=0)
    assert pdb_states(budget) == {"Blocking"}
    assert spec_of(budget) is PDB and PDB.severity(pdb_states(budget)) == "warning"


def test_a_budget_with_no_pods_blocks_nothing() -> None:
    assert pdb_states(_budget(expectedPods=0, disruptionsAllowed=0)) == frozenset()


def test_too_few_healthy_pods_is_unhealthy_and_blocking() -> None:
    budget = _budget(expectedPods=3, currentHealthy=1, desiredHealthy=2, disruptionsAllowed=0)
    assert pdb_states(budget) == {"Blocking", "Unhealthy"}


def test_room_to_evict_is_allowing() -> None:
    budget = _budget(expectedPods=3, currentHealthy=3, desiredHealthy=2, disruptionsAllowed=1)
    assert pdb_states(budget) == {"Allowing"}


def test_a_spec_the_controller_has_not_seen_yet_has_no_verdict() -> None:
    assert pdb_states(_budget(generation=2, observed=1, expectedPods=2)) == frozenset()


def test_facts_say_how_many_may_go() -> None:
    budget = _budget(expectedPods=2, currentHealthy=2, desiredHealthy=2, disruptionsAllowed=0)
    assert PDB.facts(budget, None)["details"] == (
        ("Pods", "2 healthy of 2, 2 needed, 0 may be evicted"),
    )

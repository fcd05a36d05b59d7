"""When a Pod is ``Evicted``: the kubelet's eviction whatever its program's exit code, and
not a Pod that simply ended or that someone else deleted (docs/transitions.md, "Evicted").

The kubelet v1.35 writes ``Failed``/``Evicted`` and its words when the program exits non-zero
on SIGTERM; when it exits 0 the Pod ends ``Succeeded`` with no reason, with a
``DisruptionTarget`` condition after a node-pressure eviction and with none after an
emptyDir's limit (tests/data/kubelet/eviction-clean.yaml, recorded on a real node).
"""

from __future__ import annotations

import pytest

from notifier.kinds.pod import ENDED_BY_KUBELET, POD, Pod, PodStatus
from notifier.kinds.workload import PodSpec
from notifier.objects import Condition, ObjectMeta
from notifier.origin import Origin
from notifier.rules.facts.contexts import single_context
from notifier.transitions.detecting import detect
from notifier.transitions.states import states_of

PRESSURE = "The node was low on resource: memory. Threshold quantity: 100Mi, available: 90Mi. "
DELETED = "2024-05-01T10:07:00Z"


def _pod(
    phase: str,
    policy: str = "Always",
    disruption: str = "",
    deleted: bool = False,
    reason: str = "",
) -> Pod:
    conditions = (
        (Condition(type="DisruptionTarget", status="True", reason=disruption, message=PRESSURE),)
        if disruption
        else ()
    )
    return Pod(
        metadata=ObjectMeta(name="p", deletion_timestamp=DELETED if deleted else None),
        spec=PodSpec(restart_policy=policy),
        status=PodStatus(phase=phase, reason=reason, conditions=conditions),
    )


@pytest.mark.parametrize(
    ("pod", "expected"),
    [
        pytest.param(_pod("Failed", reason="Evicted"), {"Failed", "Evicted"}, id="exit 143"),
        pytest.param(
            _pod("Succeeded"), {"Succeeded", "Evicted"}, id="exit 0 past an emptyDir limit"
        ),
        pytest.param(
            _pod("Succeeded", disruption="TerminationByKubelet"),
            {"Succeeded", "Evicted"},
            id="exit 0 on node pressure",
        ),
        pytest.param(
            _pod("Succeeded", "OnFailure", disruption="TerminationByKubelet"),
            {"Succeeded", "Evicted"},
            id="a Job's Pod on node pressure",
        ),
        pytest.param(_pod("Succeeded", "Never"), {"Succeeded"}, id="a Job's Pod that completes"),
        pytest.param(_pod("Succeeded", "OnFailure"), {"Succeeded"}, id="OnFailure, completes"),
        pytest.param(
            _pod("Succeeded", deleted=True),
            {"Succeeded", "Terminating"},
            id="deleted by a user, exit 0",
        ),
        *(
            pytest.param(
                _pod("Failed", disruption=reason, deleted=True),
                {"Failed", "Terminating"},
                id=reason,
            )
            for reason in (
                "PreemptionByScheduler",
                "DeletionByTaintManager",
                "EvictionByEvictionAPI",
                "DeletionByPodGC",
            )
        ),
    ],
)
def test_evicted_is_the_kubelets_eviction_only(pod: Pod, expected: set[str]) -> None:
    assert states_of(pod) == expected


def test_a_disruption_not_true_is_no_eviction() -> None:
    pending = Condition(type="DisruptionTarget", status="False", reason="TerminationByKubelet")
    pod = Pod(
        spec=PodSpec(restart_policy="Never"),
        status=PodStatus(phase="Failed", conditions=(pending,)),
    )
    assert states_of(pod) == {"Failed"}


@pytest.mark.parametrize(
    ("pod", "told"),
    [
        pytest.param(_pod("Failed", reason="Evicted"), ("Evicted", ""), id="its own reason"),
        pytest.param(
            _pod("Succeeded", disruption="TerminationByKubelet"),
            ("Evicted", PRESSURE),
            id="the kubelet's words on its condition",
        ),
        pytest.param(_pod("Succeeded"), ("Evicted", ENDED_BY_KUBELET), id="no words: ours"),
        pytest.param(_pod("Succeeded", "Never"), ("", ""), id="a completed Job's Pod"),
    ],
)
def test_an_evictions_message_says_why(pod: Pod, told: tuple[str, str]) -> None:
    facts = POD.facts(pod, None)
    assert (facts["reason"], facts["message"]) == told


def test_the_kubelets_words_are_bounded_in_the_message() -> None:
    words = "The node was low on resource: memory. <!channel> " * 200
    cause = Condition(
        type="DisruptionTarget", status="True", reason="TerminationByKubelet", message=words
    )
    running = Pod(metadata=ObjectMeta(name="p", resource_version="1"), status=PodStatus("Running"))
    evicted = Pod(
        metadata=ObjectMeta(name="p", resource_version="2"),
        status=PodStatus("Succeeded", conditions=(cause,)),
    )
    found = detect(running, evicted, origin=Origin.LIVE, observed_at=1.0, correlation_id="t")
    assert found is not None and "Evicted" in found.new_states
    context = single_context(found, cluster="", rule="r", owner=None)
    [said] = [value for label, value in context["details"] if label == "Reason"]
    assert said.startswith("Evicted: The node was low") and len(said) <= len("Evicted: ") + 500

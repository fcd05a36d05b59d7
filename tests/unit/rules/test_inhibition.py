"""Inhibition: a Node NotReady mutes its Pods' failures, and only while it lasts."""

from __future__ import annotations

from typing import Any

import pytest

from notifier.rules.config.problems import RulesError
from notifier.rules.engine import RulesEngine
from notifier.transitions.model import Transition
from tests.unit.rules.builders import NOW, POD_JSON, crashloop, ruleset, transition

RULES = [{"name": "pod-failures", "match": {"kinds": ["Pod"], "to": ["CrashLoopBackOff"]},
          "sinks": ["console"], "dedup_window": 0}]  # fmt: skip
NODE_DOWN = {
    "name": "node-down",
    "source": {"kinds": ["Node"], "to": ["NotReady", "Unknown"]},
    "target": {"kinds": ["Pod"]},
    "equal": ["node"],
}


def _node(name: str, ready: str, version: str) -> dict[str, Any]:
    return {
        "kind": "Node",
        "metadata": {"name": name, "uid": f"n-{name}", "resourceVersion": version},
        "status": {"conditions": [{"type": "Ready", "status": ready}]},
    }


def _node_goes(name: str, ready: str, version: str) -> Transition:
    states = {"True": {"Ready"}, "False": {"NotReady"}, "Unknown": {"Unknown"}}[ready]
    before = _node(name, "True" if ready != "True" else "False", str(int(version) - 1))
    return transition(before, _node(name, ready, version), new_states=states)


def _pod_on(node: str, name: str = "web-1") -> Transition:
    meta = {**POD_JSON["metadata"], "name": name, "uid": f"p-{name}"}
    return crashloop(metadata=meta, spec={**POD_JSON.get("spec", {}), "nodeName": node})


def _engine() -> RulesEngine:
    compiled = ruleset(RULES, inhibit_rules=[NODE_DOWN])
    return RulesEngine(lambda: compiled, clock=lambda: NOW)


def test_a_not_ready_node_mutes_its_pods_failures_and_only_its_own() -> None:
    engine = _engine()
    engine.process(_node_goes("worker-1", "False", "10"))
    muted = engine.decide(_pod_on("worker-1"))
    assert muted.notifications == []
    assert muted.suppressed == [("pod-failures", "inhibited by node-down")]
    assert len(engine.process(_pod_on("worker-2", "api-1"))) == 1


def test_the_inhibition_ends_when_the_node_is_ready_again_or_gone() -> None:
    engine = _engine()
    engine.process(_node_goes("worker-1", "Unknown", "10"))
    assert engine.process(_pod_on("worker-1")) == []
    engine.process(_node_goes("worker-1", "True", "11"))
    assert len(engine.process(_pod_on("worker-1", "web-2"))) == 1
    engine.process(_node_goes("worker-1", "False", "12"))
    assert engine.process(_pod_on("worker-1", "web-3")) == []
    engine.process(transition(_node("worker-1", "False", "12"), None))
    assert len(engine.process(_pod_on("worker-1", "web-4"))) == 1


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"source": {"kinds": ["Node"]}}, "name the states that make a source active"),
        ({"source": {"kinds": ["Node"], "to": ["Stuck"]}}, "'Stuck' is not a state of Node"),
        ({"equal": ["zone"]}, "unknown key 'zone'"),
        ({"target": {"kinds": ["Pdo"]}}, "unknown kind 'Pdo'"),
    ],
    ids=["no-states", "not-a-state", "bad-key", "bad-kind"],
)
def test_a_bad_inhibition_is_refused_with_its_place(change: dict[str, Any], expected: str) -> None:
    with pytest.raises(RulesError) as caught:
        ruleset(RULES, inhibit_rules=[{**NODE_DOWN, **change}])
    assert expected in str(caught.value)
    assert "inhibit_rules[0]" in str(caught.value)

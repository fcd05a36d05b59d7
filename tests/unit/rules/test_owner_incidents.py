"""``fold_into: owner``: the objects of one owner in trouble are one incident, told once and
resolved once (issue #37), played from the kubelet's sequences."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from notifier.config import ConfigError, read_config_text
from notifier.origin import Origin
from notifier.rules.engine import RulesEngine
from notifier.rules.ruleset import Ruleset
from notifier.transitions.detecting import detect_all
from tests.unit.rules import kubelet
from tests.unit.rules.builders import NOW, decode
from tests.unit.rules.test_incidents import _chart_ruleset, per_sink, play
from tests.unit.rules.test_incidents import _ruleset as incident_ruleset

CRASH_LOOPS: dict[str, Any] = {
    "name": "crash-loops",
    "match": {"kinds": ["Pod"], "to": ["CrashLoopBackOff", "OOMKilled"]},
    "send_resolved": True,
    "fold_into": "owner",
}
ONCE_AND_RESOLVED = {("chat", "firing"): 1, ("chat", "resolved"): 1}


def _ruleset(*rules: dict[str, Any]) -> Ruleset:
    config = {"watch": {"kinds": ["Pod", "Job"]}, "sinks": [{"name": "chat", "type": "console"}],
              "rules": [{"sinks": ["chat"], **rule} for rule in rules]}  # fmt: skip
    return read_config_text(yaml.safe_dump(config), "c.yaml", environ={}).ruleset


def _later(steps: list[kubelet.Step], by: float) -> list[kubelet.Step]:
    return [(at + by, data) for at, data in steps]


def _loops(
    *names: str, owner: tuple[str, str] | None = ("ReplicaSet", "web-7d4b9c6f5d")
) -> list[list[kubelet.Step]]:
    """A crash loop per name, each starting 7 s after the one before, all recovering."""
    return [
        _later(kubelet.crash_loop(name, recovers=True, owner=owner), 7.0 * index)
        for index, name in enumerate(names)
    ]


def test_a_deployments_pods_crash_looping_are_one_incident() -> None:
    told = play(_ruleset(CRASH_LOOPS), *_loops("web-a", "web-b", "web-c"))
    assert per_sink(told) == ONCE_AND_RESOLVED
    [firing, resolved] = told
    assert firing.fingerprint == resolved.fingerprint
    assert "web-a" in firing.facts["summary"]


def test_the_owners_messages_say_how_many_pods_are_in_it_and_which() -> None:
    told = play(_ruleset(CRASH_LOOPS), *_loops("web-a", "web-b", "web-c"))
    [firing, resolved] = told
    assert firing.facts["folded"] == {"count": 1, "names": ["web-a"], "more": 0}
    assert resolved.facts["folded"] == {"count": 3, "names": ["web-a", "web-b", "web-c"],
                                        "more": 0}  # fmt: skip
    assert ["Pods", "3: web-a, web-b, web-c"] in resolved.facts["details"]
    assert not any(label == "Pods" for label, _ in firing.facts["details"])


def test_a_large_owners_message_names_the_first_ten_and_counts_the_rest() -> None:
    names = [f"web-{index:02d}" for index in range(12)]
    [_, resolved] = play(_ruleset(CRASH_LOOPS), *_loops(*names))
    assert resolved.facts["folded"] == {"count": 12, "names": names[:10], "more": 2}
    listed = f"12: {', '.join(names[:10])} and 2 more"
    assert ["Pods", listed] in resolved.facts["details"]


def test_without_fold_into_each_pod_is_its_own_incident() -> None:
    rule = {key: value for key, value in CRASH_LOOPS.items() if key != "fold_into"}
    told = play(_ruleset(rule), *_loops("web-a", "web-b", "web-c"))
    assert per_sink(told) == {("chat", "firing"): 3, ("chat", "resolved"): 3}


def test_a_pod_of_another_owner_or_of_none_is_still_told() -> None:
    web = _loops("web-a", "web-b")
    api = _loops("api-a", owner=("ReplicaSet", "api-5f6d8c7b9a"))
    alone = _loops("alone", owner=None)
    told = play(_ruleset(CRASH_LOOPS), *web, *api, *alone)
    assert per_sink(told) == {("chat", "firing"): 3, ("chat", "resolved"): 3}
    assert len({n.fingerprint for n in told}) == 3


def test_the_owners_incident_ends_when_its_last_pod_recovers() -> None:
    """One pod recovers early (back-offs 10, 20 s), another loops on: the resolution waits for
    the last one."""
    short = kubelet.crash_loop("web-a", back_offs=(10.0, 20.0), recovers=True)
    long = _later(kubelet.crash_loop("web-b", recovers=True), 5.0)
    engine = RulesEngine(lambda: _ruleset(CRASH_LOOPS), clock=lambda: NOW)
    told: list[Any] = []
    steps = sorted([(at, 0, d) for at, d in short] + [(at, 1, d) for at, d in long])
    last: dict[int, Any] = {}
    second = 0.0
    for at, index, data in steps:
        while second < at:
            second += 1.0
            told += [(second, n) for n in engine.tick(NOW + second).notifications]
        new = decode(data)
        for change in detect_all(last.get(index), new, origin=Origin.LIVE, observed_at=NOW + at,
                                 correlation_id="t"):  # fmt: skip
            told += [(at, n) for n in engine.process(change, now=NOW + at)]
        last[index] = new
    for tick in range(1, 120):
        told += [(second + tick, n) for n in engine.tick(NOW + second + tick).notifications]
    [(_, firing), (resolved_at, resolved)] = told
    assert resolved.resolves and resolved_at > long[-1][0] + 59
    assert short[-1][0] + 60 < long[-1][0]  # the first pod's end came long before
    assert "CrashLoopBackOff" in resolved.facts["resolved_states"]
    assert firing.fingerprint == resolved.fingerprint


def test_a_job_and_its_failed_pods_are_one_incident() -> None:
    rule = {"name": "failed-jobs", "match": {"kinds": ["Job", "Pod"], "to": ["Failed"]},
            "fold_into": "owner"}  # fmt: skip
    first = kubelet.job_pod("nightly-a", fails=True)
    second = _later(kubelet.job_pod("nightly-b", fails=True), 10.0)
    told = play(_ruleset(rule), first, second, kubelet.job_failing(at=18.0))
    assert per_sink(told) == {("chat", "firing"): 1}
    unfolded = {key: value for key, value in rule.items() if key != "fold_into"}
    assert per_sink(play(_ruleset(unfolded), first, second, kubelet.job_failing(at=18.0))) == {
        ("chat", "firing"): 3
    }


NO_TO = {"name": "r", "match": {"kinds": ["Pod"]}, "fold_into": "owner"}
NOT_OWNER = {"name": "r", "match": {"to": ["Failed"]}, "fold_into": "node"}
DROP = {"name": "r", "action": "drop", "match": {"to": ["Failed"]}, "fold_into": "owner"}


@pytest.mark.parametrize(
    ("rule", "fragment"),
    [
        pytest.param(NO_TO, "rules[0].fold_into: 'fold_into' folds incidents", id="no to:"),
        pytest.param(NOT_OWNER, "rules[0].fold_into", id="not owner"),
        pytest.param(DROP, "rules[0].fold_into", id="drop"),
    ],
)
def test_fold_into_is_checked_at_load(rule: dict[str, Any], fragment: str) -> None:
    config = {"sinks": [{"name": "chat", "type": "console"}], "defaults": {"sinks": ["chat"]},
              "rules": [rule]}  # fmt: skip
    with pytest.raises(ConfigError) as raised:
        read_config_text(yaml.safe_dump(config), "c.yaml", environ={})
    assert fragment in str(raised.value)


def _shipped(name: str) -> Ruleset:
    if name == "chart":
        return _chart_ruleset()
    return incident_ruleset(name)


@pytest.mark.parametrize("config", ["example", "recommended", "chart"])
def test_the_shipped_rules_tell_a_deployments_crash_looping_pods_once(config: str) -> None:
    """Three pods of one Deployment crash-looping: one message per sink; a pod of another
    Deployment is told too (its own message, or in the namespace's digest)."""
    told = play(_shipped(config), *_loops("web-a", "web-b", "web-c"))
    sinks = {"example": ["webhook", "console"], "recommended": ["chat"], "chart": ["console"]}
    assert per_sink(told) == {(sink, "firing"): 1 for sink in sinks[config]}
    other = _loops("api-a", owner=("ReplicaSet", "api-5f6d8c7b9a"))
    told = play(_shipped(config), *_loops("web-a", "web-b"), *other)
    for sink in sinks[config]:
        said = " ".join(str(n.facts) for n in told if n.sink == sink)
        assert "api-a" in said and "web-a" in said and "web-b" not in said

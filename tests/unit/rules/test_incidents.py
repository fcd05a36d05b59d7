"""One message per incident: a real kubelet's sequences (issue #37) through the example config
and the rules docs/rules.md recommends, played as the workers would (``detect_all``, then the
rules, the clock ticking every second)."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from notifier.config import read_config_text
from notifier.notifications import Notification
from notifier.origin import Origin
from notifier.rules import metrics
from notifier.rules.engine import RulesEngine
from notifier.rules.reasons import SuppressReason
from notifier.rules.ruleset import Ruleset
from notifier.transitions.detecting import detect_all
from tests.unit.rules import kubelet
from tests.unit.rules.builders import NOW, decode

ROOT = Path(__file__).parents[3]
RECOVERY = 60.0


def recommended_text() -> str:
    """The YAML between docs/rules.md's recommended markers."""
    text = (ROOT / "docs" / "rules.md").read_text()
    block = text.split("<!-- recommended:begin -->")[1].split("<!-- recommended:end -->")[0]
    return block.strip().removeprefix("```yaml").removesuffix("```")


def _ruleset(name: str) -> Ruleset:
    if name == "example":
        text, source = (ROOT / "config.example.yaml").read_text(), "config.example.yaml"
    else:
        text, source = recommended_text(), "docs/rules.md"
    return read_config_text(text, source, environ={}).ruleset


def play(
    ruleset: Ruleset | Callable[[], Ruleset],
    *sequences: list[kubelet.Step],
    after: float = 600.0,
    each_second: Callable[[float], None] = lambda second: None,
) -> list[Notification]:
    """Every notification the sequences make, in time order, and what the clock tells
    ``after`` the last step; ``ruleset`` may be asked anew each time (a reload), and
    ``each_second`` is told each second the clock ticks."""
    current = ruleset if callable(ruleset) else lambda: ruleset
    engine = RulesEngine(current, clock=lambda: NOW)
    steps = sorted(
        ((at, index, data) for index, seq in enumerate(sequences) for at, data in seq),
        key=lambda step: (step[0], step[1]),
    )
    last: dict[int, Any] = {}
    told: list[Notification] = []
    clock = 0.0
    for at, index, data in steps:
        told += _ticks(engine, clock, at, each_second)
        clock = at
        new = decode(data)
        for change in detect_all(
            last.get(index), new, origin=Origin.LIVE, observed_at=NOW + at, correlation_id="t"
        ):
            told += engine.process(change, now=NOW + at)
        last[index] = new
    return told + _ticks(engine, clock, clock + after, each_second)


def _ticks(
    engine: RulesEngine, start: float, end: float, each_second: Callable[[float], None]
) -> list[Notification]:
    told: list[Notification] = []
    second = float(int(start)) + 1.0
    while second <= end:
        each_second(second)
        released = engine.tick(NOW + second)
        engine.forget(released)
        told += released.notifications
        second += 1.0
    return told


def per_sink(told: list[Notification]) -> Counter[tuple[str, str]]:
    """(sink, firing or resolved) -> how many."""
    return Counter((n.sink, "resolved" if n.resolves else "firing") for n in told)


ONCE = {("webhook", "firing"): 1, ("console", "firing"): 1}  # config.example.yaml's sinks
CHAT_ONCE = {("chat", "firing"): 1}

CASES = [
    pytest.param(kubelet.crash_loop(), id="crash loop, exit 1, five back-offs"),
    pytest.param(kubelet.crash_loop("oom", "OOMKilled", 137), id="OOM kill, restartPolicy Always"),
    pytest.param(
        kubelet.crash_loop("oom", "OOMKilled", 137, recovers=True),
        id="OOM kill, then running again",
    ),
    pytest.param(kubelet.oom_never(), id="OOM kill, restartPolicy Never"),
    pytest.param(kubelet.image_pull(), id="image that cannot be pulled"),
    pytest.param(kubelet.deployment_stuck_twice(), id="rollout stuck, again without completing"),
    pytest.param(kubelet.stuck_creating(), id="pod stuck in ContainerCreating"),
    pytest.param(kubelet.never_ready(), id="readiness probe that never passes"),
    pytest.param(kubelet.evicted(code=143), id="pod evicted, exit 143 on SIGTERM"),
    pytest.param(kubelet.evicted(code=0), id="pod evicted, exit 0 on SIGTERM"),
    pytest.param(
        kubelet.evicted(code=0, failed_first=True), id="pod evicted, exit 0, Failed first"
    ),
]


@pytest.mark.parametrize("sequence", CASES)
def test_the_example_config_tells_each_incident_once(sequence: list[kubelet.Step]) -> None:
    assert per_sink(play(_ruleset("example"), sequence)) == ONCE


@pytest.mark.parametrize("sequence", CASES)
def test_the_recommended_rules_tell_each_incident_once(sequence: list[kubelet.Step]) -> None:
    assert per_sink(play(_ruleset("recommended"), sequence)) == CHAT_ONCE


@pytest.mark.parametrize("config", ["example", "recommended"])
@pytest.mark.parametrize(
    "sequence",
    [
        pytest.param(kubelet.job_pod("nightly-ok", fails=False), id="a Job's Pod that completes"),
        pytest.param(kubelet.job_pod("nightly-bad", fails=True), id="a Job's Pod that fails"),
        pytest.param(kubelet.new_deployment(), id="a new Deployment"),
    ],
)
def test_what_is_no_incident_is_not_told(config: str, sequence: list[kubelet.Step]) -> None:
    """A finished Job's Pod losing readiness is no alarm, nor a failed one (the Job tells its
    failure), nor a new Deployment short of pods for a moment."""
    assert play(_ruleset(config), sequence) == []


@pytest.mark.parametrize("config", ["example", "recommended"])
def test_a_node_lost_and_back_is_told_once_and_resolved_once(config: str) -> None:
    told = play(_ruleset(config), kubelet.node_lost_and_back())
    sinks = ["webhook", "console"] if config == "example" else ["chat"]
    assert per_sink(told) == {(s, kind): 1 for s in sinks for kind in ("firing", "resolved")}
    [resolved, *_] = [n for n in told if n.resolves]
    assert "Node node-a: resolved: Unknown -> Ready" in resolved.facts["summary"]


def test_the_resolution_comes_once_the_object_stayed_recovered_for_the_window() -> None:
    ruleset = _ruleset("recommended")
    engine = RulesEngine(lambda: ruleset, clock=lambda: NOW)
    [lost, gone, back, _untainted] = _node_changes()
    assert len(engine.process(lost)) == 1
    assert engine.process(gone) == []
    assert engine.process(back) == []  # recovering
    assert engine.next_due() == back.observed_at + RECOVERY
    assert engine.tick(back.observed_at + RECOVERY - 1).notifications == []
    [resolved] = engine.tick(back.observed_at + RECOVERY).notifications
    assert resolved.resolves and resolved.facts["status"] == "resolved"


def test_trouble_back_within_the_window_is_the_same_incident_after_it_a_new_one() -> None:
    ruleset = _ruleset("recommended")
    within = play(ruleset, kubelet.node_lost_and_back() + _node_lost_at(150.0))
    assert per_sink(within) == {("chat", "firing"): 1, ("chat", "resolved"): 1}
    later = play(ruleset, kubelet.node_lost_and_back() + _node_lost_at(400.0))
    assert per_sink(later) == {("chat", "firing"): 2, ("chat", "resolved"): 2}


def test_an_oom_kill_stays_the_worst_reason_after_the_crash_loop_that_follows() -> None:
    engine = RulesEngine(lambda: _ruleset("recommended"), clock=lambda: NOW)
    before = metrics.SUPPRESSED.labels(reason=SuppressReason.INCIDENT.value)._value.get()
    told, decisions, old = [], [], None
    for at, data in kubelet.crash_loop("oom", "OOMKilled", 137):
        new = decode(data)
        for change in detect_all(old, new, origin=Origin.LIVE, observed_at=NOW + at,
                                 correlation_id="t"):  # fmt: skip
            decision = engine.decide(change, now=NOW + at)
            told += decision.notifications
            decisions += decision.suppressed
        old = new
    [firing] = told
    assert "OOMKilled" in firing.facts["entered"]
    assert ("pod-failures", "incident: OOMKilled") in decisions
    after = metrics.SUPPRESSED.labels(reason=SuppressReason.INCIDENT.value)._value.get()
    assert after > before


def test_a_worse_severity_inside_an_incident_is_told_once_more() -> None:
    rules: dict[str, Any] = {
        "sinks": [{"name": "chat", "type": "webhook", "url": "http://127.0.0.1:9/"}],
        "rules": [{"name": "pods", "match": {"kinds": ["Pod"], "to": ["NotReady", "Failed"]},
                   "sinks": ["chat"]}],
    }  # fmt: skip
    ruleset = read_config_text(yaml.safe_dump(rules), "c.yaml", environ={}).ruleset
    base = kubelet.pod("w", restart_policy="Never")
    running = kubelet.container({"running": {}}, ready=True)
    ended = kubelet.container({"terminated": {"exitCode": 1, "reason": "Error"}})
    sequence = [
        (0.0, kubelet.with_status(base, 2, phase="Running", containerStatuses=[running],
                                  conditions=[{"type": "Ready", "status": "True"}])),
        (5.0, kubelet.with_status(base, 3, phase="Running", containerStatuses=[running],
                                  conditions=[{"type": "Ready", "status": "False"}])),
        (9.0, kubelet.with_status(base, 4, phase="Running", containerStatuses=[running],
                                  conditions=[{"type": "Ready", "status": "True"}])),
        (10.0, kubelet.with_status(base, 5, phase="Running", containerStatuses=[running],
                                   conditions=[{"type": "Ready", "status": "False"}])),
        (20.0, kubelet.with_status(base, 6, phase="Failed", containerStatuses=[ended])),
    ]  # fmt: skip
    told = play(ruleset, sequence)
    assert [n.facts["entered"] for n in told] == [["NotReady"], ["Failed"]]


def _node_changes() -> list[Any]:
    steps = kubelet.node_lost_and_back()
    changes = []
    for (_, before), (at, after) in itertools.pairwise(steps):
        found = detect_all(decode(before), decode(after), origin=Origin.LIVE,
                           observed_at=NOW + at, correlation_id="t")  # fmt: skip
        changes += found
    return changes


def _node_lost_at(at: float) -> list[kubelet.Step]:
    """The same Node lost again at ``at`` (after the first loss's steps)."""
    return [(at, kubelet.node("Unknown", 10)), (at + 30.0, kubelet.node("True", 11))]


@pytest.mark.parametrize("fails", [False, True], ids=["completes", "fails"])
def test_a_finished_job_pod_does_not_lose_readiness(fails: bool) -> None:
    """Running, Ready False/PodCompleted (PodFailed) and a terminated container for a second:
    a rule on Ready -> NotReady is not set off (issue #37's false alarm)."""
    rules: dict[str, Any] = {
        "sinks": [{"name": "chat", "type": "console"}],
        "rules": [{"name": "not-ready", "sinks": ["chat"],
                   "match": {"kinds": ["Pod"], "from": ["Ready"], "to": ["NotReady"]}}],
    }  # fmt: skip
    ruleset = read_config_text(yaml.safe_dump(rules), "c.yaml", environ={}).ruleset
    assert play(ruleset, kubelet.job_pod("nightly", fails=fails)) == []


def test_a_long_crash_loop_escalates_once_and_its_end_reaches_every_sink_told() -> None:
    """The kubelet's cycle (2 s Running and Ready between back-offs) neither cancels the
    escalation nor ends the incident; the resolution comes once it keeps running."""
    rules: dict[str, Any] = {
        "sinks": [{"name": "chat", "type": "console"}, {"name": "pager", "type": "console"}],
        "rules": [{"name": "crash-loops", "sinks": ["chat"], "send_resolved": True,
                   "match": {"kinds": ["Pod"], "to": ["CrashLoopBackOff", "OOMKilled"]},
                   "escalate": [{"after": "30m", "sinks": ["pager"]}]}],
    }  # fmt: skip
    ruleset = read_config_text(yaml.safe_dump(rules), "c.yaml", environ={}).ruleset
    loop = kubelet.crash_loop(back_offs=(*kubelet.BACK_OFFS, *[300.0] * 8), recovers=True)
    assert loop[-1][0] > 45 * 60
    assert per_sink(play(ruleset, loop)) == {
        ("chat", "firing"): 1,
        ("pager", "firing"): 1,
        ("chat", "resolved"): 1,
        ("pager", "resolved"): 1,
    }


def _chart_ruleset() -> Ruleset:
    values = yaml.safe_load((ROOT / "helm" / "kube-notifier" / "values.yaml").read_text())
    text = yaml.safe_dump(values["config"])
    return read_config_text(text, "values.yaml", environ={}).ruleset


@pytest.mark.parametrize("sequence", CASES)
def test_the_charts_default_rules_tell_each_incident_once(sequence: list[kubelet.Step]) -> None:
    assert per_sink(play(_chart_ruleset(), sequence)) == {("console", "firing"): 1}


def test_the_charts_default_rules_tell_no_new_deployment() -> None:
    assert play(_chart_ruleset(), kubelet.new_deployment()) == []


def _resolving_ruleset() -> Ruleset:
    rules: dict[str, Any] = {
        "sinks": [{"name": "chat", "type": "console"}],
        "defaults": {"recovery_window": "60s"},
        "rules": [{"name": "crash-loops", "sinks": ["chat"], "send_resolved": True,
                   "match": {"kinds": ["Pod"], "to": ["CrashLoopBackOff", "OOMKilled"]}}],
    }  # fmt: skip
    return read_config_text(yaml.safe_dump(rules), "c.yaml", environ={}).ruleset


@pytest.mark.parametrize("reason, code", [("Error", 1), ("OOMKilled", 137)], ids=["exit", "oom"])
def test_a_crash_loop_that_keeps_running_is_resolved_once(reason: str, code: int) -> None:
    """Running and Ready again: its ``lastState`` keeps the OOM kill for as long as it runs,
    history, not trouble; the incident ends a recovery window later."""
    loop = kubelet.crash_loop("back", reason, code, recovers=True)
    within = play(_resolving_ruleset(), loop, after=RECOVERY - 5.0)
    assert per_sink(within) == {("chat", "firing"): 1}
    told = play(_resolving_ruleset(), loop, after=RECOVERY + 5.0)
    assert per_sink(told) == {("chat", "firing"): 1, ("chat", "resolved"): 1}


@pytest.mark.parametrize("config", ["resolving", "recommended"])
def test_an_oom_kill_after_the_incident_ended_is_a_new_incident(config: str) -> None:
    """The restart after a new OOM kill (restartCount rose, ``lastState`` the new kill) is told
    as a new incident once the first one ended; the OOM kill it remembers from before is not."""
    ruleset = _resolving_ruleset() if config == "resolving" else _ruleset("recommended")
    loop = kubelet.oom_killed_again(kubelet.crash_loop("back", "OOMKilled", 137, recovers=True),
                                    after=300.0)  # fmt: skip
    firing = [n for n in play(ruleset, loop) if not n.resolves]
    assert len(firing) == 2
    assert "OOMKilled" in firing[1].facts["entered"]

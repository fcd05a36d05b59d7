"""``for:`` and escalation timers across the kubelet's crash-loop cycle (issue #37): the 2 s in
Running and Ready between back-offs neither restarts a ``for:`` nor loses a timer to a reload."""

from __future__ import annotations

from typing import Any

import yaml

from notifier.config import read_config_text
from notifier.rules.ruleset import Ruleset
from tests.unit.rules import kubelet
from tests.unit.rules.test_incidents import per_sink, play

LONG_BACK_OFFS = (*kubelet.BACK_OFFS, *[300.0] * 4)  # 10/20/40/80/160 s, then 5 m each


def _ruleset(rule: dict[str, Any]) -> Ruleset:
    config = {"sinks": [{"name": "chat", "type": "console"}, {"name": "pager", "type": "console"}],
              "rules": [{"name": "crash-loops", "sinks": ["chat"], **rule}]}  # fmt: skip
    return read_config_text(yaml.safe_dump(config), "c.yaml", environ={}).ruleset


STAYS_15M = {"match": {"kinds": ["Pod"], "to": ["CrashLoopBackOff"], "for": "15m"}}


def test_a_real_crash_loop_reaches_a_15m_for_through_its_running_blips() -> None:
    loop = kubelet.crash_loop(back_offs=LONG_BACK_OFFS)
    assert max(b for b in LONG_BACK_OFFS) < 15 * 60 < loop[-1][0]  # no single back-off is 15m
    assert per_sink(play(_ruleset(STAYS_15M), loop)) == {("chat", "firing"): 1}


def test_a_crash_loop_that_recovers_before_15m_in_trouble_is_not_told() -> None:
    loop = kubelet.crash_loop(back_offs=kubelet.BACK_OFFS, recovers=True)
    assert loop[-1][0] < 15 * 60
    assert play(_ruleset(STAYS_15M), loop) == []


def test_out_of_trouble_longer_than_the_recovery_window_starts_the_stay_anew() -> None:
    """Two loops of 10 minutes each, 5 minutes apart (longer than the 60 s window): neither
    stay reached 15 m, so nothing is told."""
    first = kubelet.crash_loop(back_offs=(10.0, 20.0, 40.0, 80.0, 160.0, 300.0), recovers=True)
    resumed = first[-1][0] + 300.0
    second = [(resumed + at, data) for at, data in kubelet.crash_loop(back_offs=LONG_BACK_OFFS)]
    window = _ruleset({**STAYS_15M, "recovery_window": "60s"})
    assert first[-1][0] < 15 * 60
    assert per_sink(play(window, first + second[1:])) == {("chat", "firing"): 1}
    short = [(resumed + at, data) for at, data in kubelet.crash_loop(back_offs=(10.0, 20.0))]
    assert play(window, first + short[1:]) == []


def test_with_no_recovery_window_each_blip_restarts_the_for_as_before() -> None:
    loop = kubelet.crash_loop(back_offs=LONG_BACK_OFFS)
    assert play(_ruleset({**STAYS_15M, "recovery_window": "0s"}), loop) == []


ESCALATING = {
    "send_resolved": True,
    "match": {"kinds": ["Pod"], "to": ["CrashLoopBackOff", "OOMKilled"]},
    "escalate": [{"after": "30m", "sinks": ["pager"]}],
}


class Reloads:
    """The rule compiled anew at ``second`` (seconds into the play), as a reload swaps it."""

    def __init__(self, rule: dict[str, Any], second: float) -> None:
        self.rule, self.second = rule, second
        self.current, self.swaps = _ruleset(rule), 0

    def __call__(self) -> Ruleset:
        return self.current

    def tick(self, second: float) -> None:
        if second == self.second:
            self.current = _ruleset(self.rule)
            self.swaps += 1


def test_a_reload_during_a_running_blip_keeps_the_escalation_timer() -> None:
    """The escalation step is held by the incident while the kubelet shows Running and Ready;
    a reload then must not drop it as if its rule no longer named the object's state."""
    loop = kubelet.crash_loop(back_offs=(*kubelet.BACK_OFFS, *[300.0] * 8), recovers=True)
    runs = [at for at, data in loop if data["status"]["conditions"][0]["status"] == "True"]
    blip = next(at for at in runs if at > 10 * 60)
    reloads = Reloads(ESCALATING, float(int(blip)) + 1.0)  # the first tick inside the blip
    assert reloads.second < blip + kubelet.RUNS_FOR
    told = play(reloads, loop, each_second=reloads.tick)
    assert reloads.swaps == 1
    assert per_sink(told) == {
        ("chat", "firing"): 1,
        ("pager", "firing"): 1,
        ("chat", "resolved"): 1,
        ("pager", "resolved"): 1,
    }

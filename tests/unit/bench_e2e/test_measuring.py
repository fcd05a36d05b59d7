"""The sustain search: which rates each subject is tried at, given its steps; and what each
start records (its first seconds' CPU, what a restart told)."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from bench.e2e import measuring
from bench.e2e.measuring import SubjectResult, SubjectRun
from bench.e2e.receiver import Receiver
from bench.e2e.settings import FULL, SMOKE
from bench.e2e.subjects import Baseline
from tests.unit.bench_e2e.factories import trial


def run_with_steps(*steps: tuple[float, float, int]) -> SubjectRun:
    run = SubjectRun(Baseline(Path("/nonexistent"), Path("/nonexistent"), "http://x"), FULL)
    for target, achieved, lost in steps:
        run.result.steps.append(trial(target, achieved=achieved, lost=lost))
    return run


def test_a_subject_that_lost_nothing_is_tried_flat_out_first() -> None:
    run = run_with_steps((50, 50, 0), (200, 200, 0), (1000, 310, 0))
    run.plan_sustain()
    assert run.candidates == [None, 1000.0, 500.0]


def test_a_subject_that_lost_is_tried_below_the_lowest_rate_at_which_it_lost() -> None:
    run = run_with_steps((50, 50, 0), (200, 180, 3), (1000, 300, 40))
    run.plan_sustain()
    assert run.candidates == [100.0, 50.0]


def test_the_highest_sustained_rate_is_the_achieved_rate_of_a_trial_that_lost_nothing() -> None:
    result = SubjectResult("x")
    result.sustain = [trial(None, achieved=300, lost=2), trial(200, achieved=190)]
    assert result.highest_sustained == 190
    assert SubjectResult("y").highest_sustained is None


def test_steps_are_found_by_their_target_rate() -> None:
    result = SubjectResult("x", steps=[trial(50, achieved=50), trial(200, achieved=150)])
    step = result.step(200)
    assert step is not None and step.score.write_rate == 150
    assert result.step(1000) is None


class Restarting(Baseline):
    """Keeps state like kube-notifier: each start after the first posts, once ready, a
    notification for the churn Pod ``told`` (a catch-up, right or wrong)."""

    keeps_state = True

    def __init__(self, work_dir: Path, webhook: str) -> None:
        super().__init__(work_dir, work_dir / "kubeconfig", webhook)
        self.starts = 0
        self.told = "ns/p0"

    def argv(self) -> list[str]:
        self.starts += 1
        namespace, name = self.told.split("/")
        body = {
            "rule": "r",
            "object": {"namespace": namespace, "name": name, "labels": {"bench": "1"}},
        }
        payload = json.dumps(body).encode()
        program = (
            "import sys, urllib.request\n"
            "print('ready', flush=True)\n"
            f"if {self.starts} > 1:\n"
            f"    request = urllib.request.Request({self.webhook!r}, {payload!r})\n"
            "    urllib.request.urlopen(request, timeout=10).read()\n"
            "sys.stdin.read()\n"
        )
        return [sys.executable, "-c", program]


def test_starts_record_the_first_seconds_cpu_and_what_each_restart_told(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(measuring, "IDLE_SECONDS", 0.2)
    settings = replace(SMOKE, start_window=1.0, quiet=0.5, drain_cap=5.0)
    receiver = Receiver({"ns/p0": 0, "ns/p1": 1}).start()
    subject = Restarting(tmp_path, receiver.url)
    run = SubjectRun(subject, settings)
    try:
        for expected in (set(), {0}, {1}):
            run.start(receiver, expected)
            subject.stop()
    finally:
        subject.stop()
        receiver.stop()
    result = run.result
    assert len(result.ready_seconds) == 3 and result.restart_ready is not None
    assert result.start_cpu_seconds is not None and result.start_cpu_seconds > 0
    first, right, wrong = result.told_on_start
    assert (first.saved_state, first.told_pods, first.unexpected) == (False, 0, 0)
    assert (right.saved_state, right.told_pods, right.unexpected, right.missing) == (True, 1, 0, 0)
    assert (wrong.unexpected, wrong.missing) == (1, 1)  # told Pod 0, owed Pod 1
    assert result.unexpected_on_start == 1

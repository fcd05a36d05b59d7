"""The sustain search: which rates each subject is tried at, given its steps."""

from __future__ import annotations

from pathlib import Path

from bench.e2e.measuring import SubjectResult, SubjectRun
from bench.e2e.settings import FULL
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

"""The two workloads: what each runs, and the worse of their ratios, which the README quotes."""

from __future__ import annotations

from bench.e2e import workloads
from bench.e2e.workloads import LARGE_OBJECTS, PHASE_TRANSITIONS, worst_ratios, worst_table


def test_the_phase_workload_has_no_background_and_its_own_rules() -> None:
    assert LARGE_OBJECTS.background and not LARGE_OBJECTS.by_phase
    assert not PHASE_TRANSITIONS.background and PHASE_TRANSITIONS.by_phase
    assert "fields: [status.phase]" in PHASE_TRANSITIONS.our_config
    assert "pod-failures" not in PHASE_TRANSITIONS.our_config  # one notification per change
    assert workloads.NO_BACKGROUND.pods_per_second == 0


def outcome(cpu: float | None, ready: float) -> dict[str, object]:
    return {
        "ratios": {
            "kubewatch_over_ours": {"cpu_per_1000_at_20": cpu, "ready_seconds": ready},
            "ours_over_kubewatch": {"highest_sustained_rate": None},
        }
    }


def test_the_worse_ratio_of_the_workloads_is_kept_with_its_workload() -> None:
    outcomes = {"large-objects": outcome(0.66, 0.3), "phase-transitions": outcome(0.29, 0.5)}
    worst = worst_ratios(outcomes)["kubewatch_over_ours"]
    assert worst["cpu_per_1000_at_20"] == {"value": 0.29, "workload": "phase-transitions"}
    assert worst["ready_seconds"] == {"value": 0.3, "workload": "large-objects"}
    text = worst_table(outcomes)
    assert "kubewatch: CPU per change @20/s: 0.29x (phase-transitions)" in text


def test_a_missing_figure_does_not_hide_the_other_workloads() -> None:
    outcomes = {"large-objects": outcome(None, 1.0), "phase-transitions": outcome(0.4, 1.0)}
    assert worst_ratios(outcomes)["kubewatch_over_ours"]["cpu_per_1000_at_20"]["value"] == 0.4


def test_the_start_up_figures_are_among_the_worse_ratios_printed() -> None:
    outcomes = {
        "large-objects": {
            "ratios": {
                "kubewatch_over_ours": {"start_cpu_seconds": 0.2, "restart_ready_seconds": 0.5}
            },
            "headline": {"kube-notifier": {"start_window_seconds": 30.0}},
        }
    }
    text = worst_table(outcomes)
    assert "kubewatch: CPU in the first 30 s: 0.20x (large-objects)" in text
    assert "kubewatch: ready after restart with saved state: 0.50x (large-objects)" in text

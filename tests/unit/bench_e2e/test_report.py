"""The report: headline figures, ratios to the baseline, targets, and the printed table."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from bench.e2e import report
from bench.e2e.measuring import SubjectResult
from bench.e2e.settings import FULL
from bench.e2e.starts import StartTold
from tests.unit.bench_e2e.factories import trial

MIB = 1024 * 1024
SETUP = {
    "pods": 10_000,
    "deployments": 1_000,
    "services": 1_000,
    "churn_pods": 1_000,
    "create_seconds": 60.0,
    "create_rate": 200.0,
    "status_seconds": 50.0,
}


def subject(name: str, *, cpu: float, rss_mib: int, ready: float, lost_flat_out: int) -> Any:
    result = SubjectResult(name, ready_seconds=[ready], settle_seconds=[1.0])
    result.peak_rss = rss_mib * MIB
    result.steps = [
        trial(rate, achieved=min(rate, 300), subject_cpu=cpu * min(rate, 300) * 10 / 1000)
        for rate in (50.0, 200.0, 1000.0)
    ]
    result.sustain = [trial(None, achieved=300, lost=lost_flat_out, seconds=60)]
    if lost_flat_out:
        result.sustain.append(trial(200, achieved=200, seconds=60))
    return result


@pytest.fixture
def results() -> dict[str, SubjectResult]:
    return {
        "kube-notifier": subject("kube-notifier", cpu=0.5, rss_mib=90, ready=2.0, lost_flat_out=0),
        "baseline": subject("baseline", cpu=5.0, rss_mib=900, ready=40.0, lost_flat_out=30),
    }


def built(results: dict[str, SubjectResult]) -> dict[str, Any]:
    probe = trial(None, achieved=320)
    return report.build(FULL, SETUP, probe, results, time.monotonic())


def test_ratios_compare_costs_as_baseline_over_ours_and_the_rate_as_ours_over_baseline(
    results: dict[str, SubjectResult],
) -> None:
    ratios = built(results)["ratios"]
    assert ratios["baseline_over_ours"]["cpu_per_1000_at_200"] == pytest.approx(10.0)
    assert ratios["baseline_over_ours"]["peak_rss_mib"] == pytest.approx(10.0)
    assert ratios["baseline_over_ours"]["ready_seconds"] == pytest.approx(20.0)
    assert ratios["ours_over_baseline"]["highest_sustained_rate"] == pytest.approx(1.5)


def test_targets_are_judged_on_the_figures(results: dict[str, SubjectResult]) -> None:
    targets = built(results)["targets"]
    assert targets["keeps up at the control plane's flat-out rate with zero loss"] is True
    assert targets["p99 < 100 ms at 200/s, from the send"] is True
    assert targets["CPU per 1,000 changes <= baseline / 10"] is True
    assert targets["peak RSS <= baseline / 10"] is True
    assert targets["ready < 5 s"] is True
    assert targets["highest_sustained_rate"] == pytest.approx(300.0)


def test_a_missed_target_says_so(results: dict[str, SubjectResult]) -> None:
    results["kube-notifier"].peak_rss = 200 * MIB
    results["kube-notifier"].ready_seconds = [7.5]
    targets = built(results)["targets"]
    assert targets["peak RSS <= baseline / 10"] is False
    assert targets["ready < 5 s"] is False


def test_the_report_is_json_and_the_table_shows_every_trial(
    results: dict[str, SubjectResult], tmp_path: Path
) -> None:
    data = built(results)
    path = tmp_path / "results" / "e2e.json"
    report.write(data, path)
    assert json.loads(path.read_text())["machine"]["cores"] >= 1
    text = report.table(data, results)
    assert "peak RSS (MiB)" in text
    assert "10.0x" in text
    rows = [line.split()[:3] for line in text.splitlines()]
    trials = [row for row in rows if len(row) == 3 and row[1] in {"step", "sustain"}]
    assert [name for name, *_ in trials] == ["kube-notifier"] * 4 + ["baseline"] * 5


def test_no_rate_ratio_when_both_kept_up_with_all_the_control_plane_wrote(
    results: dict[str, SubjectResult],
) -> None:
    results["baseline"].sustain = [trial(None, achieved=250, seconds=60)]
    data = built(results)
    assert data["ratios"]["ours_over_baseline"]["highest_sustained_rate"] is None
    assert data["headline"]["baseline"]["kept_up_flat_out"] is True


def test_kubewatch_is_a_second_peer_with_its_own_ratios_targets_and_column(
    results: dict[str, SubjectResult],
) -> None:
    kubewatch = subject("kubewatch", cpu=0.4, rss_mib=60, ready=1.0, lost_flat_out=0)
    with_kubewatch = {"kube-notifier": results["kube-notifier"], "kubewatch": kubewatch}
    with_kubewatch["baseline"] = results["baseline"]
    probe = trial(None, achieved=320)
    notes = {"kubewatch": "v2.15.0 built from /src"}
    data = report.build(FULL, SETUP, probe, with_kubewatch, time.monotonic(), notes=notes)
    assert data["ratios"]["kubewatch_over_ours"]["cpu_per_1000_at_200"] == pytest.approx(0.8)
    assert data["ratios"]["baseline_over_ours"]["cpu_per_1000_at_200"] == pytest.approx(10.0)
    assert data["targets"]["CPU per 1,000 changes <= kubewatch's"] is False
    assert data["targets"]["peak RSS <= kubewatch's"] is False
    assert data["targets"]["p99 <= 1.2x kubewatch's, from the send"] is True
    text = report.table(data, with_kubewatch)
    assert "kubewatch: v2.15.0 built from /src" in text
    header = next(line for line in text.splitlines() if "kubewatch/ours*" in line).split()
    assert header == ["kube-notifier", "kubewatch", "baseline", "kubewatch/ours*", "baseline/ours*"]
    cpu_row = next(
        line for line in text.splitlines() if line.startswith("CPU s / 1,000 changes @200")
    )
    assert cpu_row.split()[-2:] == ["0.8x", "10.0x"]


def test_a_skipped_kubewatch_says_why_above_the_table(results: dict[str, SubjectResult]) -> None:
    probe = trial(None, achieved=320)
    notes = {"kubewatch": "skipped (no source: pass --kubewatch-src DIR)"}
    data = report.build(FULL, SETUP, probe, results, time.monotonic(), notes=notes)
    assert "kubewatch: skipped (no source: pass --kubewatch-src DIR)" in report.table(data, results)
    assert "CPU per 1,000 changes <= kubewatch's" not in data["targets"]


def test_start_up_has_three_figures_each_with_its_ratio_and_row(
    results: dict[str, SubjectResult],
) -> None:
    ours, baseline = results["kube-notifier"], results["baseline"]
    ours.keeps_state = True
    ours.ready_seconds = [2.0, 1.0, 3.0, 1.5]  # first start, then three restarts
    ours.start_cpu_seconds, baseline.start_cpu_seconds = 4.0, 2.0
    baseline.ready_seconds = [40.0, 20.0]
    ours.told_on_start = [
        StartTold(False, 0, 0, 0, 0),
        StartTold(True, 10, 10, 0, 0, {"image-changes": 3}),
    ]
    data = built(results)
    assert data["headline"]["kube-notifier"]["restart_ready_seconds"] == 1.5  # the median
    ratios = data["ratios"]["baseline_over_ours"]
    assert ratios["start_cpu_seconds"] == pytest.approx(0.5)
    assert ratios["restart_ready_seconds"] == pytest.approx(20.0 / 1.5)
    assert data["subjects"]["kube-notifier"]["told_on_start"][1]["expected_pods"] == 10
    lines = report.table(data, results).splitlines()
    cpu_row = next(line for line in lines if line.startswith("CPU s in the first 30 s"))
    assert cpu_row.split()[-3:] == ["4.00", "2.00", "0.5x"]
    assert any(line.startswith("ready after restart with saved state (s)") for line in lines)
    assert "baseline: no saved state: a restart is a plain restart" in lines
    assert any("told 10 of the 10 churn Pods changed while it was down" in ln for ln in lines)

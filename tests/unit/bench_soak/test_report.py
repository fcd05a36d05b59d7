"""The soak's figures: drift after the warm-up, trends, the state file's growth."""

from __future__ import annotations

import pytest

from bench.soak.report import (
    Sample,
    render,
    rss_figures,
    settled_after,
    slope_per_hour,
    state_figures,
)


def _samples(rss: list[float], db: list[float] | None = None, step: float = 60) -> list[Sample]:
    db = db or [1.0] * len(rss)
    return [Sample(i * step, r, d, 0.5, i) for i, (r, d) in enumerate(zip(rss, db, strict=True))]


def test_slope_is_per_hour_and_zero_without_a_spread() -> None:
    assert slope_per_hour([(0, 10), (1800, 15), (3600, 20)]) == pytest.approx(10)
    assert slope_per_hour([(5, 1)]) == 0 and slope_per_hour([(5, 1), (5, 2)]) == 0


def test_drift_counts_only_after_the_warmup_against_its_value() -> None:
    figures = rss_figures(_samples([50, 200, 100, 104, 105, 102]), warmup=120)
    assert figures["rss_at_warmup_mib"] == 100
    assert figures["rss_drift_percent"] == pytest.approx(5.0)
    assert figures["rss_max_mib"] == 105 and figures["rss_last_mib"] == 102
    with pytest.raises(ValueError, match="warm-up"):
        rss_figures(_samples([1, 2]), warmup=3600)


def test_a_state_file_that_keeps_growing_is_not_bounded() -> None:
    flat = state_figures(_samples([1] * 61, [4.0] * 61))
    growing = state_figures(_samples([1] * 61, [4.0 + i * 0.1 for i in range(61)]))
    assert flat["state_bounded"] and flat["state_growth_mib_per_hour_late"] == pytest.approx(0)
    assert not growing["state_bounded"]
    assert growing["state_growth_mib_per_hour_late"] == pytest.approx(6.0)


def test_render_says_whether_the_target_is_met() -> None:
    samples = _samples([100, 100, 130])
    figures = {
        "note": "stand-in", "minutes": 3, "rate": 50, "made": 9000, "counts": {"seq": 1},
        "relists": 2, "warmup_s": 60, "failed": 3, "failures_told": 4, "failures_told_twice": 1,
        "told": {"told": 5, "expected": 5, "lost": 0, "coalesced": 0, "duplicates": 0},
        "rss": rss_figures(samples, 60), "state": state_figures(samples),
    }  # fmt: skip
    text = render(figures)
    assert (
        "30.0% (NOT met)" in text
        and "| Failed Pods told / made Failed (Pods told twice) | 4 / 3 (1) |" in text
    )


def test_the_drift_after_the_first_relist_leaves_out_its_step() -> None:
    samples = _samples([100, 100, 120, 121, 121, 122], step=300)  # a relist at 600 s
    settled = settled_after(samples, first_relist=600)
    assert settled["settled_at_s"] == 900
    assert settled["settled_drift_percent"] == pytest.approx(100 * 1 / 121)
    assert settled_after(samples, first_relist=3600) == {}

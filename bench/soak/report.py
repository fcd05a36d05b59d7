"""The soak's figures from its samples: RSS drift after the warm-up, the state file's growth."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

DRIFT_TARGET_PERCENT = 10.0
# The state file may grow this much an hour at the end of the run and still count as bounded.
BOUNDED_MIB_PER_HOUR = 1.0


@dataclass(frozen=True)
class Sample:
    at: float  # seconds since the churn began
    rss_mib: float
    db_mib: float  # the SQLite file
    wal_mib: float  # and its write-ahead log
    told: int  # notifications received so far


def slope_per_hour(points: Sequence[tuple[float, float]]) -> float:
    """Least-squares slope of (seconds, value), per hour; 0 with fewer than two points."""
    if len(points) < 2:
        return 0.0
    n = len(points)
    mean_t = sum(t for t, _ in points) / n
    mean_v = sum(v for _, v in points) / n
    spread = sum((t - mean_t) ** 2 for t, _ in points)
    if spread == 0:
        return 0.0
    return 3600 * sum((t - mean_t) * (v - mean_v) for t, v in points) / spread


def rss_figures(samples: Sequence[Sample], warmup: float) -> dict[str, float]:
    """RSS at the end of the warm-up, and its spread after it as a share of that value."""
    after = [s for s in samples if s.at >= warmup]
    if not after:
        raise ValueError("no sample after the warm-up: run longer")
    base = after[0].rss_mib
    low, high = min(s.rss_mib for s in after), max(s.rss_mib for s in after)
    return {
        "rss_at_warmup_mib": base,
        "rss_min_mib": low,
        "rss_max_mib": high,
        "rss_last_mib": after[-1].rss_mib,
        "rss_drift_percent": 100 * (high - low) / base,
        "rss_slope_mib_per_hour": slope_per_hour([(s.at, s.rss_mib) for s in after]),
    }


def settled_after(samples: Sequence[Sample], first_relist: float) -> dict[str, float]:
    """The drift measured from a minute after the first forced relist, whose peak the
    allocator keeps (the scale bench's relist peak): what grows after it is what leaks."""
    later = [s for s in samples if s.at >= first_relist + 60]
    if not later:
        return {}
    figures = rss_figures(later, later[0].at)
    return {"settled_at_s": later[0].at, "settled_drift_percent": figures["rss_drift_percent"],
            "settled_slope_mib_per_hour": figures["rss_slope_mib_per_hour"]}  # fmt: skip


def state_figures(samples: Sequence[Sample]) -> dict[str, Any]:
    """The SQLite file and WAL: their largest, and their growth over the last half of the run."""
    if not samples:
        raise ValueError("no samples")
    half = samples[-1].at / 2
    late = [(s.at, s.db_mib + s.wal_mib) for s in samples if s.at >= half]
    growth = slope_per_hour(late)
    return {
        "db_max_mib": max(s.db_mib for s in samples),
        "wal_max_mib": max(s.wal_mib for s in samples),
        "db_last_mib": samples[-1].db_mib,
        "wal_last_mib": samples[-1].wal_mib,
        "state_growth_mib_per_hour_late": growth,
        "state_bounded": growth <= BOUNDED_MIB_PER_HOUR,
    }


def render(figures: dict[str, Any]) -> str:
    rss, state, told = figures["rss"], figures["state"], figures["told"]
    drift = rss["rss_drift_percent"]
    verdict = "met" if drift <= DRIFT_TARGET_PERCENT else "NOT met"
    bounded = "yes" if state["state_bounded"] else "NO"
    lines = [
        f"soak against the stand-in API server ({figures['note']})",
        f"{figures['minutes']:g} min at {figures['rate']:g} changes/s: {figures['made']} changes "
        f"{figures['counts']}, {figures['relists']} forced relists (410)",
        "| figure | value |",
        "| --- | ---: |",
        f"| RSS at {figures['warmup_s'] / 60:g} min (MiB) | {rss['rss_at_warmup_mib']:.1f} |",
        f"| RSS after it: min / max / last (MiB) | {rss['rss_min_mib']:.1f} / "
        f"{rss['rss_max_mib']:.1f} / {rss['rss_last_mib']:.1f} |",
        f"| RSS drift after it (target <= {DRIFT_TARGET_PERCENT:g}%) | {drift:.1f}% ({verdict}) |",
        f"| RSS trend after it (MiB/h) | {rss['rss_slope_mib_per_hour']:+.1f} |",
        *_settled_rows(figures.get("settled", {})),
        f"| SQLite file / WAL, largest (MiB) | {state['db_max_mib']:.2f} / "
        f"{state['wal_max_mib']:.2f} |",
        f"| state growth, last half (MiB/h; bounded: {bounded}) | "
        f"{state['state_growth_mib_per_hour_late']:+.2f} |",
        f"| seq changes told / expected (lost, coalesced, doubled) | {told['told']} / "
        f"{told['expected']} ({told['lost']}, {told['coalesced']}, {told['duplicates']}) |",
        f"| Failed Pods told / made Failed (Pods told twice) | {figures['failures_told']} / "
        f"{figures['failed']} ({figures['failures_told_twice']}) |",
    ]
    return "\n".join(lines)


def _settled_rows(settled: dict[str, float]) -> list[str]:
    if not settled:
        return []
    return [
        f"| RSS drift from {settled['settled_at_s'] / 60:.0f} min (after the first relist) | "
        f"{settled['settled_drift_percent']:.1f}%, trend "
        f"{settled['settled_slope_mib_per_hour']:+.1f} MiB/h |"
    ]

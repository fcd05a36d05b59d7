"""The issues' targets, judged on a run's headline figures: issue #8's against the baseline, and
issue #16's against kubewatch (when it ran).

Each target is True (met), False (missed) or None (a figure is missing: a
step not run, a subject skipped).
"""

from __future__ import annotations

import math
from typing import Any

Json = dict[str, Any]


def against_baseline(mine: Json, theirs: Json, kept_up_flat_out: bool, flat_out: float) -> Json:
    return {
        "keeps up at the control plane's flat-out rate with zero loss": kept_up_flat_out,
        "flat_out_write_rate_without_subject": flat_out,
        "highest_sustained_rate": mine["highest_sustained_rate"],
        "p99 < 100 ms at 200/s, from the send": below(mine["p99_ms_at_200"], 100.0),
        "p99 < 100 ms at 200/s, from the API answer": below(
            mine["p99_after_answer_ms_at_200"], 100.0
        ),
        "p99 < 100 ms at 200/s, added by the subject (from a bare watcher)": below(
            mine["p99_added_ms_at_200"], 100.0
        ),
        "CPU per 1,000 changes <= baseline / 10": below(
            mine["cpu_per_1000_at_200"], scaled(theirs["cpu_per_1000_at_200"], 0.1), strict=False
        ),
        "peak RSS <= baseline / 10": below(
            mine["peak_rss_mib"], scaled(theirs["peak_rss_mib"], 0.1), strict=False
        ),
        "ready < 5 s": below(mine["ready_seconds"], 5.0),
    }


def against_kubewatch(mine: Json, theirs: Json) -> Json:
    """Issue #16, goal 1 (at the bench's 200/s step; the issue also names 20/s and 100/s)."""
    return {
        "CPU per 1,000 changes <= kubewatch's": below(
            mine["cpu_per_1000_at_200"], theirs["cpu_per_1000_at_200"], strict=False
        ),
        "peak RSS <= kubewatch's": below(
            mine["peak_rss_mib"], theirs["peak_rss_mib"], strict=False
        ),
        "p99 <= 1.2x kubewatch's, from the send": below(
            mine["p99_ms_at_200"], scaled(theirs["p99_ms_at_200"], 1.2), strict=False
        ),
    }


def scaled(value: float | None, factor: float) -> float | None:
    return None if value is None else value * factor


def below(value: float | None, limit: float | None, *, strict: bool = True) -> bool | None:
    if value is None or limit is None or math.isnan(value) or math.isnan(limit):
        return None
    return value < limit if strict else value <= limit

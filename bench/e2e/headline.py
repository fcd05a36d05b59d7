"""The headline figures of a subject's run, which the ratios, the targets and the printed table
are about; ``COSTS`` are those compared as peer / kube-notifier.

Start-up has three: ready after the first start (a first start for
every subject), the process tree's CPU in the first 30 s of that start,
and the median ready of the later starts ("after restart with saved
state": kube-notifier on the state file of its previous run; kubewatch and
the baseline keep none, so theirs are plain restarts).
"""

from __future__ import annotations

from typing import Any

from bench.e2e.measuring import SubjectResult

MIB = 1024 * 1024
HEADLINE_RATE = 200.0  # the step whose CPU per 1,000 changes and p99 the targets are about
Json = dict[str, Any]


COSTS = (
    "ready_seconds",
    "start_cpu_seconds",
    "restart_ready_seconds",
    "peak_rss_mib",
    "cpu_per_1000_at_20",
    "cpu_per_1000_at_100",
    "cpu_per_1000_at_200",
    "p99_ms_at_200",
    "p99_after_answer_ms_at_200",
    "p99_added_ms_at_200",
)


def headline(result: SubjectResult) -> Json:
    step = result.step(HEADLINE_RATE)
    return {
        "ready_seconds": result.first_ready,
        "start_cpu_seconds": result.start_cpu_seconds,
        "start_window_seconds": result.start_window,
        "restart_ready_seconds": result.restart_ready,
        "unexpected_on_start": result.unexpected_on_start,
        "peak_rss_mib": result.peak_rss / MIB,
        "cpu_per_1000_at_20": _cpu_at(result, 20.0),
        "cpu_per_1000_at_100": _cpu_at(result, 100.0),
        "cpu_per_1000_at_200": step.cpu_per_1000 if step else None,
        "p99_ms_at_200": step.score.latency.p99 if step else None,
        "p99_after_answer_ms_at_200": step.score.after_answer.p99 if step else None,
        "p99_added_ms_at_200": step.score.added.p99 if step else None,
        "p99_watch_floor_ms_at_200": step.score.watch_latency.p99 if step else None,
        "highest_sustained_rate": result.highest_sustained,
        "kept_up_flat_out": result.kept_up_flat_out,
        "achieved_rate_at_200": step.score.write_rate if step else None,
        "idle_cpu_percent": result.idle_cpu_fraction * 100,
    }


def _cpu_at(result: SubjectResult, rate: float) -> float | None:
    step = result.step(rate)
    return step.cpu_per_1000 if step else None


def window_text(headlines: Json) -> str:
    """The start window's seconds, for the labels "in the first {window} s"."""
    windows = {h.get("start_window_seconds", 30.0) for h in headlines.values()}
    return "/".join(f"{w:.0f}" for w in sorted(windows)) or "30"


HEADLINE_ROWS = (
    ("ready after start (s)", "ready_seconds", 2),
    ("CPU s in the first {window} s", "start_cpu_seconds", 2),
    ("ready after restart with saved state (s)", "restart_ready_seconds", 2),
    ("  unexpected notifications on start", "unexpected_on_start", 0),
    ("peak RSS (MiB)", "peak_rss_mib", 0),
    ("CPU s / 1,000 changes @20/s", "cpu_per_1000_at_20", 2),
    ("CPU s / 1,000 changes @100/s", "cpu_per_1000_at_100", 2),
    ("CPU s / 1,000 changes @200/s", "cpu_per_1000_at_200", 2),
    ("p99 ms @200/s, from send", "p99_ms_at_200", 0),
    ("p99 ms @200/s, from API answer", "p99_after_answer_ms_at_200", 0),
    ("p99 ms @200/s, added (from a bare watcher)", "p99_added_ms_at_200", 0),
    ("  (p99 ms @200/s send -> bare watcher)", "p99_watch_floor_ms_at_200", 0),
    ("highest rate sustained, no loss (/s)", "highest_sustained_rate", 0),
    ("  ...with the control plane flat out", "kept_up_flat_out", 0),
    ("(achieved rate of the 200/s step)", "achieved_rate_at_200", 0),
    ("idle CPU (% of a core)", "idle_cpu_percent", 1),
)

"""The run sizes: ``--smoke`` (a minute of trials), ``--quick`` (about 3 minutes) and the full run
(11-15 minutes, at most 25), each a workload, plus each subject's first start waiting out its
``start_window`` (30 s; the sustain search's budget is extended by it).

The full run is the one the issue's targets are about: 10,000 Pods, 1,000
Deployments and 1,000 Services cached, latency steps of 30 s, sustain
trials of 60 s. The quick run keeps the shape with a tenth of the objects
and shorter trials; its figures are a smoke test, not the result. The smoke run
proves every subject starts, is told the churn and is reported: a small
fleet, one 5 s step at 200/s, no sustain search, the start's CPU read at 5 s
instead of 30; its figures mean nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from bench.e2e.background import BackgroundPlan
from bench.e2e.fleet import FleetSize


@dataclass(frozen=True)
class Settings:
    mode: str
    size: FleetSize
    step_rates: tuple[float, ...]  # the latency steps, changes per second
    step_seconds: float
    sustain_seconds: float
    sustain_ladder: tuple[float, ...]  # fixed rates tried below flat out, highest first
    max_sustain_trials: int
    probe_seconds: float  # the control plane's flat-out write rate, with no subject
    drain_cap: float  # longest wait for notifications after a trial's churn stops
    quiet: float  # a drain also ends after this long without a new churn notification
    ready_timeout: float
    budget_seconds: float  # sustain trials that would end past this are skipped
    background: BackgroundPlan
    processes: int = 2
    threads: int = 12
    start_window: float = (
        30.0  # "CPU in the first 30 s": a first start's CPU this long after launch
    )


STEP_RATES = (20.0, 50.0, 100.0, 200.0, 1000.0)  # 20 and 100: issue #16 compares there

FULL = Settings(
    mode="full",
    size=FleetSize(pods=10_000, deployments=1_000, services=1_000, churn_pods=1_000),
    step_rates=STEP_RATES,
    step_seconds=30.0,
    sustain_seconds=60.0,
    sustain_ladder=(1000.0, 500.0, 200.0, 100.0, 50.0),
    max_sustain_trials=3,
    probe_seconds=15.0,
    drain_cap=30.0,
    quiet=5.0,
    ready_timeout=300.0,
    budget_seconds=25 * 60.0,
    background=BackgroundPlan(pods_per_second=4.0, rollouts_per_second=2.0),
)

QUICK = Settings(
    mode="quick",
    size=FleetSize(pods=1_000, deployments=100, services=100, churn_pods=500),
    step_rates=STEP_RATES,
    step_seconds=8.0,
    sustain_seconds=15.0,
    sustain_ladder=(200.0, 50.0),
    max_sustain_trials=2,
    probe_seconds=5.0,
    drain_cap=10.0,
    quiet=3.0,
    ready_timeout=120.0,
    budget_seconds=4.5 * 60.0,
    background=BackgroundPlan(
        pods_per_second=2.0, rollouts_per_second=1.0, deployments_per_second=0.25
    ),
)

SMOKE = replace(  # what differs from the quick run
    QUICK,
    mode="smoke",
    size=FleetSize(pods=400, deployments=20, services=20, churn_pods=200),
    step_rates=(200.0,),
    step_seconds=5.0,
    sustain_ladder=(),
    max_sustain_trials=0,
    probe_seconds=3.0,
    budget_seconds=3 * 60.0,
    start_window=5.0,  # no figures: it proves the reading, without 30 s of waiting per subject
    background=BackgroundPlan(
        pods_per_second=1.0, rollouts_per_second=1.0, deployments_per_second=0.25, rolled=10
    ),
)

"""The two workloads a run measures, one after the other, each on a fresh control plane.

- ``large-objects`` (``fleet``): Pods of about 8 KB (two containers,
  managedFields), the churn patching a ``seq`` label, background churn
  (failing Pods, rollouts, short-lived Deployments).
- ``phase-transitions`` (``phases``): small Pending Pods with one
  condition, the churn moving them Pending -> Running -> Failed -> Pending
  by status patches, no background churn. kubewatch decodes whole objects
  and posts every update, so small objects and no background favour it:
  the workload where the gap is widest (issue #29).

A workload says how its fleet is made, whether the background churn runs,
how the churn changes a Pod, and the rules each subject is given (one
notification per churn change in both).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.e2e import fleet, phases
from bench.e2e.background import BackgroundPlan
from bench.e2e.fleet import FleetSize, Write
from bench.e2e.headline import window_text
from bench.e2e.subjects import OUR_CONFIG, Baseline, KubeNotifier, Lean

PHASE_CONFIG = """\
# kube-notifier's config for the end-to-end bench's phase workload (bench/e2e/phases.py):
# every phase change of a churn Pod is one notification; nothing folded.
cluster_name: bench
watch:
  kinds: [Pod, Deployment, Service]
  workers: 4
sinks:
  - name: webhook
    type: webhook
    url: ${KN_BENCH_WEBHOOK}
defaults:
  dedup_window: 0
rules:
  - name: bench-phase
    match:
      kinds: [Pod]
      events: [updated]
      labels: "bench=1"
      fields: [status.phase]
    sinks: [webhook]
  - name: image-changes
    match:
      kinds: [Deployment]
      to: [ImageChanged]
    sinks: [webhook]
"""

Writes = Callable[[FleetSize], Iterator[Write]]


@dataclass(frozen=True)
class Workload:
    name: str
    creations: Writes
    statuses: Writes
    background: bool  # the background churn runs during trials
    by_phase: bool  # the churn moves Pods through phases (else patches a seq label)
    our_config: str

    def kube_notifier(self, work_dir: Path, kubeconfig: Path, webhook: str) -> KubeNotifier:
        return KubeNotifier(work_dir, kubeconfig, webhook, self.our_config)

    def baseline(self, work_dir: Path, kubeconfig: Path, webhook: str) -> Baseline:
        return Baseline(work_dir, kubeconfig, webhook, phases=self.by_phase)

    def lean(self, work_dir: Path, kubeconfig: Path, webhook: str) -> Lean:
        return Lean(work_dir, kubeconfig, webhook, phases=self.by_phase)


LARGE_OBJECTS = Workload(
    name="large-objects",
    creations=fleet.creations,
    statuses=fleet.statuses,
    background=True,
    by_phase=False,
    our_config=OUR_CONFIG,
)
PHASE_TRANSITIONS = Workload(
    name="phase-transitions",
    creations=phases.creations,
    statuses=phases.statuses,
    background=False,
    by_phase=True,
    our_config=PHASE_CONFIG,
)
WORKLOADS = {w.name: w for w in (LARGE_OBJECTS, PHASE_TRANSITIONS)}
NO_BACKGROUND = BackgroundPlan(
    pods_per_second=0.0, rollouts_per_second=0.0, deployments_per_second=0.0
)

Json = dict[str, Any]


def worst_ratios(outcomes: Mapping[str, Json]) -> Json:
    """Per ratio of every report (``report.ratios``: peer / ours for costs, ours / peer for
    the rate, so below 1 is kube-notifier doing worse), the lowest over the workloads and
    which workload it came from: the figure the README quotes."""
    worst: Json = {}
    for name, outcome in outcomes.items():
        for direction, figures in outcome["ratios"].items():
            for key, value in figures.items():
                held = worst.setdefault(direction, {}).get(key)
                if value is not None and (held is None or value < held["value"]):
                    worst[direction][key] = {"value": value, "workload": name}
    return worst


WORST_ROWS = (
    ("CPU per change @20/s", "cpu_per_1000_at_20"),
    ("CPU per change @100/s", "cpu_per_1000_at_100"),
    ("CPU per change @200/s", "cpu_per_1000_at_200"),
    ("ready after start", "ready_seconds"),
    ("CPU in the first {window} s", "start_cpu_seconds"),
    ("ready after restart with saved state", "restart_ready_seconds"),
    ("peak RSS", "peak_rss_mib"),
    ("p99 @200/s", "p99_ms_at_200"),
)


def worst_table(outcomes: Mapping[str, Json]) -> str:
    """The worse of the workloads' ratios, per peer, as printed at the end of a run."""
    worst = worst_ratios(outcomes)
    window = window_text(
        {n: h for o in outcomes.values() for n, h in o.get("headline", {}).items()}
    )
    lines = ["worse of the workloads (peer / kube-notifier; below 1x: kube-notifier costs more):"]
    for direction, figures in sorted(worst.items()):
        if not direction.endswith("_over_ours"):
            continue
        peer = direction.removesuffix("_over_ours")
        for label, key in WORST_ROWS:
            if key in figures:
                found = figures[key]
                text = label.format(window=window)
                lines.append(f"  {peer}: {text}: {found['value']:.2f}x ({found['workload']})")
    return "\n".join(lines)

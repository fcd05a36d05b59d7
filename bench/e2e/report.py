"""The run's report: the machine, absolute figures per subject, ratios to each peer, targets.

``build`` turns the measurements into one JSON-able dict (one per workload in
bench/results/e2e.json); ``table`` renders it as the text printed at the end. kube-notifier's
peers are the baseline and kubewatch (when it ran). Ratios, per peer: peer / kube-notifier for
costs (CPU, memory, time, latency: above 1 means kube-notifier is better), under
``<peer>_over_ours``, and kube-notifier / peer for the sustained rate, under
``ours_over_<peer>``. ``notes`` says which kubewatch ran, or why none did.
"""

from __future__ import annotations

import json
import math
import os
import platform
import time
from importlib.metadata import version
from pathlib import Path
from typing import Any

from bench import speed
from bench.e2e.cpu import CpuShares
from bench.e2e.headline import COSTS, HEADLINE_ROWS, headline, window_text
from bench.e2e.measuring import SubjectResult
from bench.e2e.settings import Settings
from bench.e2e.targets import against_baseline, against_kubewatch
from bench.e2e.trials import TrialResult
from tests.controlplane import assets

OURS = "kube-notifier"
Json = dict[str, Any]


def machine() -> Json:
    model = platform.processor() or "unknown"
    with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
        model = next((ln.split(":", 1)[1].strip() for ln in cpuinfo if "model name" in ln), model)
    with open("/proc/meminfo", encoding="utf-8") as meminfo:
        total_kib = int(next(ln.split()[1] for ln in meminfo if ln.startswith("MemTotal")))
    return {
        "cpu": model,
        "cores": os.cpu_count(),
        "memory_gib": round(total_kib / 1024 / 1024, 1),
        "kernel": platform.release(),
        "python": platform.python_version(),
        "kubernetes_control_plane": assets.K8S_VERSION,
        "kwok": assets.KWOK_VERSION,
        "kubernetes_python_client": version("kubernetes"),
        "speed": speed.reference(),
    }


def others_load(results: dict[str, SubjectResult]) -> float:
    """Mean share of one core that processes outside the run used during its trials."""
    trials = [t for r in results.values() for t in (*r.steps, *r.sustain)]
    wall = sum(t.cpu.wall for t in trials)
    return sum(t.cpu.others for t in trials) / wall if wall else 0.0


def _ratio(numerator: float | None, denominator: float | None) -> float | None:
    if numerator is None or denominator is None or denominator == 0:
        return None
    if math.isnan(numerator) or math.isnan(denominator):
        return None
    return numerator / denominator


def ratios(ours: SubjectResult, peer: SubjectResult) -> Json:
    """Cost ratios; the rate ratio only when one of them did not keep up flat out (when both
    did, each sustained what the control plane wrote during its trial: no ratio of theirs)."""
    mine, theirs = headline(ours), headline(peer)
    rate = "highest_sustained_rate"
    both_bound = ours.kept_up_flat_out and peer.kept_up_flat_out
    return {
        f"{peer.name}_over_ours": {key: _ratio(theirs[key], mine[key]) for key in COSTS},
        f"ours_over_{peer.name}": {rate: None if both_bound else _ratio(mine[rate], theirs[rate])},
    }


def _ratio_of(report: Json, peer: str, key: str) -> float | None:
    ratios = report["ratios"]
    for direction in (f"{peer}_over_ours", f"ours_over_{peer}"):
        if key in ratios.get(direction, {}):
            found: float | None = ratios[direction][key]
            return found
    return None


def targets(results: dict[str, SubjectResult], flat_out: float) -> Json:
    ours = results[OURS]
    mine = headline(ours)
    judged = against_baseline(mine, headline(results["baseline"]), ours.kept_up_flat_out, flat_out)
    if "kubewatch" in results:
        judged |= against_kubewatch(mine, headline(results["kubewatch"]))
    return judged


def build(
    settings: Settings,
    setup: Json,
    probe: TrialResult,
    results: dict[str, SubjectResult],
    started: float,
    *,
    notes: dict[str, str] | None = None,
) -> Json:
    ours = results[OURS]
    command = "python -m bench.e2e" + ("" if settings.mode == "full" else f" --{settings.mode}")
    return {
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
        "command": command,
        "mode": settings.mode,
        "wall_seconds": time.monotonic() - started,
        "machine": machine() | {"others_cpu_fraction_during_trials": others_load(results)},
        "setup": setup,
        "notes": notes or {},
        "control_plane_probe": probe.as_json(),
        "subjects": {name: result.as_json() for name, result in results.items()},
        "headline": {name: headline(result) for name, result in results.items()},
        "ratios": {
            key: value
            for name, result in results.items()
            if name != OURS
            for key, value in ratios(ours, result).items()
        },
        "targets": targets(results, probe.score.write_rate),
    }


def _num(value: Any, digits: int = 0) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "NO"
    return f"{value:,.{digits}f}"


TRIAL_HEADER = [
    "subject",
    "trial",
    "target/s",
    "wrote/s",
    "p50",
    "p95",
    "p99",
    "p99 after answer",
    "watch p99",
    "added p50",
    "added p99",
    "lost",
    "coalesced",
    "CPU s/1k",
    "subject %",
    "control plane %",
    "machine %",
    "others %",
]


def _trial_rows(results: dict[str, SubjectResult]) -> list[list[str]]:
    rows = [TRIAL_HEADER]
    for name, result in results.items():
        for kind, trials in (("step", result.steps), ("sustain", result.sustain)):
            rows.extend(_trial_row(name, kind, trial) for trial in trials)
    return rows


def _trial_row(name: str, kind: str, trial: TrialResult) -> list[str]:
    s, cpu = trial.score, trial.cpu
    target = "flat out" if trial.target_rate is None else _num(trial.target_rate)
    return [
        name,
        f"{kind} {trial.seconds:.0f}s",
        target,
        _num(s.write_rate),
        _num(s.latency.p50),
        _num(s.latency.p95),
        _num(s.latency.p99),
        _num(s.after_answer.p99),
        _num(s.watch_latency.p99),
        _num(s.added.p50),
        _num(s.added.p99),
        str(s.lost),
        str(s.coalesced),
        _num(trial.cpu_per_1000, 2),
        *(_num(100 * part / cpu.wall) for part in _parts(cpu)),
    ]


def _parts(cpu: CpuShares) -> tuple[float, float, float, float]:
    return cpu.subject, cpu.control_plane, cpu.machine, cpu.others


def table(report: Json, results: dict[str, SubjectResult]) -> str:
    m, setup = report["machine"], report["setup"]
    probe = report["control_plane_probe"]["score"]
    head = report["headline"]
    lines = [
        f"kube-notifier end-to-end bench ({report['mode']}), {report['date']}"
        + (f", workload: {report['workload']}" if "workload" in report else ""),
        f"machine: {m['cpu']}, {m['cores']} cores, {m['memory_gib']} GiB; during the trials, "
        f"other processes used {m['others_cpu_fraction_during_trials']:.0%} of a core on average",
        speed.line(m["speed"]),
        f"fleet: {setup['pods']:,} Pods, {setup['deployments']:,} Deployments, "
        f"{setup['services']:,} Services ({setup['churn_pods']:,} churn Pods); created in "
        f"{setup['create_seconds']:.0f} s ({setup['create_rate']:.0f}/s)",
        f"control plane flat out, no subject: {probe['write_rate']:.0f} patches/s "
        f"(write p50/p99 {_num(probe['write_latency']['p50'])}/"
        f"{_num(probe['write_latency']['p99'])} ms)",
        *(f"{name}: {note}" for name, note in report.get("notes", {}).items()),
        "",
    ]
    names = list(results)
    peers = [name for name in names if name != OURS]
    rows = [["", *names, *(f"{peer}/ours*" for peer in peers)]]
    window = window_text(head)
    for label, key, digits in HEADLINE_ROWS:
        cells = [_num(head[name][key], digits) for name in names]
        ratios_ = [_ratio_of(report, peer, key) for peer in peers]
        rows.append(
            [
                label.format(window=window),
                *cells,
                *(_ratio_text(r) for r in ratios_),
            ]
        )
    lines.extend(_columns(rows))
    lines.append(
        "* peer / kube-notifier for costs, kube-notifier / peer for the rate (none when"
        " both kept up flat out: each then sustained what the control plane wrote meanwhile)"
    )
    lines.extend(_restart_notes(results))
    lines.append("")
    lines.append(
        "trials (latencies in ms from the send unless said; watch: send -> a bare watcher; "
        "added: bare watcher -> webhook; CPU in % of one core):"
    )
    lines.extend(_columns(_trial_rows(results)))
    lines.append("")
    lines.extend(f"target: {k}: {_num(v)}" for k, v in report["targets"].items())
    return "\n".join(lines)


def _ratio_text(ratio: float | None) -> str:
    if ratio is None:
        return ""
    return f"{ratio:.2f}x" if ratio < 0.1 else f"{ratio:.1f}x"  # never a bare "0.0x"


def _restart_notes(results: dict[str, SubjectResult]) -> list[str]:
    """What "ready after restart" was for each subject, and what its restarts told."""
    stateless = [name for name, result in results.items() if not result.keeps_state]
    lines = [f"{', '.join(stateless)}: no saved state: a restart is a plain restart"]
    for name, result in results.items():
        caught_up = [told for told in result.told_on_start if told.saved_state]
        if caught_up:
            told = sum(t.told_pods for t in caught_up)
            expected = sum(t.expected_pods for t in caught_up)
            others = sum(sum(t.others.values()) for t in caught_up)
            lines.append(
                f"{name}: {len(caught_up)} restarts with saved state told {told} of the {expected}"
                f" churn Pods changed while it was down, {others} other notifications"
            )
    return lines


def _columns(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) for row in rows]


def write(report: Json, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2, default=str) + "\n")

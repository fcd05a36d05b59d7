"""``python -m bench.e2e [--quick | --smoke] [--kubewatch-src DIR] [--workload NAME]``: the
whole run, start to report, everything stopped at the end. Steps 1-5 run once per workload
(``workloads``: large objects, then phase transitions), each on a fresh control plane; the
report prints both tables and the worse of the two ratios to each peer.

0. kubewatch, if its source or binary is given (``kubewatch.resolve``):
   built, or found in the cache, before anything is timed; else skipped,
   and the run says so.
1. etcd, kube-apiserver, controller-manager, scheduler and kwok (with
   fake nodes) on 127.0.0.1 (``tests.controlplane.ControlPlane``).
2. The fleet (``fleet``): 12,000 objects in the full run, created from
   16 connections before anything is measured.
3. The receiver, and the churn's worker processes.
4. A probe: the churn flat out with no subject running, i.e. what this
   control plane can write on this machine.
5. kube-notifier, kubewatch and the baseline taking turns, a fresh process per
   trial (``measuring``): ready time, latency steps, sustain search, CPU,
   peak RSS.
6. The report: a table on stdout, JSON in bench/results/e2e.json.

Every process started is stopped by PID in ``finally`` blocks: subjects,
the churn pool, the receiver, the control plane.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench.bytecode import compile_bytecode
from bench.e2e import fleet, kubewatch, report
from bench.e2e.api import ApiConnection, Endpoint
from bench.e2e.churn import Churn
from bench.e2e.cpu import CpuMeter
from bench.e2e.measuring import SubjectResult, SubjectRun, compare, say
from bench.e2e.receiver import Receiver
from bench.e2e.settings import FULL, QUICK, SMOKE, Settings
from bench.e2e.subjects import Subject
from bench.e2e.trials import Trials
from bench.e2e.workloads import NO_BACKGROUND, WORKLOADS, Workload, worst_ratios, worst_table
from tests.controlplane.cluster import ControlPlane

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "results" / "e2e.json"


def create_fleet(endpoint: Endpoint, size: fleet.FleetSize, workload: Workload) -> dict[str, Any]:
    connection = ApiConnection(endpoint)
    try:
        fleet.create_namespaces(connection, size)
    finally:
        connection.close()
    say(f"creating {size.objects:,} objects ({workload.name})")
    seconds = fleet.write_all(endpoint, list(workload.creations(size)))
    say(f"created {size.objects:,} objects in {seconds:.0f} s; writing {size.pods:,} Pod statuses")
    status_seconds = fleet.write_all(endpoint, list(workload.statuses(size)))
    say(f"wrote the Pod statuses in {status_seconds:.0f} s")
    return {
        "pods": size.pods,
        "deployments": size.deployments,
        "services": size.services,
        "churn_pods": size.churn_pods,
        "namespaces": size.namespaces,
        "create_seconds": seconds,
        "create_rate": size.objects / seconds,
        "status_seconds": status_seconds,
    }


def control_plane_pids(plane: ControlPlane) -> list[int]:
    processes = [plane.etcd, plane.apiserver, *plane.extras]
    return [p.pid for p in processes if p is not None and p.pid is not None]


def subjects(
    work_dir: Path, kubeconfig: Path, webhook: str, found: kubewatch.Found, workload: Workload
) -> list[Subject]:
    """kube-notifier, kubewatch (when there is a binary), the lean client and the baseline,
    in turn order."""
    peers: list[Subject] = [workload.kube_notifier(work_dir, kubeconfig, webhook)]
    if found.binary is not None:
        peers.append(kubewatch.Kubewatch(work_dir, kubeconfig, webhook, found.binary))
    return [
        *peers,
        workload.lean(work_dir, kubeconfig, webhook),
        workload.baseline(work_dir, kubeconfig, webhook),
    ]


def run(
    settings: Settings, work_dir: Path, found: kubewatch.Found, workload: Workload
) -> tuple[dict[str, Any], dict[str, SubjectResult]]:
    """One workload on its own control plane: the report (JSON-able) and each subject's
    results."""
    if not workload.background:
        settings = replace(settings, background=NO_BACKGROUND)
    started = time.monotonic()
    deadline = started + settings.budget_seconds
    with ExitStack() as stack:
        plane = ControlPlane()
        stack.callback(plane.stop)
        say("starting the control plane (etcd, kube-apiserver, controller-manager, ...)")
        plane.start()
        plane.start_full_tier(nodes=settings.size.nodes)
        endpoint = Endpoint.of(plane)
        setup = create_fleet(endpoint, settings.size, workload)
        pods = tuple(fleet.churn_pod_keys(settings.size))
        receiver = Receiver({f"{ns}/{name}": i for i, (ns, name) in enumerate(pods)}).start()
        stack.callback(receiver.stop)
        churn = Churn(endpoint, settings.processes)
        stack.callback(churn.close)
        meter = CpuMeter(lambda: control_plane_pids(plane))
        trials = Trials(
            settings,
            endpoint=endpoint,
            churn=churn,
            receiver=receiver,
            pods=pods,
            meter=meter,
            by_phase=workload.by_phase,
        )
        probe = trials.run(None, settings.probe_seconds, None)
        say(f"control plane flat out, no subject: {probe.score.write_rate:.0f} patches/s")
        runs = [
            SubjectRun(subject, settings)
            for subject in subjects(work_dir, plane.kubeconfig, receiver.url, found, workload)
        ]
        for run_ in runs:
            stack.callback(run_.subject.stop)
        # Each first start waits out its start window (CPU in the first 30 s): time the
        # budget of the sustain search was not counted with.
        deadline += settings.start_window * len(runs)
        compare(runs, trials, settings, deadline)
        results = {run_.subject.name: run_.result for run_ in runs}
        outcome = report.build(settings, setup, probe, results, started, notes=_notes(found))
        return {"workload": workload.name} | outcome, results


def _notes(found: kubewatch.Found) -> dict[str, str]:
    """Which kubewatch ran, or why none did: in the JSON and above the table."""
    text = found.about if found.binary is not None else f"skipped ({found.skipped})"
    return {kubewatch.Kubewatch.name: text}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="kube-notifier vs kubewatch vs a tutorial-style baseline, "
        "end to end against a real control plane."
    )
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="a smaller run, under 5 minutes")
    size.add_argument(
        "--smoke", action="store_true", help="a tiny run that proves the subjects run; no figures"
    )
    parser.add_argument("--output", type=Path, default=RESULTS, help="where to write the JSON")
    parser.add_argument(
        "--kubewatch-src",
        metavar="DIR",
        help=f"a git repository of kubewatch's source, to build (default ${kubewatch.SRC_ENV}; "
        "without it or a binary, kubewatch is skipped)",
    )
    parser.add_argument(
        "--kubewatch-tag",
        metavar="TAG",
        help=f"the tag to build (default ${kubewatch.TAG_ENV}, else the newest vX.Y.Z)",
    )
    parser.add_argument(
        "--kubewatch-bin",
        metavar="FILE",
        help=f"a kubewatch binary to run instead of building one (default ${kubewatch.BIN_ENV})",
    )
    parser.add_argument(
        "--workload",
        choices=[*WORKLOADS, "both"],
        default="both",
        help="which workload to run (default both, one after the other)",
    )
    args = parser.parse_args(argv)
    compile_bytecode()  # as the image has it: no start of ours compiles our modules
    settings = SMOKE if args.smoke else QUICK if args.quick else FULL
    found = kubewatch.resolve(args.kubewatch_bin, args.kubewatch_src, args.kubewatch_tag)
    say(f"kubewatch: {_notes(found)['kubewatch']}")
    chosen = list(WORKLOADS.values()) if args.workload == "both" else [WORKLOADS[args.workload]]
    tables = []
    outcomes = {}
    for workload in chosen:
        with tempfile.TemporaryDirectory(prefix="kn-bench-e2e-") as work:
            outcome, results = run(settings, Path(work), found, workload)
        outcomes[workload.name] = outcome
        tables.append(report.table(outcome, results))
    report.write({"workloads": outcomes, "worst_ratios": worst_ratios(outcomes)}, args.output)
    print()
    print("\n\n".join(tables))
    print()
    print(worst_table(outcomes))
    print(f"\nwritten to {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""``python -m bench.scale``: kube-notifier at 100,000 Pods, against the stand-in API server.

See ``bench/scale/__init__.py`` for what runs and docs/benchmarks.md for the
figures. Prints a table and writes bench/results/scale.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench import results, speed
from bench.bytecode import compile_bytecode
from bench.e2e import kubewatch
from bench.scale import peer, phases
from bench.scale.notifier import write_kubeconfig
from bench.scale.objects import DEPLOYMENTS_PER_NAMESPACE
from bench.scale.processes import StandInProcess
from bench.scale.receiver import SeqReceiver
from bench.scale.report import render

BASELINE_BYTES_PER_POD = 80_000  # the client's dicts: ~60 KB a Pod (source_bench), with margin


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.scale", description=__doc__)
    parser.add_argument("--pods", type=int, default=100_000)
    parser.add_argument("--namespaces", type=int, default=1_000)
    parser.add_argument("--watch-namespaces", type=int, help="default: half the namespaces")
    parser.add_argument("--quick", action="store_true", help="10,000 Pods, 100 namespaces")
    parser.add_argument("--rate", type=float, default=5_000, help="changes a second in a burst")
    parser.add_argument("--bursts", type=int, default=3)
    parser.add_argument("--burst-seconds", type=float, default=4.0)
    parser.add_argument("--pause-seconds", type=float, default=2.0)
    parser.add_argument("--notifier-cpu", type=int, default=0, help="-1: not pinned")
    parser.add_argument("--helper-cpu", type=int, default=1, help="stand-in's core; -1: not pinned")
    parser.add_argument("--no-baseline", action="store_true")
    parser.add_argument(
        "--kubewatch-bin", metavar="FILE", help=f"kubewatch to run too (or ${kubewatch.BIN_ENV})"
    )
    parser.add_argument(
        "--kubewatch-src", metavar="DIR", help=f"its source, to build (or ${kubewatch.SRC_ENV})"
    )
    parser.add_argument("--kubewatch-tag", metavar="TAG", help="the tag to build")
    parser.add_argument("--output", type=Path)
    args = parser.parse_args(argv)
    if args.quick:
        args.pods, args.namespaces, args.bursts, args.burst_seconds = 10_000, 100, 2, 2.0
    args.watch_namespaces = args.watch_namespaces or args.namespaces // 2
    return args


def plan_of(args: argparse.Namespace) -> phases.Plan:
    return phases.Plan(
        pods=args.pods,
        namespaces=args.namespaces,
        watch_namespaces=args.watch_namespaces,
        rate=args.rate,
        bursts=args.bursts,
        burst_seconds=args.burst_seconds,
        pause_seconds=args.pause_seconds,
        notifier_cpu=None if args.notifier_cpu < 0 else args.notifier_cpu,
        helper_cpu=None if args.helper_cpu < 0 else args.helper_cpu,
    )


def memory_available() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) * 1024
    return 0


def run_baseline(bench: phases.Bench, skip: bool) -> dict[str, Any]:
    if skip:
        return {"skipped": "--no-baseline"}
    needed = bench.plan.pods * BASELINE_BYTES_PER_POD
    if memory_available() < 2 * needed:
        return {"skipped": f"needs ~{needed >> 30} GiB and twice that is not available"}
    return phases.baseline(bench)


def run_kubewatch(bench: phases.Bench, found: kubewatch.Found) -> dict[str, Any]:
    if found.binary is None:
        return {"skipped": found.skipped}
    needed = bench.plan.pods * peer.BYTES_PER_POD
    if memory_available() < 2 * needed:
        return {"skipped": f"needs ~{needed >> 30} GiB and twice that is not available"}
    return {"binary": found.about} | peer.kubewatch(bench, found.binary)


def run(bench: phases.Bench, skip_baseline: bool, found: kubewatch.Found) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    subject, sampler, figures["first_start"] = phases.first_start(bench)
    print(f"  first start: {json.dumps(figures['first_start'])}", file=sys.stderr, flush=True)
    figures["relist"] = phases.relist(bench, subject, sampler)
    print(f"  relist: {json.dumps(figures['relist'])}", file=sys.stderr, flush=True)
    figures["throughput"] = phases.throughput(bench, subject)
    print(f"  throughput: {json.dumps(figures['throughput'])}", file=sys.stderr, flush=True)
    figures["restart"] = phases.restart(bench, subject)
    print(f"  restart: {json.dumps(figures['restart'])}", file=sys.stderr, flush=True)
    figures["namespaced"] = phases.namespaced(bench)
    print(f"  namespaced: {json.dumps(figures['namespaced'])}", file=sys.stderr, flush=True)
    figures["kubewatch"] = run_kubewatch(bench, found)
    print(f"  kubewatch: {json.dumps(figures['kubewatch'])}", file=sys.stderr, flush=True)
    if "skipped" not in figures["kubewatch"]:
        figures["kubewatch_over_ours"] = peer.ratios(figures)
    figures["baseline"] = run_baseline(bench, skip_baseline)
    return figures


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    plan = plan_of(args)
    found = kubewatch.resolve(args.kubewatch_bin, args.kubewatch_src, args.kubewatch_tag)
    if plan.helper_cpu is not None:  # the receiver runs here: keep the service's core to itself
        os.sched_setaffinity(0, {plan.helper_cpu})
    compile_bytecode()  # our modules, as the image has them
    machine_speed = speed.reference()  # before anything of the bench runs
    print(f"  {speed.line(machine_speed)}", file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory(prefix="kn-scale-") as scratch:
        work_dir = Path(scratch)
        standin = StandInProcess(
            work_dir, pods=plan.pods, namespaces=plan.namespaces, cpu=plan.helper_cpu
        )
        receiver = SeqReceiver()
        bench: phases.Bench | None = None
        try:
            standin.start(timeout=120 + plan.pods / 200)
            receiver.start()
            kubeconfig = write_kubeconfig(work_dir / "kubeconfig", standin.url)
            limits = phases.Limits.for_pods(plan.pods)
            bench = phases.Bench(plan, limits, work_dir, standin, receiver, kubeconfig)
            figures = run(bench, args.no_baseline, found)
        except Exception:
            for log in sorted(work_dir.glob("*.log")):
                tail = "\n".join(log.read_text(errors="replace").splitlines()[-15:])
                print(f"--- {log.name}\n{tail}", file=sys.stderr)
            raise
        finally:
            if bench is not None:
                bench.stop_all()
            receiver.stop()
            standin.stop()
    figures |= {
        "speed_at_start": machine_speed,
        "plan": vars(plan),
        "deployments": plan.namespaces * DEPLOYMENTS_PER_NAMESPACE,
        "command": " ".join(["python -m bench.scale", *(argv or sys.argv[1:])]),
    }
    print(render(figures))
    written = results.write("scale", figures, path=args.output)
    print(f"\nwritten to {written}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

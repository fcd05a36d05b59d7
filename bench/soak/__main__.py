"""``python -m bench.soak``: an hour of churn against the stand-in; RSS and the state file.

See ``bench/soak/__init__.py``. Samples go to ``soak-samples.jsonl`` in the
work directory as they are taken (``--keep`` keeps it); the figures to
bench/results/soak.json.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from contextlib import ExitStack
from dataclasses import asdict
from pathlib import Path
from typing import Any

from bench import results
from bench.e2e import procstat
from bench.scale.notifier import ScaleNotifier, wait_until, write_kubeconfig
from bench.scale.processes import StandInProcess
from bench.scale.receiver import SeqReceiver
from bench.scale.sampling import MIB
from bench.scale.scoring import score_changes
from bench.soak.report import Sample, render, rss_figures, settled_after, state_figures

NOTE = "generated objects over HTTP, not kube-apiserver: see bench/soak/__init__.py"
FAILURES_RULE = """
  - name: failures
    match: {kinds: [Pod], labels: "soak=1", to: [Failed]}
    sinks: [webhook]
"""


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.soak", description=__doc__)
    parser.add_argument("--minutes", type=float, default=60)
    parser.add_argument("--rate", type=float, default=50)
    parser.add_argument("--pods", type=int, default=10_000)
    parser.add_argument("--namespaces", type=int, default=100)
    parser.add_argument("--warmup-minutes", type=float, default=10)
    parser.add_argument("--relist-minutes", type=float, default=10, help="a 410 for every watch")
    parser.add_argument("--sample-seconds", type=float, default=15)
    parser.add_argument("--quick", action="store_true", help="3 minutes, 2,000 Pods")
    parser.add_argument("--work-dir", type=Path, help="kept after the run (default: temporary)")
    parser.add_argument("--output", type=Path)
    args = parser.parse_args(argv)
    if args.quick:
        args.minutes, args.pods, args.namespaces = 3, 2_000, 20
        args.warmup_minutes, args.relist_minutes, args.sample_seconds = 1, 1, 5
    return args


class SoakNotifier(ScaleNotifier):
    """The scale bench's service and seq rule, plus a rule telling created Pods that fail."""

    def __init__(self, work_dir: Path, kubeconfig: Path, webhook: str, state: Path) -> None:
        super().__init__(
            "soak", work_dir, kubeconfig, webhook, state=state, namespaces=[], cpu=None
        )
        self.config_path.write_text(self.config_path.read_text() + FAILURES_RULE)


def _sample(notifier: SoakNotifier, receiver: SeqReceiver, began: float) -> Sample:
    state = notifier.state
    wal = state.with_name(state.name + "-wal")
    return Sample(
        at=time.monotonic() - began,
        rss_mib=procstat.rss_bytes(notifier.pid) / MIB,
        db_mib=state.stat().st_size / MIB if state.exists() else 0.0,
        wal_mib=wal.stat().st_size / MIB if wal.exists() else 0.0,
        told=receiver.count(),
    )


def soak(args: argparse.Namespace, work: Path, stack: ExitStack) -> dict[str, Any]:
    standin = StandInProcess(work, pods=args.pods, namespaces=args.namespaces,
                             module="bench.soak.standin")  # fmt: skip
    standin.start(timeout=300)
    stack.callback(standin.stop)
    receiver = SeqReceiver().start()
    stack.callback(receiver.stop)
    kubeconfig = write_kubeconfig(work / "kubeconfig", standin.url)
    notifier = SoakNotifier(work, kubeconfig, receiver.url, work / "state.db")
    notifier.start()
    stack.callback(notifier.stop)
    notifier.wait_ready(300)
    wait_until(notifier.acted_on, 300, "initial list acted on")
    seconds = args.minutes * 60
    standin.control("soak", 30, rate=args.rate, seconds=seconds)
    began = time.monotonic()
    samples, relists = _watch(args, standin, notifier, receiver, (began, work))
    wait_until(lambda: not standin.control("soak-status", 30)["running"], 120, "churn ended")
    status = standin.control("soak-status", 30)
    _drain(receiver, set(status["matching"]))
    samples.append(_sample(notifier, receiver, began))
    seqs, unparsed = receiver.take()
    told = score_changes(seqs, status["matching"], cycle=status["stable_pods"])
    return {
        "note": NOTE, "minutes": args.minutes, "rate": args.rate, "pods": args.pods,
        "made": status["made"], "counts": status["counts"], "relists": relists,
        "warmup_s": args.warmup_minutes * 60, "told": told, "failed": status["failed"],
        "failures_told": unparsed,
        "failures_told_twice": sum(1 for n in receiver.others().values() if n > 1),
        "rss": rss_figures(samples, args.warmup_minutes * 60),
        "settled": settled_after(samples, args.relist_minutes * 60),
        "state": state_figures(samples),
        "samples": [asdict(s) for s in samples],
    }  # fmt: skip


def _watch(
    args: argparse.Namespace,
    standin: StandInProcess,
    notifier: SoakNotifier,
    receiver: SeqReceiver,
    run: tuple[float, Path],
) -> tuple[list[Sample], int]:
    """Sample until the churn's time is up, forcing a relist every ``--relist-minutes``.

    ``run``: when the churn began (``time.monotonic()``) and the work directory."""
    began, work = run
    samples: list[Sample] = []
    relists, next_relist = 0, args.relist_minutes * 60
    with (work / "soak-samples.jsonl").open("a") as progress:
        while (elapsed := time.monotonic() - began) < args.minutes * 60:
            if elapsed >= next_relist:
                standin.control("gone", 30)
                relists, next_relist = relists + 1, next_relist + args.relist_minutes * 60
            sample = _sample(notifier, receiver, began)
            samples.append(sample)
            progress.write(json.dumps(asdict(sample)) + "\n")
            progress.flush()
            wait = min(args.sample_seconds, max(0.0, args.minutes * 60 - sample.at))
            time.sleep(wait)  # the sampling period: the churn runs on its own clock
    return samples, relists


def _drain(receiver: SeqReceiver, expected: set[int], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not expected <= receiver.seqs():
        time.sleep(0.2)


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    with ExitStack() as stack:
        if args.work_dir is not None:
            args.work_dir.mkdir(parents=True, exist_ok=True)
            work = args.work_dir
        else:
            work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="kn-soak-")))
        figures = soak(args, work, stack)
    print(render(figures))
    print(f"written: {results.write('soak', figures, path=args.output)}")


if __name__ == "__main__":
    main()

"""Delivery throughput and latency against a local webhook receiver, with the outbox on and off.

Run from the repository root:

    .venv/bin/python -m bench.delivery_bench [--count 3000] [--rate 200] [--seconds 5]

The receiver (``tests.support.webhook_server``) runs in its own process so
it does not share our GIL. Two measurements, each with the outbox off
(notifications only in memory) and on (a SQLite outbox in a temp dir):

- throughput: ``--count`` notifications submitted at once; notifications
  delivered per second, first submit to last delivery;
- latency: notifications submitted at a fixed ``--rate`` for ``--seconds``;
  p50 / p99 of the time from submit to the receiver's 200.

Each measurement runs ``--rounds`` times, the two modes taking turns (off
then on, then on then off, ...) so a machine that speeds up or slows down
mid-run hits both alike; the table gives each mode's median over the rounds,
and the outbox's cost is the median of the per-round ratios. Bounded: each
run gives up after ``--timeout`` seconds. Writes bench/results/delivery.json.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from bench import results
from notifier.delivery import Delivery, DeliveryTarget
from notifier.notifications import Notification
from notifier.sinks.config import DeliveryOptions
from notifier.sinks.webhook.sink import WebhookSink, WebhookTarget
from notifier.state import StateConfig, StateStore


class TimedSink:
    """Wraps the webhook sink; records when each notification was delivered."""

    def __init__(self, inner: WebhookSink, expected: int) -> None:
        self._inner = inner
        self._expected = expected
        self.delivered_at: dict[str, float] = {}
        self._lock = threading.Lock()
        self.all_delivered = threading.Event()

    @property
    def name(self) -> str:
        return self._inner.name

    @property
    def integration(self) -> str:
        return self._inner.integration

    def send(self, notification: Notification) -> None:
        self._inner.send(notification)
        with self._lock:
            self.delivered_at[notification.id] = time.time()
            if len(self.delivered_at) >= self._expected:
                self.all_delivered.set()

    def close(self) -> None:
        self._inner.close()


@dataclass(frozen=True)
class Result:
    measurement: str
    outbox: bool
    count: int
    seconds: float
    latencies_ms: list[float]

    @property
    def per_second(self) -> float:
        return self.count / self.seconds

    def percentile(self, fraction: float) -> float:
        ordered = sorted(self.latencies_ms)
        return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


@contextmanager
def receiver() -> Iterator[str]:
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.support.webhook_server"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        yield child.stdout.readline().strip()
    finally:
        child.kill()
        child.wait()


@contextmanager
def running_delivery(
    url: str, expected: int, *, outbox: bool, concurrency: int
) -> Iterator[tuple[Delivery, TimedSink]]:
    sink = TimedSink(WebhookSink("bench", WebhookTarget(url=url), pool_size=concurrency), expected)
    options = DeliveryOptions(concurrency=concurrency, queue_size=max(expected, 1))
    with tempfile.TemporaryDirectory() as directory:
        store = StateStore(StateConfig(path=Path(directory) / "state.db")) if outbox else None
        delivery = Delivery(
            [DeliveryTarget(sink, options, "bench")],
            outbox=store.outbox if store is not None else None,
        )
        delivery.start()
        try:
            yield delivery, sink
        finally:
            delivery.stop(time.monotonic() + 5)
            if store is not None:
                store.close()


def notification(n: int) -> Notification:
    key = f"Pod/bench/web-{n % 100}"
    facts = {"summary": f"web-{n} changed", "kind": "Pod", "namespace": "bench",
             "name": f"web-{n % 100}", "rule": "bench"}  # fmt: skip
    return Notification(f"bench-{n}", "bench", "bench", key, facts, observed_at=time.time())


def wait_for_all(sink: TimedSink, timeout: float) -> None:
    if not sink.all_delivered.wait(timeout):
        raise SystemExit(f"gave up after {timeout}s: {len(sink.delivered_at)} delivered")


def latencies_ms(sink: TimedSink, notes: list[Notification]) -> list[float]:
    return [(sink.delivered_at[note.id] - note.observed_at) * 1000 for note in notes]


def throughput(url: str, args: argparse.Namespace, *, outbox: bool) -> Result:
    with running_delivery(url, args.count, outbox=outbox, concurrency=args.concurrency) as (
        delivery,
        sink,
    ):
        started = time.time()
        notes = [notification(n) for n in range(args.count)]
        for note in notes:
            delivery.submit(note)
        wait_for_all(sink, args.timeout)
        seconds = max(sink.delivered_at.values()) - started
        return Result("throughput", outbox, args.count, seconds, latencies_ms(sink, notes))


def fixed_rate(url: str, args: argparse.Namespace, *, outbox: bool) -> Result:
    count = int(args.rate * args.seconds)
    with running_delivery(url, count, outbox=outbox, concurrency=args.concurrency) as (
        delivery,
        sink,
    ):
        began = time.monotonic()
        notes = []
        for n in range(count):
            time.sleep(max(0.0, began + n / args.rate - time.monotonic()))
            notes.append(notification(n))
            delivery.submit(notes[-1])
        wait_for_all(sink, args.timeout)
        seconds = time.monotonic() - began
        return Result(f"{args.rate:g}/s", outbox, count, seconds, latencies_ms(sink, notes))


def median_of(rounds: list[Result], figure: str) -> float:
    values = {
        "per_second": [r.per_second for r in rounds],
        "p50": [r.percentile(0.5) for r in rounds],
        "p99": [r.percentile(0.99) for r in rounds],
    }[figure]
    return statistics.median(values)


def summary(measured: dict[tuple[str, bool], list[Result]]) -> list[dict[str, object]]:
    return [
        {"measurement": name, "outbox": outbox, "rounds": len(rounds), "count": rounds[0].count}
        | {figure: round(median_of(rounds, figure), 1) for figure in ("per_second", "p50", "p99")}
        for (name, outbox), rounds in measured.items()
    ]


def paired_cost(measured: dict[tuple[str, bool], list[Result]]) -> float:
    """Median over rounds of the throughput lost to the outbox, as a fraction."""
    off, on = measured[("throughput", False)], measured[("throughput", True)]
    return statistics.median(1 - b.per_second / a.per_second for a, b in zip(off, on, strict=True))


def print_table(rows: list[dict[str, object]], cost: float, rate: str) -> None:
    print(f"{'measurement':<12} {'outbox':<7} {'rounds':>6} {'count':>6} {'per s':>7}", end="")
    print(f" {'p50 ms':>7} {'p99 ms':>7}   (medians over the rounds)")
    for row in rows:
        print(
            f"{row['measurement']!s:<12} {'on' if row['outbox'] else 'off':<7} {row['rounds']!s:>6}"
            f" {row['count']!s:>6} {row['per_second']!s:>7} {row['p50']!s:>7} {row['p99']!s:>7}"
        )
    on_p99 = next(r["p99"] for r in rows if r["measurement"] == rate and r["outbox"])
    print(f"outbox throughput cost: {cost * 100:.0f}% (median of paired rounds; target < 30%)")
    print(f"p99 at {rate} with the outbox: {on_p99} ms (target < 50 ms)")


def measure(url: str, args: argparse.Namespace) -> dict[tuple[str, bool], list[Result]]:
    measured: dict[tuple[str, bool], list[Result]] = {}
    for round_ in range(args.rounds):
        order = (False, True) if round_ % 2 == 0 else (True, False)
        for run in (throughput, fixed_rate):
            for outbox in order:
                result = run(url, args, outbox=outbox)
                measured.setdefault((result.measurement, outbox), []).append(result)
    return dict(sorted(measured.items(), key=lambda item: (item[0][0] != "throughput", item[0])))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=3000, help="notifications for throughput")
    parser.add_argument("--rate", type=float, default=200.0, help="notifications per second")
    parser.add_argument("--seconds", type=float, default=5.0, help="length of the fixed-rate run")
    parser.add_argument("--concurrency", type=int, default=4, help="delivery threads")
    parser.add_argument("--rounds", type=int, default=5, help="runs of each mode, alternated")
    parser.add_argument("--timeout", type=float, default=60.0, help="per-run limit in seconds")
    args = parser.parse_args()
    with receiver() as url:
        measured = measure(url, args)
    rows, cost = summary(measured), paired_cost(measured)
    print_table(rows, cost, f"{args.rate:g}/s")
    figures = {"settings": vars(args), "rows": rows, "outbox_throughput_cost": round(cost, 3)}
    print(f"written to {results.write('delivery', figures)}")


if __name__ == "__main__":
    main()

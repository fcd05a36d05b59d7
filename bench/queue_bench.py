"""Throughput of the workqueue: keys per second through add + get + done.

One producer thread adds a fixed number of distinct keys while N workers
get and done them; the figure is keys processed / wall time. Metrics are on,
as in the service. N is 1, the service's default worker count (``watch.workers``)
and 16. Bounded: each run handles ``--keys`` keys and stops. Prints a line a
worker count and writes bench/results/queue.json.

    .venv/bin/python -m bench.queue_bench [--keys 200000]
"""

from __future__ import annotations

import argparse
import threading
import time

from bench import results
from notifier.config.model import WatchConfig
from notifier.queue import WorkQueue


def _work(queue: WorkQueue[int], processed: list[int]) -> None:
    count = 0
    while (key := queue.get()) is not None:
        queue.done(key)
        count += 1
    processed.append(count)


def run(workers: int, keys: int) -> float:
    """Keys per second through add + get + done with ``workers`` worker threads."""
    queue: WorkQueue[int] = WorkQueue("bench")
    processed: list[int] = []
    threads = [
        threading.Thread(target=_work, args=(queue, processed), daemon=True) for _ in range(workers)
    ]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for key in range(keys):
        queue.add(key)
    queue.shutdown()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    assert sum(processed) == keys, f"processed {sum(processed)} of {keys}"
    return keys / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=200_000)
    args = parser.parse_args()
    default = WatchConfig().workers
    rows = []
    for workers in sorted({1, default, 16}):
        rate = run(workers, args.keys)
        note = " (the service's default)" if workers == default else ""
        print(f"workers={workers}: {rate:,.0f} keys/s (add+get+done){note}")
        rows.append({"workers": workers, "keys_per_second": round(rate), "default": bool(note)})
    print(f"written to {results.write('queue', {'keys': args.keys, 'rows': rows})}")


if __name__ == "__main__":
    main()

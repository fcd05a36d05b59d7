"""The machine's speed, measured the same way by every bench run, so figures from different
days (and differently loaded machines) can be put side by side.

The reference is CPU-bound and does not depend on kube-notifier's code: msgspec decoding
watch events of generated Pods (``podgen``, fixed seed: ~9.5 KB each, managedFields
included) into plain Python objects, no types. It reports events per CPU-second (this
process's CPU time, which a busy machine stretches less than wall time) and per wall
second, best of ``REPEATS``; a figure to divide by, not a target. The stream is made once
per process.

    .venv/bin/python -m bench.speed     # prints the reference as JSON
"""

from __future__ import annotations

import functools
import json
import os
import time
from typing import Any

import msgspec

from bench import podgen

EVENTS = 1_500
PODS = 300
SEED = 7
REPEATS = 5


@functools.cache
def _stream() -> tuple[bytes, ...]:
    recorded = podgen.recorded_stream(pods=PODS, modified=EVENTS - PODS, seed=SEED)
    return (*recorded.added, *recorded.modified)


def _decode_all(lines: tuple[bytes, ...]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) to decode every line once."""
    decode = msgspec.json.decode
    wall, cpu = time.perf_counter(), time.process_time()
    for line in lines:
        decode(line)
    return time.perf_counter() - wall, time.process_time() - cpu


def reference(repeats: int = REPEATS) -> dict[str, Any]:
    """The decode-only reference: events/s and events per CPU-second, best of ``repeats``."""
    lines = _stream()
    _decode_all(lines)  # warm: allocator and caches, not the first run's costs
    runs = [_decode_all(lines) for _ in range(repeats)]
    best_wall = min(wall for wall, _cpu in runs)
    best_cpu = min(max(cpu, 1e-9) for _wall, cpu in runs)
    return {
        "reference": "msgspec.json.decode (untyped) of podgen watch events, seed 7",
        "reference_events": len(lines),
        "decode_events_per_s": round(len(lines) / best_wall),
        "decode_events_per_cpu_s": round(len(lines) / best_cpu),
        "load_average": os.getloadavg(),
    }


def line(speed: dict[str, Any]) -> str:
    """One line for a report's head."""
    load = ", ".join(f"{x:.2f}" for x in speed["load_average"])
    return (
        f"machine speed (reference: untyped msgspec decode of ~9.5 KB Pod events): "
        f"{speed['decode_events_per_cpu_s']:,} events per CPU-second, "
        f"{speed['decode_events_per_s']:,}/s wall; load average {load}"
    )


if __name__ == "__main__":
    print(json.dumps(reference(), indent=2))

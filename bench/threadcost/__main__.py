"""``python -m bench.threadcost``: per-thread CPU and context switches per change; see
``bench/threadcost/__init__.py``. Prints a table, writes bench/results/threadcost.json."""

from __future__ import annotations

import argparse
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Any

from bench import results, speed
from bench.bytecode import compile_bytecode
from bench.threadcost.run import Plan, measure


def parse(argv: list[str] | None) -> Plan:
    parser = argparse.ArgumentParser(prog="python -m bench.threadcost", description=__doc__)
    parser.add_argument("--rates", type=float, nargs="+", default=[20.0, 100.0])
    parser.add_argument("--seconds", type=float, default=30.0, help="per rate")
    parser.add_argument("--idle-seconds", type=float, default=15.0)
    parser.add_argument("--cpu", type=int, default=-1, help="pin the service; -1: not pinned")
    parser.add_argument(
        "--profile", type=Path, help="py-spy raw stacks of each rate window: PROFILE-at-RATE.txt"
    )
    args = parser.parse_args(argv)
    cpu = None if args.cpu < 0 else args.cpu
    return Plan(tuple(args.rates), args.seconds, args.idle_seconds, cpu, args.profile)


def table(figures: dict[str, Any], rates: tuple[float, ...]) -> str:
    """Per thread family: idle CPU ms/s, then per rate CPU ms, voluntary and involuntary
    context switches per change."""
    idle = figures["idle"]
    windows = [figures[f"at_{rate:g}"] for rate in rates]
    names = sorted(
        {name for w in (idle, *windows) for name in w["families"]},
        key=lambda n: -max(w["families"].get(n, {}).get("cpu_s", 0.0) for w in windows),
    )
    head = ["thread", "idle ms/s"] + [f"@{r:g}/s: {c}" for r in rates for c in CELLS]
    rows = [head]
    for name in [*names, "total"]:
        rows.append([name, _idle(idle, name), *(c for w in windows for c in _cells(w, name))])
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = ["  ".join(cell.rjust(w) for cell, w in zip(row, widths, strict=True)) for row in rows]
    for rate, window in zip(rates, windows, strict=True):
        lines.append(
            f"@{rate:g}/s: {window['changes']:,} changes, {window['expected']:,} matched the "
            f"rule, {window['told']:,} told, over {window['seconds']:.1f} s"
        )
    return "\n".join(lines)


CELLS = ("CPU ms/chg", "of it sys", "vol cs/chg", "invol cs/chg")


def _sum(window: dict[str, Any], name: str, key: str) -> float:
    families = window["families"]
    if name == "total":
        return float(sum(f[key] for f in families.values()))
    return float(families.get(name, {}).get(key, 0.0))  # a figure older runs lack: 0


def _idle(idle: dict[str, Any], name: str) -> str:
    return f"{_sum(idle, name, 'cpu_s') * 1000 / idle['seconds']:.1f}"


def _cells(window: dict[str, Any], name: str) -> list[str]:
    changes = max(window["changes"], 1)
    return [
        f"{_sum(window, name, 'cpu_s') * 1000 / changes:.2f}",
        f"{_sum(window, name, 'system_s') * 1000 / changes:.2f}",
        f"{_sum(window, name, 'voluntary') / changes:.2f}",
        f"{_sum(window, name, 'involuntary') / changes:.2f}",
    ]


def main(argv: list[str] | None = None) -> int:
    plan = parse(argv)
    compile_bytecode()
    machine_speed = speed.reference()
    with tempfile.TemporaryDirectory(prefix="kn-threadcost-") as work:
        figures = measure(plan, Path(work))
    plan_json = asdict(plan) | {"profile": str(plan.profile or "")}
    figures |= {"speed_at_start": machine_speed, "plan": plan_json}
    print(speed.line(machine_speed))
    print(table(figures, plan.rates))
    print(f"\nwritten to {results.write('threadcost', figures)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

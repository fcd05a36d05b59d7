"""Where kube-notifier's start goes: a whole-process profile of its first seconds (issue #29).

``python -m bench.startup [--seconds 30] [--top 25]``: the scale bench's
stand-in API server with 10,000 Pods in 500 namespaces (12,000 objects with
the Deployments and Services), then ``py-spy record`` (PyPI ``py-spy``,
100 samples a second) launching
``python -m notifier run`` with the scale bench's config at log level
warning, for ``--seconds``, sampling only threads that hold the GIL
(``--gil``: Python code running; a thread waiting on a lock or a socket
would otherwise count). Meanwhile ``/readyz`` is polled every 20 ms
for the ready time, and the process's CPU is read at ready and at the end.
The collapsed stacks are summed by function (inclusive: once per sample
whatever the depth; self: the innermost frame) and by area (the innermost
module of ours, else a library, or the import system). Prints the tables and
writes bench/results/startup.json; ``--keep FILE`` keeps the raw stacks.
Our modules are compiled to bytecode first, as the image ships them.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from bench import results, speed
from bench.bytecode import compile_bytecode
from bench.e2e import procstat
from bench.scale.notifier import CONFIG, write_kubeconfig
from bench.scale.processes import StandInProcess
from tests.controlplane.processes import free_port

PODS, NAMESPACES = 10_000, 500
FRAME = re.compile(r"^(?P<function>.*) \((?P<file>[^()]*?)(?::\d+)?\)$")


def parse_raw(lines: Iterable[str]) -> list[tuple[list[str], int]]:
    """py-spy's raw (collapsed) output: ``frame;frame;... count``, outermost frame first."""
    stacks = []
    for line in lines:
        stack, _, count = line.rstrip("\n").rpartition(" ")
        if stack and count.isdigit():
            stacks.append((stack.split(";"), int(count)))
    return stacks


def function_of(frame: str) -> str:
    """``load (notifier/config/loading.py:42)`` -> ``load (notifier/config/loading.py)``."""
    found = FRAME.match(frame)
    return f"{found['function']} ({found['file']})" if found else frame


def area_of(stack: list[str]) -> str:
    """What a sample was doing, roughly: the import system, or the innermost frame's module
    if it is ours, else the innermost of ours above a library."""
    files = [found["file"] for frame in stack if (found := FRAME.match(frame))]
    if any("importlib._bootstrap" in f for f in files):
        return "imports"
    ours = [f for f in files if f.startswith("notifier/")]
    return ours[-1].rsplit("/", 1)[0] if ours else (files[-1] if files else "?")


def summarize(stacks: list[tuple[list[str], int]], top: int) -> dict[str, Any]:
    inclusive: Counter[str] = Counter()
    own: Counter[str] = Counter()
    areas: Counter[str] = Counter()
    for stack, count in stacks:
        for function in {function_of(frame) for frame in stack}:
            inclusive[function] += count
        own[function_of(stack[-1])] += count
        areas[area_of(stack)] += count
    return {
        "samples": sum(count for _stack, count in stacks),
        "inclusive": inclusive.most_common(top),
        "self": own.most_common(top),
        "areas": areas.most_common(top),
    }


def _ready(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=1) as answer:
            return bool(answer.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def profile(work: Path, seconds: float, py_spy: str) -> tuple[dict[str, Any], list[str]]:
    standin = StandInProcess(work, pods=PODS, namespaces=NAMESPACES)
    try:
        standin.start(timeout=180)
        kubeconfig = write_kubeconfig(work / "kubeconfig", standin.url)
        config = work / "config.yaml"
        config.write_text(CONFIG.format(namespaces="[]", webhook="http://127.0.0.1:9/hook"))
        port, raw = free_port(), work / "stacks.txt"
        service = [
            sys.executable, "-m", "notifier", "run", "--config", str(config),
            "--kubeconfig", str(kubeconfig), "--listen", f"127.0.0.1:{port}",
            "--state", str(work / "state.db"), "--log-level", "warning",
        ]  # fmt: skip
        command = [py_spy, "record", "--format", "raw", "--rate", "100", "--gil", "--duration",
                   f"{seconds:g}", "--output", str(raw), "--", *service]  # fmt: skip
        figures = _run(command, port, seconds)
        return figures, raw.read_text().splitlines()
    finally:
        standin.stop()


def _run(command: list[str], port: int, seconds: float) -> dict[str, Any]:
    with open(Path(command[command.index("--output") + 1]).with_suffix(".log"), "wb") as log:
        started = time.monotonic()
        recorder = subprocess.Popen(command, stdout=log, stderr=log)
        ready = cpu_at_ready = cpu_end = None
        service_pid = None
        while recorder.poll() is None:
            service_pid = service_pid or next(iter(procstat.children(recorder.pid)), None)
            if ready is None and _ready(port):
                ready = time.monotonic() - started
                cpu_at_ready = procstat.cpu_seconds(service_pid) if service_pid else None
            cpu_end = procstat.cpu_seconds(service_pid) if service_pid else None
            time.sleep(0.02)
            if time.monotonic() - started > seconds + 60:
                recorder.kill()
        recorder.wait()
    return {"ready_s": ready, "cpu_s_at_ready": cpu_at_ready, "cpu_s_in_window": cpu_end}


def table(summary: dict[str, Any]) -> str:
    samples = max(summary["samples"], 1)
    lines = []
    for title, key in (("by area", "areas"), ("inclusive", "inclusive"), ("self", "self")):
        lines.append(f"\n{title} (% of {samples:,} samples holding the GIL, 10 ms each):")
        lines += [f"  {count / samples:6.1%}  {name}" for name, count in summary[key]]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.startup", description=__doc__)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--keep", type=Path, help="keep py-spy's raw stacks here")
    parser.add_argument("--py-spy", default=str(Path(sys.executable).parent / "py-spy"))
    args = parser.parse_args(argv)
    machine_speed = speed.reference()
    compile_bytecode()
    with tempfile.TemporaryDirectory(prefix="kn-startup-") as work:
        figures, raw = profile(Path(work), args.seconds, args.py_spy)
    if args.keep:
        args.keep.write_text("\n".join(raw) + "\n")
    summary = summarize(parse_raw(raw), args.top)
    print(speed.line(machine_speed))
    print(f"ready {figures['ready_s']} s; CPU {figures['cpu_s_at_ready']} s by ready, "
          f"{figures['cpu_s_in_window']} s in {args.seconds:g} s (under py-spy)")  # fmt: skip
    print(table(summary))
    report = figures | {"speed_at_start": machine_speed, "profile": summary}
    print(f"\nwritten to {results.write('startup', report)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

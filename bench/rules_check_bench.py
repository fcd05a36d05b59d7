"""CPU seconds of ``kube-notifier rules check`` on a 20,000-rule file full of mistakes.

Run: ``.venv/bin/python -m bench.rules_check_bench`` (about half a minute). Writes
generated configs near the size cap (1 MiB) to a temporary directory, runs the
command on each in a fresh process, as a user would, and prints the CPU seconds
(user + system, the child's own, import time included) and wall seconds, the
median of ``--runs``; the figures go to bench/results/rules_check.json. The goal
(issue #39) is under 2 s of CPU for each file. The code measured is compiled to
bytecode first, as an installed package has it (``bench/bytecode.py``): under
``PYTHONDONTWRITEBYTECODE`` every run would compile our modules again, 0.2-0.4 s.

* ``unknown-keys``: every rule has one misspelt key of its own (``descriptoin-17``):
  one "did you mean" per distinct key;
* ``mixed``: a quarter as above; the others name unknown kinds, states and sinks,
  each misspelt its own way (what the rules' compiler finds in the rules that validate);
* ``valid``: the same 20,000 rules without a mistake, for scale.

``--tree DIR`` runs another checkout's code (``--tree /work/main``) with this
venv, for a before/after on the same machine.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench import results
from bench.bytecode import compile_bytecode

RULES = 20_000
GOAL_CPU_SECONDS = 2.0
STATES = ("OOMKilled", "Failed", "NotReady", "Pending")
HEAD = (
    "sinks: [{name: o, type: console}, {name: team, type: console}]\n"
    "defaults: {sinks: [o]}\nrules:\n"
)


def _misspelt(word: str, index: int) -> str:
    """``word`` with two letters swapped where ``index`` says, and ``index`` after it."""
    at = 1 + index % (len(word) - 2)
    return f"{word[:at]}{word[at + 1]}{word[at]}{word[at + 2 :]}{index % 997}"


def unknown_key_rule(index: int) -> str:
    key = _misspelt("description", index)
    return f"- {{name: r{index}, {key}: x}}\n"


def mixed_rule(index: int) -> str:
    """One mistake per rule, in turn: a kind, a state, a sink, a key (at most 5 values a rule:
    a config holds at most 100,000)."""
    name, turn = f"r{index}", index % 4
    if turn == 0:
        return f"- {{name: {name}, match: {{kinds: [{_misspelt('Deployment', index)}]}}}}\n"
    if turn == 1:
        state = _misspelt(STATES[index // 4 % len(STATES)], index)
        return f"- {{name: {name}, match: {{to: [{state}]}}}}\n"
    if turn == 2:
        return f"- {{name: {name}, sinks: [{_misspelt('team', index)}]}}\n"
    return unknown_key_rule(index)


def valid_rule(index: int) -> str:
    return f"- {{name: r{index}, sinks: [{('o', 'team')[index % 2]}]}}\n"


FILES: dict[str, Callable[[int], str]] = {
    "unknown-keys": unknown_key_rule,
    "mixed": mixed_rule,
    "valid": valid_rule,
}


def config_text(rule: Callable[[int], str]) -> str:
    text = HEAD + "".join(rule(index) for index in range(RULES))
    assert len(text) <= 1024 * 1024, f"{len(text):,} bytes: over the size a config may have"
    return text


def check_seconds(path: Path, tree: Path) -> tuple[float, float, int]:
    """(CPU seconds, wall seconds, exit code) of one ``rules check`` in a fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "notifier", "rules", "check", "--no-files", str(path)],
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(tree)},
        stdout=subprocess.DEVNULL,
        check=False,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, done.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tree", type=Path, default=Path(__file__).resolve().parents[1])
    args = parser.parse_args()
    compile_bytecode(args.tree / "notifier")
    print(f"rules check on {RULES:,}-rule files, code of {args.tree}, median of {args.runs} runs")
    print(f"{'file':<13} {'bytes':>9} {'exit':>4} {'cpu s':>6} {'wall s':>7}")
    rows = []
    with tempfile.TemporaryDirectory() as directory:
        for name, rule in FILES.items():
            path = Path(directory) / f"{name}.yaml"
            path.write_text(config_text(rule), encoding="utf-8")
            runs = [check_seconds(path, args.tree) for _ in range(args.runs)]
            cpu = statistics.median(run[0] for run in runs)
            wall = statistics.median(run[1] for run in runs)
            flag = "" if cpu < GOAL_CPU_SECONDS else f"  (over {GOAL_CPU_SECONDS:g} s)"
            size = path.stat().st_size
            print(f"{name:<13} {size:>9,} {runs[0][2]:>4} {cpu:>6.2f} {wall:>7.2f}{flag}")
            seconds = {"cpu_seconds": round(cpu, 3), "wall_seconds": round(wall, 3)}
            rows.append({"file": name, "bytes": size, "exit": runs[0][2]} | seconds)
    figures = {"rules": RULES, "tree": str(args.tree), "goal_cpu_seconds": GOAL_CPU_SECONDS}
    print(f"written to {results.write('rules_check', figures | {'rows': rows})}")


if __name__ == "__main__":
    main()

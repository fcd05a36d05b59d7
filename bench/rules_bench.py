"""How fast one transition is routed through 10, 100 and 1,000 rules.

Run: ``.venv/bin/python -m bench.rules_bench`` (about ten seconds). Prints
evaluations per second and microseconds per evaluation for two rule mixes,
and writes them to bench/results/rules.json:

* ``typical``: most rules name their namespaces exactly (indexed), a fifth
  use globs or regexes, a few match everywhere, as a large multi-team
  config does;
* ``worst``: every rule is a candidate for every Pod (no kinds, no exact
  namespaces) and fails only on its last predicate.

Loops are bounded by a count and a time budget, never open-ended.
"""

from __future__ import annotations

import time
from typing import Any

import msgspec

from bench import results
from notifier.kinds.pod import Pod
from notifier.objects import EventType, Kind, key_of
from notifier.origin import Origin
from notifier.rules.compiling import RulesSource, compile_ruleset
from notifier.rules.config.specs import RuleSpec
from notifier.rules.matching.probing import EvalContext
from notifier.rules.ruleset import Ruleset
from notifier.transitions.model import Change, Transition

TARGET_US = 100.0
MAX_ITERATIONS = 200_000
TIME_BUDGET_SECONDS = 1.5
STATES = ["CrashLoopBackOff", "OOMKilled", "Failed", "NotReady", "ImagePullBackOff"]


def typical_rule(index: int) -> dict[str, Any]:
    """A rule of a team's config: exact namespaces mostly, some patterns, some label selectors."""
    kind = ("Pod", "Deployment", "Service")[index % 3]
    match: dict[str, Any] = {"kinds": [kind], "to": [_to(kind, index)]}
    if index % 5 == 4:
        match["namespaces"] = [f"team-{index % 50}-*", f"~^ci-{index % 7}[0-9]+$"]
    elif index % 50 != 49:
        match["namespaces"] = [f"team-{index % 200}", f"team-{index % 200}-staging"]
    if index % 3 == 0:
        match["labels"] = f"app in (web-{index % 10},api),tier!=cache"
    return {"name": f"rule-{index}", "match": match, "sinks": ["console"], "continue": True}


def _to(kind: str, index: int) -> str:
    if kind == "Pod":
        return STATES[index % len(STATES)]
    return "Stuck" if kind == "Deployment" else "PortsChanged"


def worst_rule(index: int) -> dict[str, Any]:
    match = {"namespaces": ["!kube-*"], "labels": "app", "fields": [f"never.{index}"]}
    return {"name": f"rule-{index}", "match": match, "sinks": ["console"], "continue": True}


def compiled(rules: list[dict[str, Any]]) -> Ruleset:
    specs = [(i, RuleSpec.model_validate(rule)) for i, rule in enumerate(rules)]
    return compile_ruleset(RulesSource(rules=specs, sinks={"console": True}))


def crashloop_in(namespace: str) -> Transition:
    """A pod of Deployment web-0 that went from Ready to CrashLoopBackOff."""
    meta = {
        "name": "web-0-7d4b9c6f5d-x2x9q",
        "namespace": namespace,
        "uid": "u-1",
        "labels": {"app": "web-0", "pod-template-hash": "7d4b9c6f5d"},
        "ownerReferences": [{"kind": "ReplicaSet", "name": "web-0-7d4b9c6f5d", "controller": True}],
    }
    pod = msgspec.convert({"metadata": meta, "status": {"phase": "Running"}}, type=Pod)
    return Transition(
        kind=Kind.POD,
        key=key_of(pod),
        event=EventType.UPDATED,
        origin=Origin.LIVE,
        old=pod,
        new=pod,
        changes=(Change("status.containerStatuses[web].restartCount", "2", "3"),),
        old_states=frozenset({"Running", "Ready"}),
        new_states=frozenset({"Running", "NotReady", "CrashLoopBackOff"}),
        signals=frozenset({"RestartCountIncreased"}),
    )


def measure(ruleset: Ruleset, transition: Transition) -> tuple[float, int]:
    """Evaluations per second, and how many rules matched (as a sanity check)."""
    context = EvalContext(now=time.time())
    matched = len(ruleset.evaluate(transition, context).routes)
    iterations, started = 0, time.perf_counter()
    deadline = started + TIME_BUDGET_SECONDS
    while iterations < MAX_ITERATIONS and time.perf_counter() < deadline:
        for _ in range(100):
            ruleset.evaluate(transition, context)
        iterations += 100
    return iterations / (time.perf_counter() - started), matched


def main() -> None:
    transition = crashloop_in("team-0")
    print(
        f"{'mix':<8} {'rules':>6} {'candidates':>10} {'matched':>7} {'evals/s':>10} {'us/eval':>8}"
    )
    rows = []
    for mix, make in (("typical", typical_rule), ("worst", worst_rule)):
        for count in (10, 100, 1000):
            ruleset = compiled([make(i) for i in range(count)])
            candidates = len(ruleset.candidates(transition.kind, transition.namespace))
            rate, matched = measure(ruleset, transition)
            micros = 1e6 / rate
            flag = "" if micros < TARGET_US else f"  (over {TARGET_US:.0f} us)"
            row = f"{mix:<8} {count:>6} {candidates:>10} {matched:>7} {rate:>10,.0f} {micros:>8.1f}"
            print(row + flag)
            rows.append(
                {"mix": mix, "rules": count, "candidates": candidates, "matched": matched}
                | {"evaluations_per_second": round(rate), "us_per_evaluation": round(micros, 2)}
            )
    print(f"written to {results.write('rules', {'target_us': TARGET_US, 'rows': rows})}")


if __name__ == "__main__":
    main()

"""``kube-notifier rules check|test``: try a config before it goes live.

``check FILE`` is ``cli/rules_check.py``: its imports are only what loading a
config takes.

``test FILE --old OLD.yaml --new NEW.yaml`` builds the transition between
two versions of an object (``kubectl get -o yaml`` output; leave one out
for an add or a delete), evaluates the rules and prints the transition,
the rules that matched, with ``--explain`` why each other rule did not,
and what each matched rule would tell (the facts' headline and details);
with ``--explain`` (or ``--payload``/``--blocks``, its older spellings) the
body each of its sinks would send. Noise control is left out: each matched
rule's message is shown as if it were sent alone.

Their flags are in ``cli/commands.py``, whose handlers import this module
only when a ``rules`` command runs.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Mapping
from typing import TextIO

import msgspec
import yaml

from notifier.cli.rules_bodies import print_bodies
from notifier.cli.rules_inputs import load_for_test, read_object
from notifier.cli.rules_silences import apply_silences, read_silences
from notifier.config import LoadedConfig
from notifier.exits import Exit
from notifier.kinds.registry import Kinds
from notifier.origin import Origin
from notifier.rules.facts.previewing import preview
from notifier.rules.matching.probing import EvalContext, default_owner_of, safely
from notifier.rules.matching.selectors import parse_selector
from notifier.rules.ruleset import CompiledRule, Evaluation, Outcome, Ruleset
from notifier.silences.book import Silence
from notifier.sinks import lines
from notifier.templating.environment import format_duration
from notifier.transitions.detecting import detect
from notifier.transitions.model import Transition


def run_test(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    loaded = load_for_test(args.file, out)
    if loaded is None:
        return Exit.CONFIG
    try:
        transition = _transition(args, loaded.kinds)
        labels = _labels(args.namespace_labels)
        silences = read_silences(args)
    except (OSError, ValueError, yaml.YAMLError, msgspec.ValidationError) as exc:
        print(f"error: {exc}", file=out)
        return 1
    if transition is None:
        print(
            "No transition: nothing a rule could match changed between the two objects.", file=out
        )
        return 0
    _report(loaded, transition, (labels, silences), args, out)
    return 0


def _transition(args: argparse.Namespace, known: Kinds) -> Transition | None:
    if args.old is None and args.new is None:
        raise ValueError("give --old, --new or both")
    old = read_object(args.old, known=known) if args.old else None
    new = read_object(args.new, known=known) if args.new else None
    return detect(
        old, new, origin=Origin(args.origin), observed_at=time.time(), correlation_id="rules-test"
    )


def _labels(text: str | None) -> Mapping[str, str] | None:
    if text is None:
        return None
    selector = parse_selector(text)
    pairs = (r for r in selector.requirements if r.operator == "in" and len(r.values) == 1)
    return {r.key: next(iter(r.values)) for r in pairs}


def _report(
    loaded: LoadedConfig,
    transition: Transition,
    given: tuple[Mapping[str, str] | None, list[Silence] | None],
    args: argparse.Namespace,
    out: TextIO,
) -> None:
    """``given``: the namespace's labels and the silences, when they were given."""
    labels, silences = given
    ruleset = loaded.ruleset
    context = EvalContext(time.time(), lambda namespace: labels, default_owner_of)
    evaluation = ruleset.evaluate(transition, context)
    _print_transition(transition, out)
    _print_matches(evaluation, out)
    if silences is not None:
        evaluation = apply_silences(silences, transition, context, evaluation, out)
    if args.explain:
        _print_explanation(ruleset, transition, context, out)
    owner = safely(default_owner_of, transition.obj)
    if args.explain or args.payload or args.blocks:
        print_bodies(loaded, transition, evaluation, owner, resolved=args.resolved, out=out)
    for rule, facts in preview(ruleset, transition, evaluation, owner):
        grouped = f" (grouped by {', '.join(rule.noise.group_by)})" if rule.noise.grouped else ""
        print(f"\n--- message of rule {rule.name} -> {', '.join(rule.sinks)}{grouped}", file=out)
        print("\n".join([lines.headline(facts), *lines.detail_lines(facts)]), file=out)


def _print_transition(transition: Transition, out: TextIO) -> None:
    print(
        f"Transition: {transition.kind} {transition.key} {transition.event} "
        f"(origin {transition.origin})",
        file=out,
    )
    rows = [
        ("states before", transition.old_states),
        ("states after", transition.new_states),
        ("reached", transition.reached),
    ]
    for label, names in rows:
        print(f"  {label}: {', '.join(sorted(names)) or '-'}", file=out)
    for change in transition.changes:
        print(f"  changed {change.path}: {change.old} -> {change.new}", file=out)


def _print_matches(evaluation: Evaluation, out: TextIO) -> None:
    for rule in evaluation.routes:
        sinks = ", ".join(rule.sinks) or "(no enabled sink)"
        wait = "" if rule.hold_for is None else f" (pending: tells only if it stays {_for(rule)})"
        print(f"Matched: {rule.name} -> {sinks}{wait}", file=out)
    for rule in evaluation.muted:
        print(f"Matched but muted: {rule.name}", file=out)
    if evaluation.dropped_by is not None:
        print(f"Dropped by rule {evaluation.dropped_by.name}", file=out)
    if not (evaluation.routes or evaluation.muted or evaluation.dropped_by):
        reason = f" (suppressed: {evaluation.suppressed})" if evaluation.suppressed else ""
        print(f"No rule matched{reason}", file=out)


def _for(rule: CompiledRule) -> str:
    return format_duration(rule.hold_for or 0.0) + "; see rules timeline"


def _print_explanation(
    ruleset: Ruleset, transition: Transition, context: EvalContext, out: TextIO
) -> None:
    print("Rules:", file=out)
    for verdict in ruleset.explain(transition, context):
        detail = f": {verdict.detail}" if verdict.detail else ""
        marker = "+" if verdict.outcome is Outcome.MATCHED else "-"
        print(f"  {marker} {verdict.rule.name} [{verdict.outcome}]{detail}", file=out)

"""Keeping matched transitions quiet after the rules chose them: inhibitions and silences.

Both take an ``Evaluation`` and return it with the routes they mute removed,
recording each in the ``Decision`` (named, for /debug/decisions) and in the
suppressed counter. Pure apart from the state they are handed. The silences
are asked through ``Silences`` (the book, ``silences/book.py``, is one; with
none given, ``NO_SILENCES``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

from notifier.rules import metrics
from notifier.rules.decisions import Decision
from notifier.rules.matching.probing import Probe
from notifier.rules.reasons import SuppressReason
from notifier.rules.ruleset import Evaluation
from notifier.rules.suppression.inhibitions import CompiledInhibition, Inhibitor


class Silences(Protocol):
    """What the rules ask of the silences: the one that mutes ``rule`` about ``probe`` now."""

    def silenced_by(self, probe: Probe, rule: str, now: float) -> str | None: ...


class _NoSilences:
    def silenced_by(self, probe: Probe, rule: str, now: float) -> str | None:
        return None


NO_SILENCES: Silences = _NoSilences()


def inhibit(
    inhibitor: Inhibitor,
    inhibitions: Sequence[CompiledInhibition],
    probe: Probe,
    evaluation: Evaluation,
    decision: Decision,
) -> Evaluation:
    """Update the inhibitions' sources; an inhibited transition keeps no routes."""
    if not inhibitions:
        return evaluation
    inhibitor.observe(inhibitions, probe)
    if not evaluation.routes:
        return evaluation
    by = inhibitor.inhibited_by(inhibitions, probe)
    if by is None:
        return evaluation
    metrics.count_suppressed(SuppressReason.INHIBITED)
    decision.suppressed.extend((rule.name, f"inhibited by {by}") for rule in evaluation.routes)
    return replace(evaluation, routes=())


def silence(book: Silences, probe: Probe, evaluation: Evaluation, decision: Decision) -> Evaluation:
    """Routes an active silence mutes are kept from sending."""
    kept = []
    for rule in evaluation.routes:
        by = book.silenced_by(probe, rule.name, probe.context.now)
        if by is None:
            kept.append(rule)
            continue
        metrics.count_suppressed(SuppressReason.SILENCED)
        decision.suppressed.append((rule.name, f"silenced by {by}"))
    if len(kept) == len(evaluation.routes):
        return evaluation
    return replace(evaluation, routes=tuple(kept))

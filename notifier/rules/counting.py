"""Counting what the rules made of a transition and what they rendered (``rules.metrics``)."""

from __future__ import annotations

from notifier.rules import metrics
from notifier.rules.ruleset import Evaluation


def count_evaluation(evaluation: Evaluation) -> None:
    if evaluation.routes:
        metrics.EVALUATED["matched"].inc()
    elif evaluation.suppressed is not None:
        metrics.EVALUATED["suppressed"].inc()
        metrics.count_suppressed(evaluation.suppressed)
    else:
        metrics.EVALUATED["unmatched"].inc()


def count_render(failed: list[str], form: str) -> None:
    for part in failed:
        metrics.RENDER_FAILURES.labels(part=part).inc()
    metrics.NOTIFICATIONS.labels(form=form).inc()

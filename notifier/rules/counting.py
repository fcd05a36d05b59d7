"""Counting what the rules made of a transition and the messages they made (``rules.metrics``)."""

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


def count_message(form: str) -> None:
    metrics.NOTIFICATIONS.labels(form=form).inc()

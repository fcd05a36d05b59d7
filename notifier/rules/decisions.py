"""``Decision``: one transition's fate, for /debug/decisions, the logs and ``rules test``."""

from __future__ import annotations

from dataclasses import dataclass, field

from notifier.notifications import Notification
from notifier.rules.ruleset import Evaluation


@dataclass(slots=True)
class Decision:
    """One transition's fate, for /debug/decisions and the logs."""

    matched: tuple[str, ...]  # rules that routed it
    muted: tuple[str, ...] = ()
    dropped_by: str | None = None
    notifications: list[Notification] = field(default_factory=list)
    suppressed: list[tuple[str, str]] = field(default_factory=list)  # (rule or "", reason)

    @classmethod
    def of(cls, evaluation: Evaluation) -> Decision:
        decision = cls(
            matched=tuple(rule.name for rule in evaluation.routes),
            muted=tuple(rule.name for rule in evaluation.muted),
            dropped_by=evaluation.dropped_by.name if evaluation.dropped_by else None,
        )
        if evaluation.suppressed is not None:
            decision.suppressed.append(("", evaluation.suppressed.value))
        return decision

"""How one rule wants its notifications thinned out: dedup and grouping settings."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class NoisePolicy:
    dedup_window: float = 60.0  # seconds; 0 turns dedup off
    recovery_window: float = 60.0  # seconds out of trouble before an incident is over
    group_by: tuple[str, ...] = ()  # empty: every notification is sent on its own
    group_wait: float = 30.0
    group_interval: float = 300.0
    repeat_interval: float = 4 * 3600.0
    max_listed: int = 20

    @property
    def grouped(self) -> bool:
        return bool(self.group_by)


@dataclass(frozen=True, slots=True)
class FlapPolicy:
    """``flapping:``: this many entries and exits of the rule's states within ``within`` seconds."""

    changes: int
    within: float


@dataclass(frozen=True, slots=True)
class Escalation:
    """``escalate:`` step: still firing ``after`` seconds, it is told to these sinks too."""

    after: float
    sinks: tuple[str, ...]

"""The rules' time, under one lock: ``for:`` timers, flapping, and the firings they touch.

A worker following a transition and the clock thread firing a timer must
not interleave for one object: a firing told by the clock must be remembered
(``send_resolved``) before a worker looks for what the object's next
transition ends. So the timers, the flapping detector and the resolver's
"what does this end" are asked under ``lock``, which the clock thread also
holds while it tells what came due.
"""

from __future__ import annotations

import threading

from notifier.rules import metrics
from notifier.rules.decisions import Decision
from notifier.rules.flapping import Flap, FlapDetector
from notifier.rules.metrics import SuppressReason
from notifier.rules.resolving import Firing, Resolver
from notifier.rules.ruleset import CompiledRule, Ruleset
from notifier.rules.timing import Timer, Timers, TimerStore
from notifier.transitions.model import Transition


class TimeKeeper:
    def __init__(self, timers: TimerStore | None, resolver: Resolver) -> None:
        self.lock = threading.Lock()
        self.open = True  # False from a restart's restore until its catch-up is acted on
        self._timers = Timers(timers)
        self._flaps = FlapDetector()
        self._resolver = resolver

    def follow(
        self,
        transition: Transition,
        routes: tuple[CompiledRule, ...],
        decision: Decision,
        now: float,
    ) -> tuple[tuple[CompiledRule, ...], list[Firing], tuple[Flap, ...]]:
        """The routes that tell now, the firings ``transition`` ends, the flapping it begins."""
        timed = tuple(rule for rule in routes if rule.timed)
        with self.lock:
            self._timers.follow(transition, timed, decision)
            flaps = self._flaps.follow(transition, routes, transition.observed_at or now)
            ended = self._resolver.resolved(transition)
        for rule in routes:
            if rule.name in flaps.quiet:
                metrics.count_suppressed(SuppressReason.FLAPPING)
                decision.suppressed.append((rule.name, SuppressReason.FLAPPING.value))
        now_routes = tuple(r for r in routes if not r.timed and r.name not in flaps.quiet)
        ended = [firing for firing in ended if firing.rule not in flaps.quiet]
        return now_routes, ended, flaps.started

    def due(self, ruleset: Ruleset, now: float) -> list[tuple[Timer, CompiledRule | None]]:
        """Timers come due, with the rule to tell them (None: it flaps, keep quiet).

        The caller holds ``lock`` until it has told them."""
        if not self.open:
            return []
        due = self._timers.due(ruleset.timed, now)
        return [(t, None if self._flaps.flapping(r.name, t.transition) else r) for t, r in due]

    def settled(self, now: float) -> list[Flap]:
        with self.lock:
            return self._flaps.settled(now)

    def fired(self, timers: tuple[Timer, ...]) -> None:
        with self.lock:
            self._timers.fired(list(timers))

    def next_due(self, ruleset: Ruleset) -> float | None:
        with self.lock:
            dues = (self._timers.next_due(ruleset.timed), self._flaps.next_due())
        return min((due for due in dues if due is not None), default=None)

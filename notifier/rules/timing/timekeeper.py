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
from dataclasses import dataclass, replace

from notifier.kinds.registry import spec_of
from notifier.rules import metrics
from notifier.rules.decisions import Decision
from notifier.rules.incidents.flapping import Flap, FlapDetector, FlapOutcome
from notifier.rules.incidents.resolving import Firing, Resolver, Watched
from notifier.rules.reasons import SuppressReason
from notifier.rules.ruleset import CompiledRule, Evaluation, Ruleset
from notifier.rules.timing.stays import StayStore
from notifier.rules.timing.timers import FOR_STEP, REMIND_STEP, Timer, Timers, TimerStore
from notifier.templating.environment import format_duration
from notifier.transitions.model import Transition


@dataclass(frozen=True, slots=True)
class Followed:
    routes: tuple[CompiledRule, ...]  # the routes that tell now
    ended: list[Firing]  # the incidents the transition ends (resolutions to tell)
    flaps: tuple[Flap, ...]  # flapping it begins


class TimeKeeper:
    def __init__(
        self, timers: TimerStore | None, resolver: Resolver, stays: StayStore | None = None
    ) -> None:
        self.lock = threading.RLock()  # the clock thread tells (and so ``told``) under it
        self.open = True  # False from a restart's restore until its catch-up is acted on
        self._timers = Timers(timers, stays)
        self._flaps = FlapDetector()
        self._resolver = resolver

    def follow(
        self,
        transition: Transition,
        ruleset: Ruleset,
        evaluation: Evaluation,
        decision: Decision,
        now: float,
    ) -> Followed:
        """What ``transition`` means for the rules' time: see ``Followed``. A rule muted now
        still starts its ``for:``: the window counts when the timer comes due."""
        routes = evaluation.routes + tuple(rule for rule in evaluation.muted if rule.waits)
        with self.lock:
            held = self._resolver.open_rules(transition)
            escalated = self._timers_ended(transition, ruleset, decision, held)
            self._start_waiting(transition, routes, decision)
            ended = self._resolver.follow(transition, watched_by(ruleset), escalated)
            ended = [self._closed(firing, ruleset) for firing in ended]
            held = self._resolver.open_rules(transition)
            flaps = self._flaps.follow(transition, routes, transition.observed_at or now, held)
        _note_flapping(flaps, routes, decision)
        now_routes = tuple(r for r in routes if not r.waits and r.name not in flaps.quiet)
        ended = [firing for firing in ended if firing.rule not in flaps.quiet]
        return Followed(now_routes, ended, flaps.started)

    def _start_waiting(
        self, transition: Transition, routes: tuple[CompiledRule, ...], decision: Decision
    ) -> None:
        for rule in routes:
            since = entered(rule, transition)
            timer = self._timers.start(rule, transition, since, FOR_STEP) if rule.waits else None
            if timer is not None:
                hold = rule.hold_for or 0.0
                left = hold if timer.since >= since else timer.since + hold - transition.observed_at
                wait = format_duration(max(left, 0.0))
                decision.suppressed.append((rule.name, f"pending: tells in {wait} if it stays"))

    def _timers_ended(
        self, transition: Transition, ruleset: Ruleset, decision: Decision, held: frozenset[str]
    ) -> dict[str, tuple[str, ...]]:
        """Count the ``for:`` timers ``transition`` cancels; the sinks escalations reached."""
        ended = self._timers.observe(transition, held)
        for timer in ended:
            if timer.step == FOR_STEP and not timer.fired:
                metrics.count_suppressed(SuppressReason.PENDING_CANCELLED)
                decision.suppressed.append((timer.rule, SuppressReason.PENDING_CANCELLED.value))
        return escalations_reached(ended, ruleset)

    def _closed(self, firing: Firing, ruleset: Ruleset) -> Firing:
        """``firing`` is over: its escalation steps and reminders end; where they reached."""
        ended = self._timers.end(firing.rule, firing.object_id)
        more = escalations_reached(ended, ruleset).get(firing.rule, ())
        return replace(firing, escalated=tuple(dict.fromkeys((*firing.escalated, *more))))

    def told(self, rule: CompiledRule, transition: Transition, now: float) -> None:
        """``rule`` told about ``transition``'s object: time its escalation and reminders."""
        if (not rule.escalate and rule.remind_every is None) or rule.to.isdisjoint(
            transition.new_states
        ):
            return
        with self.lock:
            for step in (*range(1, len(rule.escalate) + 1), REMIND_STEP):
                self._timers.start(rule, transition, now, step)

    def due(self, ruleset: Ruleset, now: float) -> list[tuple[Timer, CompiledRule | None]]:
        """Timers come due, with the rule to tell them (None: it is muted or flaps: quiet).

        Tell each under ``lock``, and only if it is ``still_held``: a worker may have seen
        its object leave since (the lock is not held across them all, so that a thousand
        timers due at once do not stall the workers for as long as their messages take)."""
        if not self.open:
            return []
        with self.lock:
            due = self._timers.due(ruleset.timed, now)
            return [(timer, self._telling(rule, timer, now)) for timer, rule in due]

    def still_held(self, timer: Timer) -> bool:
        """Its object has not left the timer's states since it came due (call under ``lock``)."""
        return self._timers.holds(timer)

    def _telling(self, rule: CompiledRule, timer: Timer, now: float) -> CompiledRule | None:
        if rule.muted(now):
            metrics.count_suppressed(SuppressReason.MUTE)
            return None
        return None if self._flaps.flapping(rule.name, timer.object_id) else rule

    def settled(self, now: float) -> list[Flap]:
        with self.lock:
            return self._flaps.settled(now)

    def recovered(self, ruleset: Ruleset, now: float) -> list[Firing]:
        """Incidents over: their objects stayed out of trouble for the recovery window (none
        before a restart's catch-up is acted on; a flapping rule's end is told as flapping's)."""
        if not self.open:
            return []
        with self.lock:
            over = [self._closed(firing, ruleset) for firing in self._resolver.settled(now)]
            return [f for f in over if not self._flaps.flapping(f.rule, f.object_id)]

    def fired(self, timers: tuple[Timer, ...]) -> None:
        with self.lock:
            self._timers.fired(list(timers))

    def pending(self) -> list[Timer]:
        """The ``for:`` timers still waiting: one pass under ``lock``, for the page."""
        with self.lock:
            return self._timers.pending()

    def next_due(self, ruleset: Ruleset) -> float | None:
        with self.lock:
            dues = (
                self._timers.next_due(ruleset.timed),
                self._flaps.next_due(),
                self._resolver.next_due() if self.open else None,
            )
        return min((due for due in dues if due is not None), default=None)


def _note_flapping(
    flaps: FlapOutcome, routes: tuple[CompiledRule, ...], decision: Decision
) -> None:
    """Say in ``decision`` which routes flapping keeps quiet, and what started flapping."""
    for rule in routes:
        if rule.name in flaps.quiet:
            metrics.count_suppressed(SuppressReason.FLAPPING)
            decision.suppressed.append((rule.name, SuppressReason.FLAPPING.value))
    for flap in flaps.started:
        steady = format_duration(flap.within)
        decision.suppressed.append((flap.rule, f"flapping: told once, quiet until steady {steady}"))


def escalations_reached(timers: list[Timer], ruleset: Ruleset) -> dict[str, tuple[str, ...]]:
    """Rule -> the sinks these (ended) timers' fired escalation steps reached."""
    escalated: dict[str, tuple[str, ...]] = {}
    for timer in timers:
        rule = ruleset.timed.get(timer.rule)
        steps = rule.escalate if rule is not None else ()
        if timer.fired and 0 < timer.step <= len(steps):
            escalated[timer.rule] = (*escalated.get(timer.rule, ()), *steps[timer.step - 1].sinks)
    return escalated


def watched_by(ruleset: Ruleset) -> Watched:
    """A rule's ``to:`` by its name (nothing for a rule a reload removed)."""

    def watched(name: str) -> frozenset[str]:
        return next((rule.to for rule in ruleset.rules if rule.name == name), frozenset())

    return watched


def entered(rule: CompiledRule, transition: Transition) -> float:
    """When the object entered the rule's states: by its own timestamps where its kind keeps
    one (a Node condition's ``lastTransitionTime``), else when the worker saw it."""
    seen = transition.observed_at
    held = rule.to & transition.new_states
    own = spec_of(transition.obj).entered_at(transition.obj, held)
    return seen if own is None else min(seen, own)

"""Where workers hand transitions: rules decide, delivery sends.

``RoutingStage`` is the workers' TransitionSink. A ``Ticker`` thread (the
rules' clock) releases group digests and fires ``for:`` timers when they
come due. Both hand notifications to a
``submit`` callable: delivery itself, or the leader gate in front of it.
The ticker tells the engine to forget a digest's held members only after
it submitted the digest, so the outbox row is written before they go.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from notifier.notifications import Notification
from notifier.rules.decisions import Decision
from notifier.rules.engine import RulesEngine
from notifier.rules.timing.holding import Released
from notifier.supervision import supervised
from notifier.transitions.model import Transition

log = logging.getLogger("notifier.rules")

Submit = Callable[[Notification], None]
Observer = Callable[[Transition, Decision], None]


def _ignore(_transition: Transition, _decision: Decision) -> None:
    return None


def both(first: Observer, second: Observer) -> Observer:
    def observe(transition: Transition, decision: Decision) -> None:
        first(transition, decision)
        second(transition, decision)

    return observe


class RoutingStage:
    def __init__(self, engine: RulesEngine, submit: Submit, observe: Observer = _ignore) -> None:
        self._engine = engine
        self._submit = submit
        self._observe = observe

    def handle(self, transitions: list[Transition]) -> None:
        for transition in transitions:
            decision = self._engine.decide(transition)
            notifications = decision.notifications
            if notifications and log.isEnabledFor(logging.DEBUG):
                log.debug(
                    "%s %s %s: %s",
                    transition.kind.value,
                    transition.key,
                    transition.event.value,
                    ", ".join(f"{n.rule} -> {n.sink}" for n in notifications),
                    extra={"correlation_id": transition.correlation_id},
                )
            for notification in notifications:
                self._submit(notification)
            self._observe(transition, decision)


class Ticker:
    """Calls the rules engine's ``tick`` every ``interval`` seconds and submits digests."""

    def __init__(self, engine: RulesEngine, submit: Submit, interval: float = 0.5) -> None:
        self._engine = engine
        self._submit = submit
        self._interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=supervised("rules-ticker", self._loop), name="rules-ticker", daemon=True
        )

    def start(self) -> None:
        self._thread.start()

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def _loop(self) -> None:
        while not self._stop.wait(self._interval):
            self.flush()

    def restore(self) -> None:
        """Hold again what a previous process held (call before ``start``)."""
        self._hand_on(self._engine.restore())

    def flush(self, now: float | None = None, *, timers: bool = True) -> None:
        self._hand_on(self._engine.tick(now, timers=timers))

    def _hand_on(self, released: Released) -> None:
        for notification in released.notifications:
            self._submit(notification)
        self._engine.forget(released)

    def stop(self, *, release_all: bool) -> None:
        """Stop ticking; with ``release_all`` hand on every open group now (shutdown)."""
        self._stop.set()
        self._thread.join(2)
        if release_all:
            # later than any group_wait or interval; ``for:`` timers keep their time
            self.flush(now=time.time() + 10**6, timers=False)

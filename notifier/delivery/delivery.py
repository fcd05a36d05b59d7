"""``Delivery``: takes notifications from the rules and gets them to their sinks.

- ``submit(n)`` never blocks on the network or the disk. With an outbox,
  the notification is queued for a durable write and reaches its sink's
  queue once committed (milliseconds later); without one it is queued at
  once. A full queue spills to the outbox (or drops, counted, without one).
- Each sink has its own queue and ``concurrency`` threads; a slow or hung
  sink never slows another. Order is kept per (sink, ordering key).
- Retries with backoff and jitter, ``Retry-After``, pacing, dead letters:
  see ``attempts``.
- ``start()`` loads what a previous process left in the outbox first.
- ``stop(deadline)`` stops intake, lets sinks drain until ``deadline``
  (a ``time.monotonic()`` value), then halts them; what is left stays in
  the outbox. Notifications submitted after ``stop`` are written to the
  outbox for the next start. Stop delivery before closing the state store.
- A config reload changes sinks while running: ``apply(SinkChanges)``
  (before the new rules are in use) starts added sinks, retargets changed
  ones in place (their queues and order stay) and lets a removed sink send
  what it holds for ``RETIRE_SECONDS`` before it stops.
"""

from __future__ import annotations

import itertools
import logging
import random
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from typing import Protocol

from notifier.delivery.attempts import Clocks
from notifier.delivery.envelope import Envelope
from notifier.delivery.failures import RecentFailures
from notifier.delivery.ledger import SendLedger
from notifier.delivery.metrics import DROPPED, QUEUES
from notifier.delivery.pacing import Pacer
from notifier.delivery.runner import DeliveryTarget, SinkRunner
from notifier.notifications import ContextRequest, Notification
from notifier.sinks.base import Sink
from notifier.state import Outbox
from notifier.supervision import supervised

log = logging.getLogger(__name__)

_HALT_GRACE_SECONDS = 2.0
# A removed sink keeps sending what it holds for this long; the rest stays in the outbox.
RETIRE_SECONDS = 60.0


class Enriching(Protocol):
    """Context for notifications whose rule asked for it (``notifier.enrichment.Enricher``)."""

    def prefetch(self, request: ContextRequest) -> None: ...

    def enriched(self, notification: Notification) -> Notification: ...


@dataclass(frozen=True, slots=True)
class SinkChanges:
    """What a config reload changes in the sinks, built and ready to apply."""

    added: tuple[DeliveryTarget, ...] = ()
    changed: tuple[DeliveryTarget, ...] = ()  # same name, new settings: retargeted in place
    removed: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.added or self.changed or self.removed)


class Delivery:
    def __init__(
        self,
        targets: Iterable[DeliveryTarget],
        *,
        outbox: Outbox | None,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
        sleep: Callable[[float], object] | None = None,  # default: a wait that halt interrupts
        rng: random.Random | None = None,
    ) -> None:
        self._outbox = outbox
        self._stopping = threading.Event()
        self._clocks = Clocks(clock, wall_clock, sleep)
        self._pacer = Pacer(clock)
        self._rng = rng if rng is not None else random.Random()
        self.failures = RecentFailures()  # the last failed attempts, for the page
        self.ledger = SendLedger()  # where each recent notification is, for the page
        self._runners = {target.sink.name: self._runner(target) for target in targets}
        self._retiring: dict[str, tuple[SinkRunner, threading.Thread]] = {}
        self._changes = threading.Lock()  # apply / retire / stop, one at a time
        self._seqs = itertools.count(1)
        self._started = False
        self._enricher: Enriching | None = None

    def enrich_with(self, enricher: Enriching | None) -> None:
        """Context is fetched from submission on and attached just before a send."""
        self._enricher = enricher

    @property
    def running(self) -> bool:
        """Started, not stopping, and every sink's workers alive: for /readyz."""
        return (
            self._started
            and not self._stopping.is_set()
            and all(runner.alive for runner in self._runners.values())
        )

    def submit(self, notification: Notification) -> None:
        if notification.context is not None and self._enricher is not None:
            self._enricher.prefetch(notification.context)
        runner = self._runners.get(notification.sink) or self._retiring_runner(notification.sink)
        if runner is None:
            DROPPED.labels("unknown", "unknown", "unknown_sink").inc()
            log.error(
                "notification %s names an unknown sink %r", notification.id, notification.sink
            )
            return
        self.ledger.queued(notification.id, notification.sink)
        if self._outbox is not None:
            self._outbox.add(notification, then=partial(_offer, runner, notification))
        else:
            runner.offer(Envelope(next(self._seqs), notification))

    def sink_names(self) -> list[str]:
        return list(self._runners)

    def queues(self) -> list[SinkRunner]:
        """The running sinks' runners (depth, oldest age), for the page."""
        with self._changes:
            return list(self._runners.values())

    def sinks(self) -> list[Sink]:
        """The sinks sending now (a reload's new ones included)."""
        with self._changes:
            return [runner.sink for runner in self._runners.values()]

    def stuck_sinks(self) -> dict[str, float]:
        """Sinks with a send in flight past their ``stuck_after_seconds``: seconds it has run."""
        with self._changes:
            runners = list(self._runners.values())
        return {r.sink_name: seconds for r in runners if (seconds := r.stuck_for()) is not None}

    def start(self) -> None:
        self._warn_about_orphans()
        for runner in self._runners.values():
            QUEUES.track(runner)
            runner.start()
        self._started = True

    def apply(self, changes: SinkChanges) -> None:
        """Added sinks start, changed ones send with their new settings from the next attempt.

        Call before the rules that name the added sinks are in use.
        """
        with self._changes:
            added = list(changes.added)
            for target in changes.changed:
                runner = self._runners.get(target.sink.name)
                if runner is None:  # a plan from another config than ours: start it anew
                    added.append(target)
                else:
                    runner.retarget(target)
            for target in added:
                # A sink removed and added back: the old runner finishes first, so two
                # never send one sink's notifications (the new one loads what is left).
                self._finish_retiring(target.sink.name)
                runner = self._runner(target)
                if self._started:
                    QUEUES.track(runner)
                    runner.start()
                self._runners[target.sink.name] = runner
            for name in changes.removed:
                self._retire(name)

    def stop(self, deadline: float) -> bool:
        """Drain until ``deadline`` (``time.monotonic()``); True if every queue emptied."""
        self._stopping.set()
        with self._changes:
            runners = [*self._runners.values(), *(r for r, _ in self._retiring.values())]
            self._retiring.clear()
        for runner in runners:
            runner.begin_drain()
        drained = all([runner.wait_drained(deadline) for runner in runners])
        halt_by = max(deadline, time.monotonic()) + _HALT_GRACE_SECONDS
        for runner in runners:
            runner.halt(halt_by)
            QUEUES.untrack(runner)
        return drained

    def _runner(self, target: DeliveryTarget) -> SinkRunner:
        return SinkRunner(
            target,
            outbox=self._outbox,
            pacer=self._pacer,
            clocks=self._clocks,
            rng=self._rng,
            enriched=self._enriched,
            failures=self.failures,
            ledger=self.ledger,
        )

    def _enriched(self, notification: Notification) -> Notification:
        enricher = self._enricher
        if notification.context is None or enricher is None:
            return notification
        return enricher.enriched(notification)

    def _retire(self, name: str) -> None:
        runner = self._runners.pop(name, None)
        if runner is None:
            return
        runner.begin_drain()
        thread = threading.Thread(
            target=supervised(f"retire-{name}", self._wind_down, family="retire"),
            args=(name, runner),
            name=f"retire-{name}",
            daemon=True,
        )
        self._retiring[name] = (runner, thread)
        thread.start()

    def _wind_down(self, name: str, runner: SinkRunner) -> None:
        drained = runner.wait_drained(time.monotonic() + RETIRE_SECONDS)
        runner.halt(time.monotonic() + _HALT_GRACE_SECONDS)
        QUEUES.untrack(runner)
        log.info("sink %s removed by the config%s", name, "" if drained else " (unsent kept)")

    def _retiring_runner(self, name: str) -> SinkRunner | None:
        # Rendered under the old rules just before a reload removed its sink: the runner
        # refuses it (kept in the outbox, or counted as dropped), no "unknown sink".
        retiring = self._retiring.get(name)
        return retiring[0] if retiring is not None else None

    def _finish_retiring(self, name: str) -> None:
        retiring = self._retiring.pop(name, None)
        if retiring is None:
            return
        runner, thread = retiring
        runner.halt(time.monotonic() + _HALT_GRACE_SECONDS)
        thread.join(_HALT_GRACE_SECONDS)

    def _warn_about_orphans(self) -> None:
        if self._outbox is None:
            return
        for sink, count in self._outbox.pending_by_sink().items():
            if sink not in self._runners:
                log.warning(
                    "%d notifications for sink %r wait in the outbox, but no such sink is "
                    "configured; they are kept until the outbox retention ends",
                    count,
                    sink,
                )


def _offer(runner: SinkRunner, notification: Notification, seq: int) -> None:
    runner.offer(Envelope(seq, notification))

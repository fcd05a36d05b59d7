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
"""

from __future__ import annotations

import itertools
import logging
import random
import threading
import time
from collections.abc import Callable, Iterable
from functools import partial

from notifier.delivery.attempts import Clocks
from notifier.delivery.envelope import Envelope
from notifier.delivery.metrics import DROPPED, QUEUES
from notifier.delivery.pacing import Pacer
from notifier.delivery.runner import DeliveryTarget, SinkRunner
from notifier.notifications import Notification
from notifier.state import Outbox

log = logging.getLogger(__name__)

_HALT_GRACE_SECONDS = 2.0


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
        clocks = Clocks(clock, wall_clock, sleep)
        pacer = Pacer(clock)
        shared_rng = rng if rng is not None else random.Random()
        self._runners = {
            target.sink.name: SinkRunner(
                target, outbox=outbox, pacer=pacer, clocks=clocks, rng=shared_rng
            )
            for target in targets
        }
        self._seqs = itertools.count(1)
        self._started = False

    @property
    def running(self) -> bool:
        """Started, not stopping, and every sink's workers alive: for /readyz."""
        return (
            self._started
            and not self._stopping.is_set()
            and all(runner.alive for runner in self._runners.values())
        )

    def submit(self, notification: Notification) -> None:
        runner = self._runners.get(notification.sink)
        if runner is None:
            DROPPED.labels("unknown", "unknown", "unknown_sink").inc()
            log.error(
                "notification %s names an unknown sink %r", notification.id, notification.sink
            )
        elif self._outbox is not None:
            self._outbox.add(notification, then=partial(_offer, runner, notification))
        else:
            runner.offer(Envelope(next(self._seqs), notification))

    def start(self) -> None:
        self._warn_about_orphans()
        for runner in self._runners.values():
            QUEUES.track(runner)
            runner.start()
        self._started = True

    def stop(self, deadline: float) -> bool:
        """Drain until ``deadline`` (``time.monotonic()``); True if every queue emptied."""
        self._stopping.set()
        for runner in self._runners.values():
            runner.begin_drain()
        drained = all([runner.wait_drained(deadline) for runner in self._runners.values()])
        halt_by = max(deadline, time.monotonic()) + _HALT_GRACE_SECONDS
        for runner in self._runners.values():
            runner.halt(halt_by)
            QUEUES.untrack(runner)
        return drained

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

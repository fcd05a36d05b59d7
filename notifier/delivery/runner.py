"""``SinkRunner``: one sink's queue, intake and worker threads.

Workers loop: load spilled rows back (``SinkAdmission.refill``), take a ready
queue head, attempt it. Stopping has two phases: ``begin_drain`` lets
workers finish what is queued and exit once the queue is empty; ``halt``
closes the queue and interrupts pacing sleeps, and workers exit after the
attempt they are in (sends return within their own timeouts). What is
left stays in the outbox; without one it is counted as dropped.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from notifier.delivery.admission import SinkAdmission
from notifier.delivery.attempts import Attempts, Clocks
from notifier.delivery.envelope import Envelope
from notifier.delivery.failures import RecentFailures
from notifier.delivery.keyed_queue import KeyedQueue
from notifier.delivery.ledger import SendLedger
from notifier.delivery.metrics import DROPPED, SinkLabels
from notifier.delivery.pacing import Pacer
from notifier.delivery.retrying import RetryPolicy
from notifier.notifications import Notification
from notifier.sinks.base import Background, Sink
from notifier.sinks.config import DeliveryOptions
from notifier.state import Outbox
from notifier.supervision import supervised

log = logging.getLogger(__name__)

# An idle sender waits in ``KeyedQueue.take`` until it has work: a put, a retry come due, the
# end of a drain, a halt's ``close``. It looks for spilled rows after each attempt (the
# queue only has room then); this timeout is a safety net, not a poll (at 0.2 s, four idle
# senders woke 20 times a second: 0.8 ms of CPU a second, doing nothing).
IDLE_WAIT_SECONDS = 5.0


@dataclass(frozen=True, slots=True)
class DeliveryTarget:
    """A built sink with its delivery options; sinks sharing ``pacing_group`` share a pace."""

    sink: Sink
    options: DeliveryOptions
    pacing_group: str


class SinkRunner:
    def __init__(
        self,
        target: DeliveryTarget,
        *,
        outbox: Outbox | None,
        pacer: Pacer,
        clocks: Clocks,
        rng: random.Random,
        enriched: Callable[[Notification], Notification] = lambda n: n,
        failures: RecentFailures | None = None,
        ledger: SendLedger | None = None,
    ) -> None:
        self._target = target
        self._failures = failures
        self._ledger = ledger
        self._enriched = enriched
        self._clocks = clocks
        self._outbox = outbox
        self._pacer = pacer
        self._rng = rng
        self._labels = SinkLabels(target.sink.integration, target.sink.name)
        self._sending: dict[int, float] = {}  # worker thread -> when its attempt began
        self._said_stuck = False
        self._queue = KeyedQueue(clocks.monotonic)
        self._intake = SinkAdmission(
            self._queue, self._labels, capacity=target.options.queue_size, outbox=outbox
        )
        self._halted = threading.Event()
        self._draining = threading.Event()
        self._attempts = self._attempts_for(target)
        self._has_outbox = outbox is not None
        self._workers: list[threading.Thread] = []

    @property
    def integration(self) -> str:
        return self._labels.integration

    @property
    def sink_name(self) -> str:
        return self._labels.sink

    @property
    def sink(self) -> Sink:
        return self._target.sink

    @property
    def alive(self) -> bool:
        return bool(self._workers) and all(worker.is_alive() for worker in self._workers)

    def depth(self) -> int:
        return len(self._queue) + self._intake.backlog

    def oldest_age(self) -> float:
        oldest = self._queue.oldest_observed_at()
        return 0.0 if oldest is None else max(0.0, self._clocks.wall() - oldest)

    def longest_send(self) -> float:
        """Seconds the oldest attempt now in flight has been running (0 when none is)."""
        started = list(self._sending.values())
        return max((time.monotonic() - since for since in started), default=0.0)

    def stuck_for(self) -> float | None:
        """The longest send if it is past ``stuck_after_seconds`` (said once in the log)."""
        longest = self.longest_send()
        if longest <= self._target.options.stuck_after_seconds:
            self._said_stuck = False
            return None
        if not self._said_stuck:
            self._said_stuck = True
            log.warning("sink %s: a send has been in flight for %.0fs", self.sink_name, longest)
        return longest

    def offer(self, envelope: Envelope) -> None:
        if self._halted.is_set() or self._draining.is_set():
            self._refuse()
            return
        self._intake.offer(envelope)

    def start(self) -> None:
        if isinstance(self._target.sink, Background):
            self._target.sink.start()
        self._intake.start()
        for index in range(self._target.options.concurrency):
            name = f"deliver-{self.sink_name}-{index}"
            worker = threading.Thread(
                target=supervised(name, self._work, family="deliver"), name=name, daemon=True
            )
            self._workers.append(worker)
            worker.start()

    def retarget(self, target: DeliveryTarget) -> None:
        """Send through ``target`` from the next attempt on; what is queued keeps its order.

        The worker count is fixed at start (``concurrency`` applies at a restart).
        An attempt in flight finishes with the sink it began with.
        """
        previous = self._target.sink
        target = replace(
            target,
            options=target.options.model_copy(
                update={"concurrency": self._target.options.concurrency}
            ),
        )
        self._target = target
        self._labels = SinkLabels(target.sink.integration, target.sink.name)
        self._intake.retarget(self._labels, capacity=target.options.queue_size)
        self._attempts = self._attempts_for(target)
        if self._workers and isinstance(target.sink, Background):
            target.sink.start()
        previous.close()  # idle connections only; one in use is dropped when its attempt ends

    def begin_drain(self) -> None:
        self._draining.set()
        self._queue.drain()  # idle senders see it now, not at their wait's end

    def wait_drained(self, deadline: float) -> bool:
        """Wait until ``deadline`` (``time.monotonic``) for the workers to empty the queue."""
        _join(self._workers, deadline)
        return not any(worker.is_alive() for worker in self._workers)

    def halt(self, deadline: float) -> None:
        """Stop the workers; attempts in progress may finish until ``deadline``. Once only."""
        if self._halted.is_set():
            return
        self._halted.set()
        self._queue.close()
        _join(self._workers, deadline)
        left = len(self._queue)
        if left and not self._has_outbox:
            DROPPED.labels(*self._labels, "stopped").inc(left)
            log.warning("sink %s: stopped with %d unsent (no outbox)", self.sink_name, left)
        elif left:
            log.info("sink %s: %d unsent, kept in the outbox", self.sink_name, left)
        if not any(worker.is_alive() for worker in self._workers):
            self._target.sink.close()

    def _attempts_for(self, target: DeliveryTarget) -> Attempts:
        return Attempts(
            target.sink,
            target.options,
            queue=self._queue,
            outbox=self._outbox,
            pacer=self._pacer,
            pacing_group=target.pacing_group,
            policy=RetryPolicy.from_options(target.options, self._rng),
            clocks=self._clocks,
            halted=self._halted,
            enriched=self._enriched,
            failures=self._failures,
            ledger=self._ledger,
        )

    def _work(self) -> None:
        me = threading.get_ident()
        while not self._halted.is_set():
            self._intake.refill()
            envelope = self._queue.take(IDLE_WAIT_SECONDS)
            if envelope is not None:
                self._sending[me] = time.monotonic()
                try:
                    self._attempts.handle(envelope)
                finally:
                    self._sending.pop(me, None)
            elif self._draining.is_set() and not len(self._queue):
                return

    def _refuse(self) -> None:
        # With an outbox the row stays and the next start sends it.
        if not self._has_outbox:
            DROPPED.labels(*self._labels, "stopped").inc()


def _join(threads: list[threading.Thread], deadline: float) -> None:
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))

"""``Attempts``: one delivery attempt of a queue head, and what follows from its outcome.

- older than ``max_age`` (from when the change was observed): dead letter;
- wait for the pacing group's turn (``min_interval``, ``Retry-After`` holds);
- send; success: done, outbox row deleted, latency observed;
- a ``Retry-After``: the whole pacing group holds until then;
- permanent error, ``max_attempts`` reached, or a retry that would land
  past ``max_age``: dead letter (row, log line, metric);
- otherwise the head waits for its backoff; only its key waits.

A sink raising anything but ``SendError`` is a bug in the sink: logged with
its traceback and retried like a transient error.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass

from notifier.delivery.envelope import Envelope
from notifier.delivery.failures import RecentFailures, in_words
from notifier.delivery.keyed_queue import KeyedQueue
from notifier.delivery.ledger import DETAIL_CHARS, SendLedger
from notifier.delivery.metrics import (
    DEAD_LETTERED,
    FAILED,
    LATENCY,
    RETRIED,
    SENT,
    SinkLabels,
)
from notifier.delivery.pacing import Pacer
from notifier.delivery.retrying import RetryPolicy
from notifier.notifications import Notification
from notifier.sinks.base import SendError, Sink
from notifier.sinks.config import DeliveryOptions
from notifier.state import Failure, Outbox

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Clocks:
    """``monotonic`` schedules retries and pacing; ``wall`` measures ages (``observed_at``);
    ``sleep`` waits for a pacing slot (None: each sink waits on its own halt event)."""

    monotonic: Callable[[], float]
    wall: Callable[[], float]
    sleep: Callable[[float], object] | None = None


class Attempts:
    def __init__(
        self,
        sink: Sink,
        options: DeliveryOptions,
        *,
        queue: KeyedQueue,
        outbox: Outbox | None,
        pacer: Pacer,
        pacing_group: str,
        policy: RetryPolicy,
        clocks: Clocks,
        halted: threading.Event,
        enriched: Callable[[Notification], Notification] = lambda n: n,
        failures: RecentFailures | None = None,
        ledger: SendLedger | None = None,
    ) -> None:
        self._sink = sink
        self._failures = failures
        self._ledger = ledger if ledger is not None else SendLedger(kept=0)
        self._options = options
        self._queue = queue
        self._outbox = outbox
        self._pacer = pacer
        self._group = pacing_group
        self._policy = policy
        self._clocks = clocks
        self._sleep = clocks.sleep if clocks.sleep is not None else halted.wait
        self._halted = halted
        self._enriched = enriched
        self._labels = SinkLabels(sink.integration, sink.name)

    def handle(self, envelope: Envelope) -> None:
        if self._age(envelope) > self._options.max_age_seconds:
            self._give_up(envelope, Failure("max_age", "too old to send", envelope.attempts))
            return
        if envelope.sending is None:  # context fetched before the pacing slot is claimed
            envelope.sending = self._enriched(envelope.notification)
        if not self._wait_for_turn():
            self._queue.release(envelope)
            return
        envelope.attempts += 1
        try:
            self._sink.send(envelope.sending)
        except SendError as err:
            self._failed(envelope, err)
        except Exception as err:
            log.exception("sink %s raised %s instead of SendError", self._sink.name, type(err))
            self._failed(envelope, SendError("unexpected_error", retryable=True))
        else:
            self._succeeded(envelope)

    def _wait_for_turn(self) -> bool:
        interval = self._options.min_interval_seconds
        while (wait := self._pacer.claim(self._group, interval)) > 0:
            self._sleep(wait)
            if self._halted.is_set():
                return False
        return True

    def _succeeded(self, envelope: Envelope) -> None:
        self._queue.done(envelope)
        if self._outbox is not None:
            self._outbox.delivered(envelope.seq)
        SENT.labels(*self._labels).inc()
        LATENCY.labels(*self._labels).observe(max(0.0, self._age(envelope)))
        note = envelope.notification
        self._ledger.delivered(note.id, self._sink.name, envelope.attempts, likely_cause(envelope))
        log.debug(
            "sink %s: delivered %s (rule %s, %s)",
            self._sink.name,
            note.id,
            note.rule,
            note.ordering_key,
            extra={"correlation_id": note.correlation_id},
        )

    def _failed(self, envelope: Envelope, err: SendError) -> None:
        FAILED.labels(*self._labels, err.reason).inc()
        if self._failures is not None:
            note = envelope.notification
            self._failures.add(self._sink.name, err.reason, str(err), note.ordering_key,
                               envelope.attempts)  # fmt: skip
        if err.retry_after is not None:
            hold = min(err.retry_after, self._options.max_retry_after_seconds)
            self._pacer.hold(self._group, self._clocks.monotonic() + hold)
        failure = Failure(err.reason, str(err), envelope.attempts)
        if not err.retryable:
            self._give_up(envelope, failure)
        elif envelope.attempts >= self._options.max_attempts:
            self._give_up(envelope, Failure("max_attempts", str(err), envelope.attempts))
        else:
            self._retry_later(envelope, err, failure)

    def _retry_later(self, envelope: Envelope, err: SendError, failure: Failure) -> None:
        delay = self._policy.delay(envelope.attempts, err.retry_after)
        if self._age(envelope) + delay > self._options.max_age_seconds:
            self._give_up(envelope, Failure("max_age", failure.detail, envelope.attempts))
            return
        RETRIED.labels(*self._labels).inc()
        note = envelope.notification
        self._ledger.retrying(
            note.id, self._sink.name, envelope.attempts, str(err), likely_cause(envelope)
        )
        log.info(
            "sink %s: attempt %d of %s failed (%s); retrying in %.2fs",
            self._sink.name,
            envelope.attempts,
            envelope.notification.id,
            err,
            delay,
            extra={"correlation_id": envelope.notification.correlation_id},
        )
        self._queue.retry_at(envelope, self._clocks.monotonic() + delay)

    def _give_up(self, envelope: Envelope, failure: Failure) -> None:
        self._queue.done(envelope)
        if self._outbox is not None:
            self._outbox.dead_letter(envelope.seq, envelope.notification, failure)
        DEAD_LETTERED.labels(*self._labels, failure.reason).inc()
        note, why = envelope.notification, in_words(failure.reason, failure.detail)
        self._ledger.dead_lettered(
            note.id, self._sink.name, failure.attempts, why, likely_cause(envelope)
        )
        log.warning(
            "sink %s: gave up on notification %s (rule %s, %s) after %d attempts: %s (%s)",
            self._sink.name,
            note.id,
            note.rule,
            note.ordering_key,
            failure.attempts,
            failure.reason,
            failure.detail,
            extra={"correlation_id": note.correlation_id},
        )

    def _age(self, envelope: Envelope) -> float:
        return self._clocks.wall() - envelope.notification.observed_at


def likely_cause(envelope: Envelope) -> str:
    """``enrich: [changes]``'s likely cause in what was sent ("" when none was asked)."""
    context = envelope.sending.facts.get("context") if envelope.sending else None
    found = context.get("changes") if isinstance(context, dict) else None
    return str(found.get("likely_cause", ""))[:DETAIL_CHARS] if isinstance(found, dict) else ""

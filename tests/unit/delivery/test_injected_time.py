"""Delivery's clock and sleep are injectable: backoff and pacing without real waiting."""

from __future__ import annotations

import io
import time

from notifier.delivery import Delivery, DeliveryTarget
from notifier.notifications import Notification
from notifier.sinks.base import SendError
from notifier.sinks.config import DeliveryOptions
from notifier.sinks.console.sink import ConsoleSink
from tests.unit.delivery.harness import eventually, unique
from tests.unit.sinks.factories import notification
from tests.unit.state.helpers import FakeClock


class FlakySink:
    """Fails the first ``failures`` sends with a retryable error, then delivers."""

    def __init__(self, name: str, failures: int) -> None:
        self.name = name
        self.integration = "webhook"
        self.failures = failures
        self.attempts = 0
        self.delivered: list[str] = []

    def send(self, notification: Notification) -> None:
        self.attempts += 1
        if self.attempts <= self.failures:
            raise SendError("http_503", retryable=True)
        self.delivered.append(notification.id)

    def close(self) -> None:
        return None


def test_a_retry_comes_due_on_the_injected_clock() -> None:
    clock = FakeClock(0.0)
    sink = FlakySink(unique("flaky"), failures=1)
    options = DeliveryOptions(backoff_initial_seconds=30, backoff_max_seconds=30)
    delivery = Delivery([DeliveryTarget(sink, options, sink.name)], outbox=None, clock=clock)
    delivery.start()
    note = notification(sink.name)

    delivery.submit(note)
    eventually(lambda: sink.attempts == 1)
    time.sleep(0.3)
    attempts_before_the_backoff_passed = sink.attempts
    clock.now += 30
    eventually(lambda: sink.delivered == [note.id], seconds=2)
    delivery.stop(time.monotonic() + 1)

    assert attempts_before_the_backoff_passed == 1


def test_pacing_sleeps_through_the_injected_sleep() -> None:
    clock = FakeClock(0.0)
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        clock.now += seconds

    stream = io.StringIO()
    name = unique("console")
    sink = ConsoleSink(name, stream=stream)
    options = DeliveryOptions(concurrency=1, min_interval_seconds=1.0)
    delivery = Delivery(
        [DeliveryTarget(sink, options, name)], outbox=None, clock=clock, sleep=sleep
    )
    delivery.start()
    began = time.monotonic()

    for n in range(3):
        delivery.submit(notification(name, key=f"Pod/default/web-{n}", text=f"#{n}"))
    eventually(lambda: stream.getvalue().count("\n") == 3, seconds=2)
    delivery.stop(time.monotonic() + 1)

    assert slept == [1.0, 1.0]
    assert time.monotonic() - began < 1.0

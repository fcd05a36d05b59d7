"""RateLimitingQueue: contract clause 11 (see notifier.queue)."""

from __future__ import annotations

import logging

import pytest
from prometheus_client import REGISTRY

from notifier.queue import ItemExponentialBackoff, RateLimitingQueue
from tests.unit.queue.fakes import FakeClock, unique_name


def _queue(clock: FakeClock, max_retries: int = 15) -> RateLimitingQueue[str]:
    return RateLimitingQueue(
        unique_name(), max_retries=max_retries, clock=clock, timer_thread=False
    )


def _counter(metric: str, queue: RateLimitingQueue[str]) -> float | None:
    return REGISTRY.get_sample_value(f"kube_notifier_workqueue_{metric}", {"name": queue.name})


def _process_next(queue: RateLimitingQueue[str]) -> None:
    key = queue.get(timeout=0)
    assert key is not None
    queue.done(key)


def test_rate_limited_key_comes_back_after_its_backoff() -> None:
    clock = FakeClock()
    queue = _queue(clock)
    assert queue.add_rate_limited("a") is True
    clock.advance(0.004)
    assert queue.release_due() == 0
    clock.advance(0.001)
    assert queue.release_due() == 1
    assert queue.get(timeout=0) == "a"


def test_each_retry_doubles_the_wait_and_is_counted() -> None:
    clock = FakeClock()
    queue = _queue(clock)
    for _ in range(3):
        queue.add_rate_limited("a")
        clock.advance(1.0)
        queue.release_due()
        _process_next(queue)
    assert queue.num_requeues("a") == 3
    assert _counter("retries_total", queue) == 3
    queue.add_rate_limited("a")
    clock.advance(0.039)
    assert queue.release_due() == 0, "fourth retry waits 40 ms"


def test_forget_resets_the_retry_count_and_backoff() -> None:
    clock = FakeClock()
    queue = _queue(clock)
    for _ in range(5):
        queue.add_rate_limited("a")
    queue.forget("a")
    assert queue.num_requeues("a") == 0
    clock.advance(0.005)  # earlier due times were kept; release and retry from scratch
    queue.release_due()
    _process_next(queue)
    queue.add_rate_limited("a")
    clock.advance(0.005)
    assert queue.release_due() == 1


def test_key_is_dropped_counted_and_logged_after_max_retries(
    caplog: pytest.LogCaptureFixture,
) -> None:
    queue = _queue(FakeClock(), max_retries=3)
    with caplog.at_level(logging.WARNING, logger="notifier.queue"):
        assert [queue.add_rate_limited("ns/pod") for _ in range(4)] == [True, True, True, False]
    assert _counter("drops_total", queue) == 1
    assert _counter("retries_total", queue) == 3
    [record] = [r for r in caplog.records if r.name == "notifier.queue"]
    assert "ns/pod" in record.getMessage()
    assert "3 retries" in record.getMessage()


def test_a_dropped_key_starts_afresh_on_its_next_failure() -> None:
    clock = FakeClock()
    queue = _queue(clock, max_retries=1)
    queue.add_rate_limited("a")
    assert queue.add_rate_limited("a") is False
    assert queue.num_requeues("a") == 0
    assert queue.add_rate_limited("a") is True


def test_default_max_retries_is_15() -> None:
    queue: RateLimitingQueue[str] = RateLimitingQueue(
        unique_name(), clock=FakeClock(), timer_thread=False
    )
    results = [queue.add_rate_limited("a") for _ in range(16)]
    assert results == [True] * 15 + [False]
    assert queue.max_retries == 15


def test_zero_max_retries_drops_at_once() -> None:
    queue = _queue(FakeClock(), max_retries=0)
    assert queue.add_rate_limited("a") is False
    assert _counter("drops_total", queue) == 1


def test_negative_max_retries_is_rejected() -> None:
    with pytest.raises(ValueError):
        _queue(FakeClock(), max_retries=-1)


def test_rate_limited_add_after_shutdown_is_refused_but_not_a_drop() -> None:
    queue = _queue(FakeClock())
    queue.shutdown()
    assert queue.add_rate_limited("a") is False
    assert _counter("drops_total", queue) == 0


def test_an_injected_limiter_sets_the_delay() -> None:
    clock = FakeClock()
    queue: RateLimitingQueue[str] = RateLimitingQueue(
        unique_name(),
        rate_limiter=ItemExponentialBackoff(base=2.0, cap=2.0),
        clock=clock,
        timer_thread=False,
    )
    queue.add_rate_limited("a")
    clock.advance(1.999)
    assert queue.release_due() == 0
    clock.advance(0.001)
    assert queue.release_due() == 1

"""Rate limiters: contract clause 10 (see notifier.queue)."""

from __future__ import annotations

import pytest

from notifier.queue import ItemExponentialBackoff, MaxOfRateLimiter, TokenBucket
from notifier.queue.rate_limiters import default_rate_limiter
from tests.unit.queue.fakes import FakeClock


def test_backoff_starts_at_5ms_and_doubles() -> None:
    backoff: ItemExponentialBackoff[str] = ItemExponentialBackoff()
    delays = [backoff.when("a") for _ in range(6)]
    assert delays == pytest.approx([0.005, 0.01, 0.02, 0.04, 0.08, 0.16])


def test_backoff_stops_at_the_cap() -> None:
    backoff: ItemExponentialBackoff[str] = ItemExponentialBackoff()
    delays = [backoff.when("a") for _ in range(30)]
    assert delays[17] == pytest.approx(0.005 * 2**17)  # 655 s: last one under the cap
    assert delays[18:] == [1000.0] * 12


def test_backoff_never_overflows_however_many_failures() -> None:
    backoff: ItemExponentialBackoff[str] = ItemExponentialBackoff(base=1e-9, cap=10.0)
    for _ in range(5_000):
        delay = backoff.when("a")
    assert delay == 10.0


def test_backoff_is_per_key() -> None:
    backoff: ItemExponentialBackoff[str] = ItemExponentialBackoff()
    backoff.when("a")
    backoff.when("a")
    assert backoff.when("b") == pytest.approx(0.005)
    assert backoff.num_requeues("a") == 2
    assert backoff.num_requeues("b") == 1


def test_forget_resets_the_backoff() -> None:
    backoff: ItemExponentialBackoff[str] = ItemExponentialBackoff()
    for _ in range(4):
        backoff.when("a")
    backoff.forget("a")
    assert backoff.num_requeues("a") == 0
    assert backoff.when("a") == pytest.approx(0.005)


def test_backoff_rejects_nonsense_settings() -> None:
    with pytest.raises(ValueError):
        ItemExponentialBackoff(base=0.0)
    with pytest.raises(ValueError):
        ItemExponentialBackoff(base=2.0, cap=1.0)


def test_token_bucket_allows_the_burst_then_spaces_at_qps() -> None:
    bucket = TokenBucket(clock=FakeClock())
    assert [bucket.when(i) for i in range(300)] == [0.0] * 300
    assert bucket.when("x") == pytest.approx(1 / 50)
    assert bucket.when("y") == pytest.approx(2 / 50)


def test_token_bucket_refills_at_qps() -> None:
    clock = FakeClock()
    bucket = TokenBucket(qps=10.0, burst=2, clock=clock)
    assert [bucket.when(i) for i in range(3)] == pytest.approx([0.0, 0.0, 0.1])
    clock.advance(0.1)  # repays the borrowed token, nothing more
    assert bucket.when("x") == pytest.approx(0.1)
    clock.advance(0.3)  # two tokens back, one left over: the burst is 2
    assert [bucket.when(i) for i in range(3)] == pytest.approx([0.0, 0.0, 0.1])


def test_token_bucket_refills_no_further_than_the_burst() -> None:
    clock = FakeClock()
    bucket = TokenBucket(qps=10.0, burst=3, clock=clock)
    clock.advance(1_000.0)
    assert [bucket.when(i) for i in range(4)] == pytest.approx([0.0, 0.0, 0.0, 0.1])


def test_token_bucket_has_nothing_per_key() -> None:
    bucket = TokenBucket(clock=FakeClock())
    bucket.when("a")
    bucket.forget("a")
    assert bucket.num_requeues("a") == 0


def test_token_bucket_rejects_nonsense_settings() -> None:
    with pytest.raises(ValueError):
        TokenBucket(qps=0.0)
    with pytest.raises(ValueError):
        TokenBucket(burst=0)


def test_max_of_returns_the_longest_delay_and_every_limiter_records_the_try() -> None:
    slow: ItemExponentialBackoff[str] = ItemExponentialBackoff(base=1.0, cap=100.0)
    fast: ItemExponentialBackoff[str] = ItemExponentialBackoff(base=0.5, cap=100.0)
    limiter = MaxOfRateLimiter(fast, slow)
    assert limiter.when("a") == 1.0
    assert limiter.when("a") == 2.0
    assert fast.num_requeues("a") == slow.num_requeues("a") == limiter.num_requeues("a") == 2
    limiter.forget("a")
    assert fast.num_requeues("a") == slow.num_requeues("a") == 0


def test_max_of_needs_a_limiter() -> None:
    with pytest.raises(ValueError):
        MaxOfRateLimiter[str]()


def test_default_limiter_combines_backoff_with_the_token_bucket() -> None:
    limiter: MaxOfRateLimiter[str] = default_rate_limiter(qps=1.0, burst=2, clock=FakeClock())
    assert limiter.when("a") == pytest.approx(0.005)
    assert limiter.when("a") == pytest.approx(0.01)
    assert limiter.when("b") == pytest.approx(1.0), "bucket empty: it sets the pace"
    assert limiter.num_requeues("a") == 2

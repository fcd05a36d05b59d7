"""Rate limiters: how long a key should wait before its next try.

Implements clause 10 of the package contract (see ``notifier.queue``).

- ``ItemExponentialBackoff``: per key, ``base * 2**failures`` capped at
  ``cap`` (defaults 5 ms doubling up to 1000 s). ``when`` counts a failure;
  ``forget`` clears the key's history, and callers must call it once a key
  succeeds, or the history of every key ever retried stays in memory.
- ``TokenBucket``: one bucket for all keys (default 50 tokens/s, burst 300).
  ``when`` takes a token, borrowing from the future when the bucket is
  empty, and returns how long until that borrowed token exists; so a burst
  of failures is spread out at ``qps`` instead of all being retried at once.
- ``MaxOfRateLimiter``: asks every limiter (each records the try) and
  returns the longest delay.

All limiters are thread-safe: workers call them concurrently.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Hashable
from typing import Generic, Protocol, TypeVar

from notifier.queue.clock import Clock

K = TypeVar("K", bound=Hashable)
K_contra = TypeVar("K_contra", bound=Hashable, contravariant=True)

DEFAULT_BASE_DELAY = 0.005
DEFAULT_MAX_DELAY = 1000.0
DEFAULT_QPS = 50.0
DEFAULT_BURST = 300


class RateLimiter(Protocol[K_contra]):
    def when(self, key: K_contra) -> float:
        """Record a try of ``key``; seconds it should wait before that try."""
        ...

    def forget(self, key: K_contra) -> None:
        """Stop tracking ``key``: its next ``when`` is as for a new key."""
        ...

    def num_requeues(self, key: K_contra) -> int:
        """Tries recorded for ``key`` since it was last forgotten."""
        ...


class ItemExponentialBackoff(Generic[K]):
    def __init__(self, base: float = DEFAULT_BASE_DELAY, cap: float = DEFAULT_MAX_DELAY) -> None:
        if not 0 < base <= cap:
            raise ValueError(f"need 0 < base <= cap, got base={base} cap={cap}")
        self._base = base
        self._cap = cap
        # From this many failures on the delay is the cap; also keeps 2**n from overflowing.
        self._capped_from = math.ceil(math.log2(cap / base))
        self._failures: dict[K, int] = {}
        self._lock = threading.Lock()

    def when(self, key: K) -> float:
        with self._lock:
            failures = self._failures.get(key, 0)
            self._failures[key] = failures + 1
        if failures >= self._capped_from:
            return self._cap
        return min(self._cap, self._base * 2.0**failures)

    def forget(self, key: K) -> None:
        with self._lock:
            self._failures.pop(key, None)

    def num_requeues(self, key: K) -> int:
        with self._lock:
            return self._failures.get(key, 0)


class TokenBucket:
    def __init__(
        self, qps: float = DEFAULT_QPS, burst: int = DEFAULT_BURST, clock: Clock = time.monotonic
    ) -> None:
        if qps <= 0 or burst < 1:
            raise ValueError(f"need qps > 0 and burst >= 1, got qps={qps} burst={burst}")
        self._qps = qps
        self._burst = float(burst)
        self._clock = clock
        self._tokens = float(burst)
        self._refilled_at = clock()
        self._lock = threading.Lock()

    def when(self, key: object) -> float:
        with self._lock:
            self._refill_locked()
            self._tokens -= 1.0
            if self._tokens >= 0:
                return 0.0
            return -self._tokens / self._qps

    def forget(self, key: object) -> None:
        """The bucket is shared by all keys: nothing to forget."""

    def num_requeues(self, key: object) -> int:
        return 0

    def _refill_locked(self) -> None:
        now = self._clock()
        elapsed = max(0.0, now - self._refilled_at)
        self._tokens = min(self._burst, self._tokens + elapsed * self._qps)
        self._refilled_at = now


class MaxOfRateLimiter(Generic[K]):
    def __init__(self, *limiters: RateLimiter[K]) -> None:
        if not limiters:
            raise ValueError("MaxOfRateLimiter needs at least one limiter")
        self._limiters = limiters

    def when(self, key: K) -> float:
        # Every limiter must see the try, so no short-circuit.
        return max([limiter.when(key) for limiter in self._limiters])

    def forget(self, key: K) -> None:
        for limiter in self._limiters:
            limiter.forget(key)

    def num_requeues(self, key: K) -> int:
        return max(limiter.num_requeues(key) for limiter in self._limiters)


def default_rate_limiter(
    *,
    base_delay: float = DEFAULT_BASE_DELAY,
    max_delay: float = DEFAULT_MAX_DELAY,
    qps: float = DEFAULT_QPS,
    burst: int = DEFAULT_BURST,
    clock: Clock = time.monotonic,
) -> MaxOfRateLimiter[K]:
    """Per-key exponential backoff, but never faster overall than the token bucket."""
    return MaxOfRateLimiter(
        ItemExponentialBackoff(base_delay, max_delay), TokenBucket(qps, burst, clock)
    )

"""RateLimitingQueue: a DelayingQueue that re-adds failed keys after a backoff.

Implements clause 11 of the package contract (see ``notifier.queue``).
A worker whose key failed calls ``add_rate_limited``; one whose key
succeeded calls ``forget``, which resets the key's backoff. A key that has
already been re-added ``max_retries`` times is dropped instead: logged on
``notifier.queue``, counted in ``kube_notifier_workqueue_drops_total``, and
forgotten, so a later failure of the same key starts from the base delay.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Hashable
from typing import TypeVar

from notifier.queue.clock import Clock
from notifier.queue.delaying import DelayingQueue
from notifier.queue.rate_limiters import RateLimiter, default_rate_limiter

T = TypeVar("T", bound=Hashable)

DEFAULT_MAX_RETRIES = 15

logger = logging.getLogger("notifier.queue")


class RateLimitingQueue(DelayingQueue[T]):
    def __init__(
        self,
        name: str,
        *,
        rate_limiter: RateLimiter[T] | None = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        clock: Clock = time.monotonic,
        timer_thread: bool = True,
    ) -> None:
        if max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, got {max_retries}")
        super().__init__(name, clock=clock, timer_thread=timer_thread)
        self._limiter: RateLimiter[T] = (
            rate_limiter if rate_limiter is not None else default_rate_limiter(clock=clock)
        )
        self._max_retries = max_retries

    @property
    def max_retries(self) -> int:
        return self._max_retries

    def add_rate_limited(self, key: T) -> bool:
        """Re-add ``key`` after its backoff; False if it was dropped or we are shutting down."""
        retries = self._limiter.num_requeues(key)
        if retries >= self._max_retries:
            self._drop(key, retries)
            return False
        if self._shutting_down:
            return False
        with self._lock:
            self._counts.retries += 1
        self.add_after(key, self._limiter.when(key))
        return True

    def forget(self, key: T) -> None:
        self._limiter.forget(key)

    def num_requeues(self, key: T) -> int:
        return self._limiter.num_requeues(key)

    def _drop(self, key: T, retries: int) -> None:
        self._limiter.forget(key)
        with self._lock:
            self._counts.drops += 1
        logger.warning("queue %s: dropping %r after %d retries", self._name, key, retries)

"""``RetryPolicy``: how long to wait before the next attempt.

Exponential backoff with "equal jitter": the n-th retry waits between half
and all of ``min(max, initial * 2**(n-1))``, so retries of many keys spread
out instead of arriving together. A ``Retry-After`` from the receiver
replaces the backoff (capped at ``max_retry_after``): it says when to come back.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from notifier.sinks.config import DeliveryOptions

_MAX_DOUBLINGS = 60  # 2**60 times any sane initial delay is past any cap


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    initial: float
    maximum: float
    max_retry_after: float
    rng: random.Random = field(default_factory=random.Random, compare=False)

    @classmethod
    def from_options(cls, options: DeliveryOptions, rng: random.Random) -> RetryPolicy:
        return cls(
            options.backoff_initial_seconds,
            options.backoff_max_seconds,
            options.max_retry_after_seconds,
            rng,
        )

    def delay(self, attempts: int, retry_after: float | None = None) -> float:
        """Seconds to wait after ``attempts`` failed attempts."""
        if retry_after is not None:
            return min(retry_after, self.max_retry_after)
        doublings = min(max(attempts - 1, 0), _MAX_DOUBLINGS)
        ceiling = min(self.maximum, self.initial * 2.0**doublings)
        return ceiling / 2 + self.rng.uniform(0, ceiling / 2)

"""Exponential backoff with jitter for list/watch failures (0.8 s doubling to 30 s).

After ``reset_after`` seconds without a failure the delay starts over, so a
watch that failed once yesterday does not wait 30 s today. A delay that
jitter would push past the cap is spread below it instead (30 s down to
22.5 s with the default jitter): every reflector of every replica fails
together when the API server goes away, and they should not all come back
in the same second.
"""

from __future__ import annotations

import random
from collections.abc import Callable


class Backoff:
    def __init__(
        self,
        *,
        initial: float = 0.8,
        cap: float = 30.0,
        reset_after: float = 120.0,
        jitter: float = 0.5,
        clock: Callable[[], float],
        rand: Callable[[], float] = random.random,
    ) -> None:
        self._initial = initial
        self._cap = cap
        self._reset_after = reset_after
        self._jitter = jitter
        self._clock = clock
        self._rand = rand
        self._current = initial
        self._last_failure: float | None = None

    def next_delay(self) -> float:
        """The wait before the next try; each call counts as one failure."""
        now = self._clock()
        if self._last_failure is not None and now - self._last_failure > self._reset_after:
            self._current = self._initial
        self._last_failure = now
        delay = self._current * (1 + self._jitter * self._rand())
        self._current = min(self._cap, self._current * 2)
        if delay > self._cap:
            delay = self._cap * (1 - self._jitter / 2 * self._rand())
        return delay

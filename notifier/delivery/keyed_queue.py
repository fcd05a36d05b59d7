"""``KeyedQueue``: one sink's envelopes, in order per ordering key, one key in flight at a time.

The contract, close to client-go's workqueue but keeping every item:

- envelopes of one key leave the queue in the order they were put;
- ``take`` hands out the head of a key and that key is *in flight*: no
  other envelope of it is handed out until ``done`` (the head is removed)
  or ``retry_at`` / ``release`` (the head stays and waits);
- a key waiting for a retry blocks only itself: other keys keep flowing;
- keys take turns: after ``done``, a key with more envelopes goes to the
  back of the line.

``put`` never blocks or refuses: bounding the size is the caller's choice.
Retry times are on the injected clock; ``take``'s timeout is in real
seconds (it is how long a thread waits), so a fake clock that does not move
makes no retry due but never stalls a ``take``, and a retry waiting is looked
at again every ``RETRY_LOOK_SECONDS`` in case it jumped. A waiting ``take`` returns
for an envelope, a retry come due, ``close``, or, once ``drain`` was called,
the queue emptied: its timeout is only a safety net, so idle senders do not
poll.
"""

from __future__ import annotations

import heapq
import itertools
import math
import threading
import time
from collections import deque
from collections.abc import Callable

from notifier.delivery.envelope import Envelope

RETRY_LOOK_SECONDS = 0.2


class KeyedQueue:
    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._lanes: dict[str, deque[Envelope]] = {}
        self._ready: deque[str] = deque()
        self._waiting: list[tuple[float, int, str]] = []  # heap of (due, tiebreak, key)
        self._tiebreak = itertools.count()
        self._size = 0
        self._closed = False
        self._draining = False  # ``drain``: a ``take`` returns None once the queue is empty
        self._cond = threading.Condition()

    def __len__(self) -> int:
        return self._size

    def put(self, envelope: Envelope) -> None:
        with self._cond:
            lane = self._lanes.get(envelope.key)
            if lane is None:
                self._lanes[envelope.key] = deque((envelope,))
                self._ready.append(envelope.key)
                self._cond.notify()
            else:
                lane.append(envelope)
            self._size += 1

    def take(self, timeout: float) -> Envelope | None:
        """The head of the next ready key; None after ``timeout`` real seconds, once closed, or
        once draining and empty."""
        give_up_at = time.monotonic() + timeout
        with self._cond:
            while not self._closed:
                self._promote_due(self._clock())
                if self._ready:
                    return self._lanes[self._ready.popleft()][0]
                if self._draining and not self._size:
                    return None
                remaining = give_up_at - time.monotonic()
                if remaining <= 0:
                    return None
                self._cond.wait(min(remaining, self._seconds_until_due()))
            return None

    def done(self, envelope: Envelope) -> None:
        """The head was handled for good: remove it, let the key's next envelope go."""
        with self._cond:
            lane = self._lanes[envelope.key]
            lane.popleft()
            self._size -= 1
            if lane:
                self._ready.append(envelope.key)
                self._cond.notify()
            else:
                del self._lanes[envelope.key]
                if self._draining and not self._size:
                    self._cond.notify_all()  # the drain is over: every waiting ``take`` returns

    def retry_at(self, envelope: Envelope, when: float) -> None:
        """Keep the head; hand it out again no sooner than ``when``."""
        with self._cond:
            heapq.heappush(self._waiting, (when, next(self._tiebreak), envelope.key))
            self._cond.notify()

    def release(self, envelope: Envelope) -> None:
        """Keep the head, untried (stopping): it is first in line again."""
        with self._cond:
            self._ready.appendleft(envelope.key)
            self._cond.notify()

    def drain(self) -> None:
        """From now on a ``take`` that finds the queue empty returns None at once (waiting
        ones included): the senders are to finish what is queued and stop."""
        with self._cond:
            self._draining = True
            self._cond.notify_all()

    def close(self) -> None:
        """Wake every ``take``; from now on it returns None."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def oldest_observed_at(self) -> float | None:
        """When the oldest queued notification was observed (heads are the oldest per key)."""
        with self._cond:
            heads = [lane[0].notification.observed_at for lane in self._lanes.values()]
        return min(heads, default=None)

    def _promote_due(self, now: float) -> None:
        while self._waiting and self._waiting[0][0] <= now:
            _, _, key = heapq.heappop(self._waiting)
            self._ready.append(key)

    def _seconds_until_due(self) -> float:
        """How long a ``take`` may wait for the next retry: until it is due, looking again at
        least every ``RETRY_LOOK_SECONDS`` (the clock is injected and may jump); with no retry
        waiting, as long as it likes."""
        if not self._waiting:
            return math.inf
        return min(RETRY_LOOK_SECONDS, max(0.0, self._waiting[0][0] - self._clock()))

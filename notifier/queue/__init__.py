"""The workqueue between informers and workers, after client-go's workqueue.

Informers ``add`` object keys; worker threads loop ``get`` -> process ->
``done``. Keys, not objects, are queued: a worker reads the latest object
from the cache, so ten updates of one Pod while it waits cost one pass.

Contract (each clause is tested in tests/unit/queue/):

1.  Dedup: a key is at most once in the queue; adding a key that is already
    queued changes nothing (not even its place). ``add_all(keys)`` is an
    ``add`` of each key in order, under one lock.
2.  Exclusive: a key is never handed to two workers at once: between the
    ``get`` that returns it and the matching ``done``, no ``get`` returns it.
3.  Dirty re-add: adding a key while it is being processed marks it; at its
    ``done`` it is queued again (once, at the back), so the change that came
    in during processing is not lost.
4.  FIFO: otherwise keys come out in the order they were queued.
5.  ``get(timeout=None)`` blocks until a key is ready and returns None if
    ``timeout`` seconds pass first. ``len(queue)`` counts queued keys, not
    those being processed.
5a. ``get_batch(limit, timeout=None)`` hands out several keys under one lock:
    blocking for the first as ``get``, then the next keys in order, up to
    ``limit`` and leaving each idle getter an equal share of what is queued;
    [] where ``get`` returns None. Each key is processing (clauses 2, 3) until
    its ``done``, or ``done_all(keys)`` (a ``done`` of each, under one lock).
6.  ``shutdown()`` stops intake (``add``, ``add_after`` and
    ``add_rate_limited`` are ignored; keys waiting on a delay are discarded),
    wakes every blocked ``get``, and keeps handing out keys already queued
    (including a dirty key re-queued by ``done``); once the queue is empty
    ``get`` returns None. ``shutting_down`` tells whether it was called.
7.  ``shutdown_with_drain(deadline)`` shuts down, then waits up to
    ``deadline`` seconds (a duration, not a timestamp) until nothing is
    queued and nothing is being processed; it returns whether that happened
    before the deadline. Workers must keep calling ``get``/``done`` for it
    to drain.
8.  ``done`` of a key that is not being processed raises ValueError.
9.  ``add_after(key, delay_seconds)`` (DelayingQueue): a delay <= 0 is an
    ``add``; otherwise the key is added once the delay has passed on the
    queue's injected clock. A key already waiting keeps the earlier due
    time. Due keys are added in due-time order, ties in call order.
10. Rate limiters: ``when(key)`` records a try and returns its delay;
    ``forget(key)`` resets the key; ``num_requeues(key)`` counts tries since
    then. The default is the max of a per-key exponential backoff (5 ms,
    10 ms, 20 ms, ... capped at 1000 s) and a token bucket shared by all keys
    (50/s, burst 300).
11. ``add_rate_limited(key)`` (RateLimitingQueue) re-adds the key after the
    limiter's delay and returns True. When the key was already re-added
    ``max_retries`` times (default 15) it is dropped instead: a warning on
    the ``notifier.queue`` logger, ``kube_notifier_workqueue_drops_total``
    incremented, the key forgotten, and False returned.
12. Metrics (``notifier.queue.metrics``), labeled by the queue's ``name``:
    depth, adds, retries, drops, queue duration (add -> get), work duration
    (get -> done), unfinished work and longest running item; the last three
    are gauges computed whenever the registry is read.
"""

from notifier.queue.clock import Clock
from notifier.queue.delaying import DelayingQueue
from notifier.queue.metrics import QueueStats
from notifier.queue.rate_limiters import (
    ItemExponentialBackoff,
    MaxOfRateLimiter,
    RateLimiter,
    TokenBucket,
    default_rate_limiter,
)
from notifier.queue.rate_limiting_queue import DEFAULT_MAX_RETRIES, RateLimitingQueue
from notifier.queue.workqueue import WorkQueue

__all__ = [
    "DEFAULT_MAX_RETRIES",
    "Clock",
    "DelayingQueue",
    "ItemExponentialBackoff",
    "MaxOfRateLimiter",
    "QueueStats",
    "RateLimiter",
    "RateLimitingQueue",
    "TokenBucket",
    "WorkQueue",
    "default_rate_limiter",
]

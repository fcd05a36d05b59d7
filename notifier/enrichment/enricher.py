"""``Enricher``: fetches context on its own threads, once per object change, within a deadline.

``prefetch`` (called as a notification is submitted) starts the fetch and
returns at once; ``context_for`` (called by a sink's delivery thread when the
notification's turn comes) waits only for what is left of the deadline, which
runs from the first ask. The sinks of one rule share one fetch (same request
key). At most ``_MAX_TRACKED`` fetches are remembered, each for
``_KEEP_SECONDS`` or until room is needed; with that many still running (a
flood), a notification goes out without context, and says why. A reload's
new settings apply to fetches started after it.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass

from notifier.enrichment.attaching import with_context
from notifier.enrichment.config import EnrichmentConfig
from notifier.enrichment.context import Context
from notifier.enrichment.fetching import ContextFetcher
from notifier.enrichment.metrics import FETCH_SECONDS, FETCHES, WAITED
from notifier.kinds.registry import Kinds
from notifier.notifications import ContextRequest, Notification
from notifier.queue.rate_limiters import TokenBucket
from notifier.source.client import RawClient

log = logging.getLogger(__name__)

_MAX_TRACKED = 1024
_KEEP_SECONDS = 300.0
_GRACE_SECONDS = 0.25  # a fetch's requests stop at its deadline; its answer needs a moment


@dataclass(frozen=True, slots=True)
class _Fetch:
    future: Future[Context]
    deadline: float
    started: float


class Enricher:
    def __init__(
        self,
        client: RawClient,
        settings: EnrichmentConfig,
        *,
        kinds: Kinds,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._client = client
        self._clock = clock
        self._fetches: OrderedDict[str, _Fetch] = OrderedDict()
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        self.configure(settings, kinds=kinds)

    def configure(self, settings: EnrichmentConfig, *, kinds: Kinds) -> None:
        """New settings, and the config's kinds (an owner of a custom resource's kind is found)."""
        bucket = TokenBucket(settings.requests_per_second, settings.burst, self._clock)
        fetcher = ContextFetcher(
            self._client, settings, bucket=bucket, kinds=kinds, clock=self._clock
        )
        with self._lock:
            old = self._pool
            self._settings, self._fetcher = settings, fetcher
            self._pool = ThreadPoolExecutor(settings.concurrency, thread_name_prefix="enrich")
        if old is not None:
            old.shutdown(wait=False)  # its fetches finish by their deadlines

    def prefetch(self, request: ContextRequest) -> None:
        with self._lock:
            self._start_locked(request)

    def enriched(self, notification: Notification) -> Notification:
        """``notification`` with its context in its facts (``context``), for its receiver."""
        if notification.context is None:
            return notification
        facts = with_context(notification.facts, self.context_for(notification.context))
        return dataclasses.replace(notification, context=None, facts=facts)

    def context_for(self, request: ContextRequest) -> Context:
        """The context, or what is known of why there is none; waits until the deadline."""
        waited_from = self._clock()
        with self._lock:
            fetch = self._start_locked(request)
        if fetch is None:
            FETCHES.labels("skipped").inc()
            return Context(problems=("context skipped: too many notifications waiting for it",))
        timeout = max(0.0, fetch.deadline - self._clock()) + _GRACE_SECONDS
        try:
            context = fetch.future.result(timeout)
        except FutureTimeout:
            seconds = self._settings.timeout_seconds
            context = Context(problems=(f"context not fetched within {seconds:g} s",))
        except Exception:  # a bug in fetching must not stop the message
            log.exception("fetching context for %s/%s failed", request.kind, request.name)
            context = Context(problems=("context could not be fetched (see the service's log)",))
        WAITED.observe(self._clock() - waited_from)
        return context

    def stop(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    def _start_locked(self, request: ContextRequest) -> _Fetch | None:
        key = request.key
        fetch = self._fetches.get(key)
        if fetch is not None:
            return fetch
        now = self._clock()
        self._forget_old_locked(now)
        if len(self._fetches) >= _MAX_TRACKED or self._pool is None:
            return None
        deadline = now + self._settings.timeout_seconds
        future = self._pool.submit(self._fetch, self._fetcher, request, deadline)
        fetch = self._fetches[key] = _Fetch(future, deadline, now)
        return fetch

    def _fetch(self, fetcher: ContextFetcher, request: ContextRequest, deadline: float) -> Context:
        started = self._clock()
        if started >= deadline:  # waited in the pool past its deadline: a flood
            FETCHES.labels("skipped").inc()
            return Context(problems=("context skipped: the fetchers were busy until the deadline",))
        context = fetcher.fetch(request, deadline)
        FETCH_SECONDS.observe(self._clock() - started)
        FETCHES.labels("partial" if context.problems else "complete").inc()
        return context

    def _forget_old_locked(self, now: float) -> None:
        """Fetches past their keeping time, and finished ones while the table is full."""
        while self._fetches:
            key, oldest = next(iter(self._fetches.items()))
            full = len(self._fetches) >= _MAX_TRACKED and oldest.future.done()
            if not full and now - oldest.started < _KEEP_SECONDS:
                return
            del self._fetches[key]

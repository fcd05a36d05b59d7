"""List, then watch from the list's resourceVersion; relist only on 410 GoneError.

One reflector serves every watch: what it lists and watches is a ``ListWatch`` (a
kind's collection, one ConfigMap by name, the namespaces), and what it keeps in step
is a ``ReflectorStore`` (a kind's cache and its deltas, the rules, the silences, the
namespaces' labels). As client-go's reflector: a paginated list (``limit=500``), a
watch with bookmarks and a random server-side timeout; a normal close re-watches from
the last resourceVersion, 410 relists and diffs against the cache, other failures back
off and retry from the same resourceVersion. A silent watch is reopened by an
inactivity watchdog (a socket read timeout): without HTTP/2 pings nothing else
notices a half-open connection. A backoff wait ends early on ``wake``: when the
API server answers the outage's prober again (``outage.py``), or when we stop.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar

import urllib3.exceptions

from notifier.objects import KubeObject
from notifier.source import metrics
from notifier.source.backoff import Backoff
from notifier.source.client import ApiError, RawClient
from notifier.source.listwatch import Bookmark, ListWatch, ReflectorStore, Status, WatchEvent
from notifier.source.outage import unreachable

log = logging.getLogger("notifier.source")

GONE = 410
TOO_MANY_REQUESTS = 429


QUICK_SECONDS = 1.0  # a watch that ends sooner, with nothing in it, failed (as client-go says)
RELIST_AGAIN_SECONDS = 10.0  # a 410 this soon after a list backs off before the next one
FAILING_AFTER = 3  # failures in a row before readiness says the watch cannot stay open


# What a failure means when it is not the network's fault.
_HINTS = {
    404: " (not served: is its CustomResourceDefinition installed?)",
    403: " (not allowed: grant list and watch on it)",
}


class ShortWatchError(Exception):
    """The watch closed at once and carried nothing: retried with backoff, not in a spin."""


class GoneError(Exception):
    """The resourceVersion we hold is older than the server's history."""


@dataclass(frozen=True)
class ReflectorSettings:
    page_size: int = 500
    watch_timeout_range: tuple[int, int] = (300, 600)  # server-side timeoutSeconds, drawn at random
    inactivity_timeout: float = 90.0  # the watchdog bound
    backoff_initial: float = 0.8
    backoff_cap: float = 30.0
    backoff_reset_after: float = 120.0


T = TypeVar("T", bound=KubeObject)


class Reflector(Generic[T]):
    def __init__(
        self,
        *,
        list_watch: ListWatch[T],
        store: ReflectorStore[T],
        client: RawClient,
        settings: ReflectorSettings | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.list_watch = list_watch
        self._client = client
        self._store = store
        self._settings = settings or ReflectorSettings()
        self._clock = clock
        self._kind = list_watch.name
        self._backoff = Backoff(
            initial=self._settings.backoff_initial,
            cap=self._settings.backoff_cap,
            reset_after=self._settings.backoff_reset_after,
            clock=clock,
        )
        self.resource_version = ""
        self._event_counts: dict[str, Callable[[], None]] = {}  # each type's Counter.inc
        self.synced = threading.Event()
        self.last_activity = clock()
        self.failures_in_a_row = 0  # reset by a watch that delivers or stays open
        self._listed_at = float("-inf")
        self._watch_opened_at: float | None = None  # while a watch is open
        self._woken = threading.Event()  # ends the backoff wait under way

    # -- the loop ---------------------------------------------------------
    def run(self, stop: threading.Event) -> None:
        """List and watch until ``stop`` is set; whoever sets it calls ``wake`` next."""
        try:
            self._run(stop)
        finally:
            self._client.outage.left(self)

    def wake(self) -> None:
        """End the backoff wait under way (or the next one, if none is): retry now."""
        self._woken.set()

    def _pause(self, stop: threading.Event, seconds: float) -> None:
        """Wait ``seconds``, or until ``wake`` (called after ``stop`` is set, or by the outage)."""
        if not stop.is_set():
            self._woken.wait(seconds)
        self._woken.clear()

    def _run(self, stop: threading.Event) -> None:
        need_list = True
        while not stop.is_set():
            try:
                if need_list:
                    self._list_and_hand_on()
                    need_list = False
                self._watch(stop)
            except GoneError:
                self._before_relist(stop)
                need_list = True
            except ApiError as err:
                self._wait_after_error(stop, err)
            except urllib3.exceptions.ReadTimeoutError:
                self.failures_in_a_row = 0  # it stayed open, quiet, for the whole timeout
                log.info(
                    "%s: no event or bookmark for %.0fs; reopening the watch",
                    self._kind,
                    self._settings.inactivity_timeout,
                )
                self._restarted("stalled")
            except Exception as err:  # any other failure: back off, keep the resourceVersion
                self._wait_after_failure(stop, err)

    def _restarted(self, reason: str) -> None:
        metrics.WATCH_RESTARTS.labels(self._kind, reason).inc()

    @property
    def failing(self) -> bool:
        """The watch keeps failing (errors, 410 right after each list, closes at once).

        A watch open longer than ``QUICK_SECONDS`` holds: a quiet one (a custom
        resource whose CRD just came, with no objects yet) says so at once, not
        when it first delivers or its inactivity timeout reopens it.
        """
        opened = self._watch_opened_at
        if opened is not None and self._clock() - opened >= QUICK_SECONDS:
            return False
        return self.failures_in_a_row >= FAILING_AFTER

    def _before_relist(self, stop: threading.Event) -> None:
        self._restarted("gone")
        metrics.RELISTS.labels(self._kind).inc()
        if self._clock() - self._listed_at >= RELIST_AGAIN_SECONDS:
            log.info("%s: resourceVersion %s is gone; relisting", self._kind, self.resource_version)
            return
        # Gone again right after a list: a full list each time would hammer the API server.
        self.failures_in_a_row += 1
        delay = self._backoff.next_delay()
        log.warning("%s: 410 Gone again right after a list; relisting in %.1fs", self._kind, delay)
        self._pause(stop, delay)

    def _wait_after_error(self, stop: threading.Event, err: ApiError) -> None:
        self._client.outage.reached(self)  # it answered, if only to refuse
        if err.status == TOO_MANY_REQUESTS and err.retry_after is not None:
            self._restarted("throttled")
            log.warning("%s: throttled (429); waiting %.1fs", self._kind, err.retry_after)
            self._pause(stop, err.retry_after)
            return
        self._wait_after_failure(stop, err)

    def _wait_after_failure(self, stop: threading.Event, err: Exception) -> None:
        if stop.is_set():
            return  # the stream was closed because we are stopping
        self._restarted("error")
        self.failures_in_a_row += 1
        delay = self._backoff.next_delay()
        if unreachable(err):  # every watch of the server fails alike: said once a round
            self._client.outage.failed(self, err, delay, self.wake)
        else:
            self._client.outage.reached(self)
            hint = _HINTS.get(err.status, "") if isinstance(err, ApiError) else ""
            log.warning(
                "%s: list/watch failed (%s)%s; retrying in %.1fs", self._kind, err, hint, delay
            )
        self._pause(stop, delay)

    # -- list -------------------------------------------------------------
    def _list(self) -> tuple[list[T], str]:
        path, decoder = self.list_watch.path, self.list_watch.decoders.list
        items: list[T] = []
        token, limit = "", self._settings.page_size
        while True:
            query = self.list_watch.query(**({"limit": str(limit)} if limit else {}))
            if token:
                query["continue"] = token
            try:
                page = decoder.decode(self._client.get(path, query))
            except ApiError as err:
                if err.status != GONE or not token:
                    raise
                # The continue token expired mid-list: start over in one piece.
                items, token, limit = [], "", 0
                continue
            items.extend(map(self._store.admit, page.items))
            token = page.metadata.continue_
            if not token:
                metrics.LISTS.labels(self._kind).inc()
                return items, page.metadata.resource_version

    def _list_and_hand_on(self) -> None:
        items, version = self._list()
        self._store.replace(items, first=not self.synced.is_set())
        self.resource_version = version
        self.last_activity = self._listed_at = self._clock()
        self._client.outage.reached(self)
        self.synced.set()
        metrics.SYNCED.labels(self._kind).set(1)

    # -- watch ------------------------------------------------------------
    def _watch(self, stop: threading.Event) -> None:
        low, high = self._settings.watch_timeout_range
        query = self.list_watch.query(
            watch="true",
            resourceVersion=self.resource_version,
            allowWatchBookmarks="true",
            timeoutSeconds=str(random.randint(low, high)),
        )
        opened = self._clock()
        try:
            lines = self._client.stream_lines(
                self.list_watch.path, query, self._settings.inactivity_timeout, on_open=self._opened
            )
            lines_seen, stopped = self._follow(lines, stop)
        except ApiError as err:
            if err.status == GONE:
                raise GoneError from err
            raise
        finally:
            self._watch_opened_at = None
        if stopped:
            return
        if not lines_seen and self._clock() - opened < QUICK_SECONDS and not stop.is_set():
            raise ShortWatchError("the watch closed at once with nothing in it")
        self.failures_in_a_row = 0  # it stayed open a while: a watch like any other
        self._restarted("closed")

    def _follow(self, lines: Iterable[bytes], stop: threading.Event) -> tuple[int, bool]:
        """Apply the watch's lines as they come until it ends or we stop: (lines, stopped)."""
        clock, decode, seen = self._clock, self.list_watch.decoders.decode_event, 0
        for line in lines:
            self.last_activity = clock()  # the watch is alive: an event or a bookmark came
            seen += 1
            self.failures_in_a_row = 0
            event = decode(line)
            if isinstance(event, WatchEvent):
                self._apply(event)
            else:
                self._not_an_object(event)
            if stop.is_set():
                return seen, True
        return seen, False

    def _count_event(self, event_type: str) -> None:
        # Resolving a labelled child costs more than the increment: keep them.
        count = self._event_counts.get(event_type)
        if count is None:
            count = self._event_counts[event_type] = metrics.WATCH_EVENTS.labels(
                self._kind, event_type
            ).inc
        count()

    def _opened(self) -> None:
        self._watch_opened_at = self.last_activity = self._clock()
        self._client.outage.reached(self)

    def _not_an_object(self, event: Bookmark | Status) -> None:
        """A bookmark (whose resourceVersion is taken here), or an ERROR event's Status."""
        if isinstance(event, Bookmark):
            self._count_event("BOOKMARK")
            self.resource_version = event.resource_version or self.resource_version
            return
        self._count_event("ERROR")
        if event.code == GONE:
            raise GoneError(event.message)
        raise ApiError(event.code, event.reason, event.message, None)

    def _apply(self, event: WatchEvent[T]) -> None:
        obj, event_type = event.object, event.type
        self._count_event(event_type)
        if event_type in {"MODIFIED", "ADDED"}:
            self._store.upsert(obj)
        elif event_type == "DELETED":
            self._store.delete(obj)
        self.resource_version = obj.metadata.resource_version or self.resource_version

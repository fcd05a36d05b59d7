"""List, then watch from the list's resourceVersion; relist only on 410 GoneError.

Behaves as client-go's reflector: paginated list (``limit=500``), a watch
with bookmarks and a random server-side timeout, a normal close re-watches
from the last resourceVersion, 410 relists and diffs against the cache,
other failures back off and retry the watch from the same resourceVersion.
An inactivity watchdog (a socket read timeout) reopens a watch that went
silent, because the Python client has no HTTP/2 pings to notice a
half-open connection.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import urllib3.exceptions
from prometheus_client import Counter

from notifier.objects import KubeObject, ObjectKey, key_of
from notifier.source import metrics
from notifier.source.backoff import Backoff
from notifier.source.client import ApiError, RawClient
from notifier.source.deltas import Delta, DeltaHandler, DeltaType
from notifier.source.resources import Bookmark, Resource, Status, WatchEvent, decode_event
from notifier.source.store import Store
from notifier.source.trimming import trim
from notifier.transitions.model import Origin

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


# The object a saved state holds for a key (a restart's ``Known``), if any.
SavedLookup = Callable[[ObjectKey], "KubeObject | None"]


def nothing_saved(_key: ObjectKey) -> KubeObject | None:
    """No saved state: a first start, or no state file."""
    return None


def nothing_to_do() -> None:
    """No one to tell that a relist was handed on."""


class Reflector:
    def __init__(
        self,
        *,
        resource: Resource,
        namespace: str | None,
        client: RawClient,
        store: Store,
        handler: DeltaHandler,
        settings: ReflectorSettings | None = None,
        clock: Callable[[], float] = time.monotonic,
        saved: SavedLookup = nothing_saved,
        on_relisted: Callable[[], None] = nothing_to_do,
    ) -> None:
        self.resource = resource
        self._saved = saved
        self._on_relisted = on_relisted
        self.namespace = namespace
        self._client = client
        self._store = store
        self._handler = handler
        self._settings = settings or ReflectorSettings()
        self._clock = clock
        self._kind = resource.kind.value
        self._backoff = Backoff(
            initial=self._settings.backoff_initial,
            cap=self._settings.backoff_cap,
            reset_after=self._settings.backoff_reset_after,
            clock=clock,
        )
        self.resource_version = ""
        self._event_counters: dict[str, Counter] = {}
        self.synced = threading.Event()
        self.last_activity = clock()
        self.failures_in_a_row = 0  # reset by a watch that delivers or stays open
        self._listed_at = float("-inf")

    # -- the loop ---------------------------------------------------------
    def run(self, stop: threading.Event) -> None:
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
        """The watch keeps failing (errors, 410 right after each list, closes at once)."""
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
        stop.wait(delay)

    def _wait_after_error(self, stop: threading.Event, err: ApiError) -> None:
        if err.status == TOO_MANY_REQUESTS and err.retry_after is not None:
            self._restarted("throttled")
            log.warning("%s: throttled (429); waiting %.1fs", self._kind, err.retry_after)
            stop.wait(err.retry_after)
            return
        self._wait_after_failure(stop, err)

    def _wait_after_failure(self, stop: threading.Event, err: Exception) -> None:
        if stop.is_set():
            return  # the stream was closed because we are stopping
        self._restarted("error")
        self.failures_in_a_row += 1
        delay = self._backoff.next_delay()
        hint = _HINTS.get(err.status, "") if isinstance(err, ApiError) else ""
        log.warning("%s: list/watch failed (%s)%s; retrying in %.1fs", self._kind, err, hint, delay)
        stop.wait(delay)

    # -- list -------------------------------------------------------------
    def _list(self) -> tuple[list[KubeObject], str]:
        path = self.resource.path(self.namespace)
        items: list[KubeObject] = []
        token, limit = "", self._settings.page_size
        while True:
            query = {"limit": str(limit)} if limit else {}
            if token:
                query["continue"] = token
            try:
                page = self.resource.list_decoder.decode(self._client.get(path, query))
            except ApiError as err:
                if err.status != GONE or not token:
                    raise
                # The continue token expired mid-list: start over in one piece.
                items, token, limit = [], "", 0
                continue
            items.extend(self._cached_or_trimmed(obj) for obj in page.items)
            token = page.metadata.continue_
            if not token:
                metrics.LISTS.labels(self._kind).inc()
                return items, page.metadata.resource_version

    def _cached_or_trimmed(self, obj: KubeObject) -> KubeObject:
        """The object already held when the listed one is the same: a relist after 410
        then holds the cache plus what changed and one page, not the cache twice (the
        peak the allocator keeps after it), and skips trimming what it already has.

        A restart's first list finds the cache empty but the saved state (``saved``)
        loaded: an unchanged object keeps its saved instance, so the two copies are
        not both held until the workers have compared them. Saved objects are compared
        whole, not by version: one written by an older release may lack a field."""
        key = key_of(obj)
        cached = self._store.get(key)
        if cached is not None and _same_version(cached, obj):
            return cached
        trimmed = trim(obj)
        saved = self._saved(key) if cached is None else None
        return saved if saved is not None and saved == trimmed else trimmed

    def _list_and_hand_on(self) -> None:
        items, version = self._list()
        # The first list finds its part of the cache empty: every object is an add.
        first = not self.synced.is_set()
        origin = Origin.INITIAL_LIST if first else Origin.RELIST
        self._handler.handle(self._store.replace(items, self.namespace, origin))
        self.resource_version = version
        self.last_activity = self._listed_at = self._clock()
        self.synced.set()
        metrics.SYNCED.labels(self._kind).set(1)
        if not first:
            self._on_relisted()  # its pages are freed: memory to give back once acted on

    # -- watch ------------------------------------------------------------
    def _watch(self, stop: threading.Event) -> None:
        low, high = self._settings.watch_timeout_range
        query = {
            "watch": "true",
            "resourceVersion": self.resource_version,
            "allowWatchBookmarks": "true",
            "timeoutSeconds": str(random.randint(low, high)),
        }
        path = self.resource.path(self.namespace)
        opened, lines_seen = self._clock(), 0
        try:
            lines = self._client.stream_lines(
                path, query, self._settings.inactivity_timeout, on_open=self._touch
            )
            for line in lines:
                self._touch()
                lines_seen += 1
                self.failures_in_a_row = 0
                self._apply(self._decode(line))
                if stop.is_set():
                    return
        except ApiError as err:
            if err.status == GONE:
                raise GoneError from err
            raise
        if not lines_seen and self._clock() - opened < QUICK_SECONDS and not stop.is_set():
            raise ShortWatchError("the watch closed at once with nothing in it")
        self.failures_in_a_row = 0  # it stayed open a while: a watch like any other
        self._restarted("closed")

    def _count_event(self, event_type: str) -> None:
        # Resolving a labelled child costs more than the increment: keep them.
        counter = self._event_counters.get(event_type)
        if counter is None:
            counter = self._event_counters[event_type] = metrics.WATCH_EVENTS.labels(
                self._kind, event_type
            )
        counter.inc()

    def _touch(self) -> None:
        """The watch is alive: it just opened, or an event or bookmark arrived."""
        self.last_activity = self._clock()

    def _decode(self, line: bytes) -> WatchEvent[KubeObject] | None:
        """The object event, or None for a bookmark (whose resourceVersion is taken here)."""
        event = decode_event(self.resource, line)
        if isinstance(event, Bookmark):
            self._count_event("BOOKMARK")
            self.resource_version = event.resource_version or self.resource_version
            return None
        if isinstance(event, Status):
            self._count_event("ERROR")
            if event.code == GONE:
                raise GoneError(event.message)
            raise ApiError(event.code, event.reason, event.message, None)
        return event

    def _apply(self, event: WatchEvent[KubeObject] | None) -> None:
        if event is None:
            return
        kind, obj = self.resource.kind, trim(event.object)
        self._count_event(event.type)
        if event.type == "DELETED":
            self._store.delete(key_of(obj))
            self._handler.handle([Delta(kind, key_of(obj), DeltaType.DELETED, obj, Origin.LIVE)])
        elif event.type in ("ADDED", "MODIFIED"):
            self._hand_on_upsert(obj)
        self.resource_version = obj.metadata.resource_version or self.resource_version

    def _hand_on_upsert(self, obj: KubeObject) -> None:
        kind, key = self.resource.kind, key_of(obj)
        old = self._store.upsert(obj)
        if old is None:
            deltas = [Delta(kind, key, DeltaType.ADDED, obj, Origin.LIVE)]
        elif old.metadata.uid != obj.metadata.uid:
            deltas = [
                Delta(kind, key, DeltaType.DELETED, old, Origin.LIVE, True),
                Delta(kind, key, DeltaType.ADDED, obj, Origin.LIVE),
            ]
        else:
            deltas = [Delta(kind, key, DeltaType.UPDATED, obj, Origin.LIVE)]
        self._handler.handle(deltas)


def _same_version(was: KubeObject, now: KubeObject) -> bool:
    return (
        was.metadata.resource_version == now.metadata.resource_version
        and was.metadata.uid == now.metadata.uid
    )

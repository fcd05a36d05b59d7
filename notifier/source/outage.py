"""An API server no watch can reach, said once a retry round rather than once a watch.

Every reflector (one per kind and namespace, the ConfigMaps, the namespaces)
fails on its own when the API server goes away, and each backs off on its
own: logging each failure made 47 lines in 30 s for one cause. The
reflectors of one server share an ``Outage`` (``RawClient.sibling`` hands it
on): the first failure of a round is logged, naming the server, the cause in
words ("connection refused", "name not resolved") and how many watches wait;
the others that fail before that round's retry is due are only counted. When
the last failing watch reaches the server again, one line says so and for how long.

A long outage backs each watch off to 30 s, so a watch could sleep most of
that after the server is back (and /readyz and the page's banner with it).
While any watch is failing, one prober thread asks the server itself every
``PROBE_EVERY`` seconds (``RawClient.answers``: GET /readyz, bounded); once
it answers, every failing watch is woken to retry at once.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable, Hashable

import urllib3.exceptions

from notifier.supervision import supervised

log = logging.getLogger("notifier.source")

PROBE_EVERY = 1.0  # seconds between two asks of the server while a watch cannot reach it

Wake = Callable[[], None]  # ends a watch's backoff wait


class Outage:
    def __init__(
        self,
        server: str,
        *,
        probe: Callable[[], bool] = lambda: False,
        probe_every: float = PROBE_EVERY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.server = server
        self._probe, self._probe_every = probe, probe_every
        self._clock = clock
        self._lock = threading.Lock()
        self._failing: dict[Hashable, Wake] = {}  # the watches whose last try could not reach it
        self._since: float | None = None  # when the first of them failed
        self._next_line_at = float("-inf")
        self._prober: threading.Thread | None = None  # runs while a watch is failing
        self._calm = threading.Event()  # no watch failing: the prober ends

    def failed(self, watch: Hashable, err: Exception, retry_in: float, wake: Wake) -> None:
        """``watch`` could not reach the server and tries again in ``retry_in`` seconds,
        or when ``wake`` is called: once the server answers the prober."""
        with self._lock:
            now = self._clock()
            self._failing[watch] = wake
            self._since = now if self._since is None else self._since
            self._calm.clear()
            if self._prober is None:
                self._prober = self._started_prober()
            if now < self._next_line_at:
                return  # said this round already
            self._next_line_at = now + retry_in
            waiting, lasted = len(self._failing), now - self._since
        log.warning(
            "cannot reach the API server at %s: %s; %d %s retrying (next in %.1fs)%s",
            self.server, cause(err), waiting, "watch" if waiting == 1 else "watches",
            retry_in, f", for {lasted:.0f}s now" if lasted >= 1 else "",
        )  # fmt: skip

    def reached(self, watch: Hashable) -> None:
        """``watch`` listed or opened: the server answers it (cheap when nothing failed)."""
        if watch not in self._failing:
            return
        with self._lock:
            self._failing.pop(watch, None)
            if self._failing or self._since is None:
                return
            self._calm.set()
            lasted, self._since = self._clock() - self._since, None
            self._next_line_at = float("-inf")
        log.warning(
            "the API server at %s answers again (unreachable for %.0fs)", self.server, lasted
        )

    def left(self, watch: Hashable) -> None:
        """``watch`` stopped: it waits for nothing any more (said nowhere)."""
        with self._lock:
            self._failing.pop(watch, None)
            if not self._failing:
                self._calm.set()
                self._since = None

    def _started_prober(self) -> threading.Thread:
        body = supervised("apiserver-probe", self._probing)
        thread = threading.Thread(target=body, name="apiserver-probe", daemon=True)
        thread.start()
        return thread

    def _probing(self) -> None:
        """Ask the server every ``probe_every`` seconds while a watch cannot reach it; when it
        answers, wake them all (a watch that still cannot reach it backs off again). Dying of
        an unexpected error (logged, /healthz told) leaves the next failure to start another."""
        try:
            self._probe_rounds()
        except BaseException:
            with self._lock:
                self._prober = None
            raise

    def _probe_rounds(self) -> None:
        while True:
            self._calm.wait(self._probe_every)
            with self._lock:
                if not self._failing:
                    self._prober = None  # decided under the lock: ``failed`` starts another
                    return
            if self._probe():
                with self._lock:
                    wakes = list(self._failing.values())
                for wake in wakes:
                    wake()

    @property
    def failing(self) -> int:
        """How many watches cannot reach the server now."""
        return len(self._failing)


def unreachable(err: Exception) -> bool:
    """A failure to talk to the server at all (not an answer it gave)."""
    return isinstance(err, urllib3.exceptions.HTTPError | OSError) and not isinstance(
        err, urllib3.exceptions.ReadTimeoutError
    )


def cause(err: BaseException) -> str:
    """The root cause of a connection failure in words, without urllib3's wrapping."""
    current: BaseException | None = err
    while current is not None:
        if isinstance(current, OSError) and current.strerror:
            return _named(current.strerror.lower())
        if isinstance(current, urllib3.exceptions.MaxRetryError) and current.reason is not None:
            current = current.reason
            continue
        current = current.__cause__ or current.__context__
    text = str(err)
    errno_text = re.search(r"\[Errno -?\d+\] ([^')\]]+)", text)
    if errno_text:
        return _named(errno_text[1].lower())
    return "timed out" if "timed out" in text.lower() else type(err).__name__


def _named(text: str) -> str:
    """getaddrinfo's words for a name that does not resolve, as a person says it."""
    unresolved = ("name or service not known", "temporary failure in name resolution")
    return "name not resolved" if text in unresolved else text

"""An API server no watch can reach, said once a retry round rather than once a watch.

Every reflector (one per kind and namespace, the ConfigMaps, the namespaces)
fails on its own when the API server goes away, and each backs off on its
own: logging each failure made 47 lines in 30 s for one cause. The
reflectors of one server share an ``Outage`` (``RawClient.sibling`` hands it
on): the first failure of a round is logged, naming the server, the cause in
words ("connection refused", "name not resolved") and how many watches wait;
the others that fail before that round's retry is due are only counted. When
the last failing watch reaches the server again, one line says so and for how long.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable, Hashable

import urllib3.exceptions

log = logging.getLogger("notifier.source")


class Outage:
    def __init__(self, server: str, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.server = server
        self._clock = clock
        self._lock = threading.Lock()
        self._failing: set[Hashable] = set()  # the watches whose last try could not reach it
        self._since: float | None = None  # when the first of them failed
        self._next_line_at = float("-inf")

    def failed(self, watch: Hashable, err: Exception, retry_in: float) -> None:
        """``watch`` could not reach the server and tries again in ``retry_in`` seconds."""
        with self._lock:
            now = self._clock()
            self._failing.add(watch)
            self._since = now if self._since is None else self._since
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
            self._failing.discard(watch)
            if self._failing or self._since is None:
                return
            lasted, self._since = self._clock() - self._since, None
            self._next_line_at = float("-inf")
        log.warning(
            "the API server at %s answers again (unreachable for %.0fs)", self.server, lasted
        )

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

"""Leader election, after client-go's leaderelection: acquire, renew, lose, release.

Expiry is judged by our own clock from when we last saw the record change,
never by comparing the server's renewTime with our clock, so clock skew
between replicas does not matter. An API server that cannot be reached fails
every try (one each ``retry_period``): the first failure is logged in words,
then at most one line each ``SAY_AGAIN_SECONDS`` with how many failed, and
one line when a try reaches the server again.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from notifier.leadership import metrics
from notifier.leadership.lease import LeaseClient, LeaseRecord
from notifier.source.outage import cause

log = logging.getLogger("notifier.leadership")

SAY_AGAIN_SECONDS = 30.0  # while the Lease cannot be reached, a line this often at the most


@dataclass(frozen=True)
class ElectionSettings:
    identity: str
    lease_duration: float = 15.0
    renew_deadline: float = 10.0
    retry_period: float = 2.0


class LeaderElector:
    def __init__(
        self,
        client: LeaseClient,
        settings: ElectionSettings,
        *,
        on_started: Callable[[], None],
        on_stopped: Callable[[], None],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._client = client
        self._settings = settings
        self._on_started = on_started
        self._on_stopped = on_stopped
        self._clock = clock
        self._observed: LeaseRecord | None = None
        self._observed_at = 0.0
        self._last_renew = 0.0
        self.leading = False
        self._failures = 0  # tries in a row that could not reach the Lease
        self._failing_since = 0.0
        self._said_at = float("-inf")
        metrics.IS_LEADER.set(0)

    def run(self, stop: threading.Event) -> None:
        while not stop.is_set():
            self.step()
            stop.wait(self._settings.retry_period)
        self.release()

    def step(self) -> None:
        """One try to acquire or renew; flips leadership when that changes it."""
        try:
            held = self._try_acquire_or_renew()
        except Exception as err:  # an unreachable API server is a failed renewal, nothing more
            self._failed(err)
            held = False
        else:
            self._reached()
        now = self._clock()
        if held:
            self._last_renew = now
            if not self.leading:
                self._flip(True)
        elif self.leading and now - self._last_renew > self._settings.renew_deadline:
            self._flip(False)

    def _failed(self, err: Exception) -> None:
        now = self._clock()
        if not self._failures:
            self._failing_since = now
        self._failures += 1
        if now - self._said_at < SAY_AGAIN_SECONDS:
            return
        self._said_at = now
        lasted = now - self._failing_since
        tries = f"{self._failures} tries in a row, for {lasted:.0f}s; " if lasted else ""
        log.warning(
            "lease %s: cannot reach it: %s (%sretrying every %gs)",
            self._settings.identity, cause(err), tries, self._settings.retry_period,
        )  # fmt: skip

    def _reached(self) -> None:
        if not self._failures:
            return
        log.info(
            "lease %s: reached again after %d failed tries over %.0fs",
            self._settings.identity, self._failures, self._clock() - self._failing_since,
        )  # fmt: skip
        self._failures, self._said_at = 0, float("-inf")

    def _flip(self, leading: bool) -> None:
        self.leading = leading
        metrics.IS_LEADER.set(1 if leading else 0)
        metrics.TRANSITIONS.inc()
        log.info("%s leadership (%s)", "took" if leading else "lost", self._settings.identity)
        (self._on_started if leading else self._on_stopped)()

    def _try_acquire_or_renew(self) -> bool:
        me, duration = self._settings.identity, int(self._settings.lease_duration)
        record = self._client.get()
        if record is None:
            return self._client.create(LeaseRecord(me, duration, "", 0))
        self._observe(record)
        if record.holder and record.holder != me and not self._expired():
            return False
        transitions = record.transitions + (record.holder != me)
        return self._client.update(
            replace(record, holder=me, duration_seconds=duration, transitions=transitions)
        )

    def _observe(self, record: LeaseRecord) -> None:
        seen = self._observed
        if seen is None or (seen.holder, seen.renew_time) != (record.holder, record.renew_time):
            self._observed, self._observed_at = record, self._clock()

    def _expired(self) -> bool:
        assert self._observed is not None
        return self._clock() > self._observed_at + self._observed.duration_seconds

    def release(self) -> None:
        """Give the Lease up at shutdown so a standby takes over at once, not after expiry."""
        if not self.leading:
            return
        try:
            record = self._client.get()
            if record is not None and record.holder == self._settings.identity:
                self._client.update(replace(record, holder="", duration_seconds=1))
        except Exception as err:
            log.warning("lease release failed: %s", err)
        self._flip(False)

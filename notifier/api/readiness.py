"""``Readiness``: the readiness checks run, with since when each failing one has failed.

/readyz and the page's banner both ask it, so they say the same thing: a
verdict first ("ready", or "not ready: watch-open-Pod since 02:41:07Z"),
then every check. A check's failure is dated the first time it was seen
failing (by a probe, a scrape of /readyz or a view of the page, every few
seconds while anyone looks) and forgotten once it passes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from notifier.api.checks import Check, CheckResult, run_checks


@dataclass(frozen=True, slots=True)
class Failing:
    """A failing check and when it was first seen failing (wall clock)."""

    name: str
    detail: str
    since: float


@dataclass(frozen=True, slots=True)
class Verdict:
    results: tuple[CheckResult, ...]
    failing: tuple[Failing, ...]  # longest failing first

    @property
    def ready(self) -> bool:
        return not self.failing

    @property
    def since(self) -> float | None:
        """When the oldest failure began (None when ready)."""
        return self.failing[0].since if self.failing else None

    def words(self) -> str:
        """``ready``, or ``not ready: NAME since TIME`` (and how many others fail)."""
        if not self.failing:
            return "ready"
        first = self.failing[0]
        others = len(self.failing) - 1
        more = f" (and {others} more)" if others else ""
        return f"not ready: {first.name} since {clock_time(first.since)}{more}"


def clock_time(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class Readiness:
    """The readiness checks of ``checks()`` (as they are at each call), with their history."""

    def __init__(
        self, checks: Callable[[], Sequence[Check]], clock: Callable[[], float] = time.time
    ) -> None:
        self._checks, self._clock = checks, clock
        self._since: dict[str, float] = {}
        self._lock = threading.Lock()

    def verdict(self) -> Verdict:
        results = tuple(run_checks(self._checks()))
        now = self._clock()
        with self._lock:
            failing_names = {r.name for r in results if not r.ok}
            for name in set(self._since) - failing_names:
                del self._since[name]
            since = {name: self._since.setdefault(name, now) for name in failing_names}
        failing = [Failing(r.name, r.detail, since[r.name]) for r in results if not r.ok]
        failing.sort(key=lambda f: f.since)  # stable: the checks' order among equals
        return Verdict(results, tuple(failing))

"""The readiness verdict: one line first, each failure dated from when it was first seen."""

from __future__ import annotations

from collections.abc import Callable

from notifier.api.checks import Check, flag
from notifier.api.readiness import Readiness


def test_each_failure_keeps_the_time_it_began_until_it_passes() -> None:
    now = [100.0]
    failing: set[str] = set()

    def passing(name: str) -> Callable[[], bool]:
        return lambda: name not in failing

    def checks() -> list[Check]:
        return [flag(name, passing(name), f"{name} fails")
                for name in ("config", "watch-open-Pod", "synced-Pod")]  # fmt: skip

    readiness = Readiness(checks, clock=lambda: now[0])
    assert readiness.verdict().words() == "ready" and readiness.verdict().since is None
    failing.add("watch-open-Pod")
    now[0] = 160.0
    readiness.verdict()
    failing.add("config")
    now[0] = 200.0
    verdict = readiness.verdict()
    assert [(f.name, f.since) for f in verdict.failing] == [("watch-open-Pod", 160.0),
                                                            ("config", 200.0)]  # fmt: skip
    assert verdict.words() == "not ready: watch-open-Pod since 1970-01-01T00:02:40Z (and 1 more)"
    assert len(verdict.results) == 3 and not verdict.ready
    failing.discard("watch-open-Pod")
    readiness.verdict()
    failing.add("watch-open-Pod")
    now[0] = 300.0
    assert readiness.verdict().failing[1].since == 300.0  # a new failure, a new time


def test_a_check_that_raises_is_a_failing_check() -> None:
    def broken() -> bool:
        raise RuntimeError("boom")

    verdict = Readiness(lambda: [flag("delivery", broken, "")], clock=lambda: 1.0).verdict()
    assert verdict.words() == "not ready: check since 1970-01-01T00:00:01Z"
    assert "boom" in verdict.failing[0].detail

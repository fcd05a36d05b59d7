"""The elector's log while the API server cannot be reached: the first failure in words,
then a line each SAY_AGAIN_SECONDS at the most, and one when it is reached again."""

from __future__ import annotations

import logging

import pytest
import urllib3.exceptions

from notifier.leadership.electing import SAY_AGAIN_SECONDS, ElectionSettings, LeaderElector
from notifier.leadership.lease import LeaseRecord


class Lease:
    def __init__(self) -> None:
        self.down = False
        self.record: LeaseRecord | None = None

    def _reached(self) -> None:
        if self.down:
            refused = ConnectionRefusedError(111, "Connection refused")
            raise urllib3.exceptions.MaxRetryError(None, "/apis/coordination.k8s.io", refused)  # type: ignore[arg-type]

    def get(self) -> LeaseRecord | None:
        self._reached()
        return self.record

    def create(self, record: LeaseRecord) -> bool:
        self._reached()
        self.record = record
        return True

    def update(self, record: LeaseRecord) -> bool:
        self._reached()
        self.record = record
        return True


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_an_unreachable_lease_is_said_once_a_round_not_once_a_try(
    caplog: pytest.LogCaptureFixture,
) -> None:
    lease, clock = Lease(), Clock()
    elector = LeaderElector(
        lease,
        ElectionSettings(identity="pod-a"),
        on_started=lambda: None,
        on_stopped=lambda: None,
        clock=clock,
    )
    elector.step()
    assert elector.leading
    lease.down = True
    with caplog.at_level(logging.INFO, logger="notifier.leadership"):
        for _ in range(int(2 * SAY_AGAIN_SECONDS / 2) + 1):  # a try every 2 s for 60 s
            elector.step()
            clock.now += 2
        lease.down = False
        elector.step()
    lines = [r.getMessage() for r in caplog.records]
    failed = [line for line in lines if "cannot reach it" in line]
    assert len(failed) == 3, lines  # at 0 s, 30 s and 60 s
    assert failed[0] == "lease pod-a: cannot reach it: connection refused (retrying every 2s)"
    assert "31 tries in a row, for 60s" in failed[-1]
    assert "lease pod-a: reached again after 31 failed tries over 62s" in lines
    assert lines[-1] == "took leadership (pod-a)"
    assert elector.leading

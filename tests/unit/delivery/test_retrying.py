from __future__ import annotations

import random

import pytest

from notifier.delivery.pacing import Pacer
from notifier.delivery.retrying import RetryPolicy
from tests.unit.state.helpers import FakeClock


def policy(seed: int = 1) -> RetryPolicy:
    return RetryPolicy(initial=1.0, maximum=30.0, max_retry_after=60.0, rng=random.Random(seed))


@pytest.mark.parametrize(
    ("attempts", "low", "high"),
    [
        (1, 0.5, 1.0),
        (2, 1.0, 2.0),
        (3, 2.0, 4.0),
        (5, 8.0, 16.0),
        (6, 15.0, 30.0),
        (500, 15.0, 30.0),
    ],
)
def test_backoff_doubles_with_jitter_up_to_the_maximum(
    attempts: int, low: float, high: float
) -> None:
    delays = [policy(seed).delay(attempts) for seed in range(200)]

    assert all(low <= delay <= high for delay in delays)
    assert max(delays) - min(delays) > (high - low) / 2, "delays must be spread out"


def test_retry_after_replaces_the_backoff_within_its_cap() -> None:
    assert policy().delay(1, retry_after=3.0) == 3.0
    assert policy().delay(9, retry_after=0.0) == 0.0
    assert policy().delay(1, retry_after=3600.0) == 60.0


def test_pacer_spaces_claims_by_the_interval() -> None:
    clock = FakeClock(0.0)
    pacer = Pacer(clock)

    assert pacer.claim("slack:#ops", 1.0) == 0.0
    assert pacer.claim("slack:#ops", 1.0) == 1.0
    assert pacer.claim("slack:#dev", 1.0) == 0.0, "groups are independent"
    clock.now = 1.0
    assert pacer.claim("slack:#ops", 1.0) == 0.0


def test_a_hold_delays_the_whole_group_and_never_shortens() -> None:
    clock = FakeClock(0.0)
    pacer = Pacer(clock)
    pacer.hold("hook", 3.0)
    pacer.hold("hook", 2.0)

    assert pacer.claim("hook", 0.0) == 3.0
    clock.now = 3.0
    assert pacer.claim("hook", 0.0) == 0.0

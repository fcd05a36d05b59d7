"""Backoff for list/watch failures: 0.8 s doubling to 30 s, jittered, reset after 120 quiet s."""

from __future__ import annotations

import pytest

from notifier.source.backoff import Backoff

DOUBLING = [0.8, 1.6, 3.2, 6.4, 12.8, 25.6, 30.0, 30.0, 30.0]


class Clock:
    """Seconds that move only when a test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Draws:
    """A stand-in for random.random that always draws the same number."""

    def __init__(self, value: float) -> None:
        self.value = value

    def __call__(self) -> float:
        return self.value


def _backoff(clock: Clock, rand: float = 0.0) -> Backoff:
    return Backoff(clock=clock, rand=Draws(rand))


def _failures(backoff: Backoff, clock: Clock, count: int, gap: float = 1.0) -> list[float]:
    """``count`` failures, ``gap`` seconds apart (well under the reset time)."""
    delays = []
    for _ in range(count):
        delays.append(backoff.next_delay())
        clock.now += gap
    return delays


def test_without_jitter_the_delay_starts_at_800ms_and_doubles_to_the_cap() -> None:
    clock = Clock()
    assert _failures(_backoff(clock), clock, len(DOUBLING)) == pytest.approx(DOUBLING)


@pytest.mark.parametrize("draw", [0.0, 0.25, 0.5, 0.999999])
def test_jitter_adds_up_to_half_the_delay_and_never_passes_the_cap(draw: float) -> None:
    clock = Clock()
    delays = _failures(_backoff(clock, draw), clock, len(DOUBLING))
    for base, delay in zip(DOUBLING, delays, strict=True):
        jittered = base * (1 + 0.5 * draw)
        expected = jittered if jittered <= 30.0 else 30.0 * (1 - 0.25 * draw)
        assert delay == pytest.approx(expected)
        assert delay <= 30.0


def test_at_the_cap_failures_together_do_not_retry_together() -> None:
    delays = []
    for draw in (0.0, 0.3, 0.6, 0.9):
        clock = Clock()
        delays.append(_failures(_backoff(clock, draw), clock, len(DOUBLING))[-1])
    assert delays[0] == 30.0
    assert len(set(delays)) == 4 and min(delays) >= 22.5


def test_highest_jitter_on_the_first_failure_stays_under_one_second_and_a_fifth() -> None:
    clock = Clock()
    assert 1.19 < _backoff(clock, 0.999999).next_delay() < 1.2


def test_the_delay_starts_over_after_120_quiet_seconds() -> None:
    clock = Clock()
    backoff = _backoff(clock)
    _failures(backoff, clock, 7)  # at the cap now
    clock.now += 120  # 121 s since the last failure
    assert _failures(backoff, clock, 3) == pytest.approx([0.8, 1.6, 3.2])


def test_fewer_than_120_quiet_seconds_keep_the_delay_growing() -> None:
    clock = Clock()
    backoff = _backoff(clock)
    _failures(backoff, clock, 3)
    clock.now += 118  # 119 s since the last failure
    assert backoff.next_delay() == pytest.approx(6.4)


def test_quiet_time_is_counted_from_the_latest_failure_not_the_first() -> None:
    clock = Clock()
    backoff = _backoff(clock)
    # A failure every 100 s: 400 s in all, but never 120 s without one.
    assert _failures(backoff, clock, 5, gap=100.0) == pytest.approx(DOUBLING[:5])


def test_settings_other_than_the_defaults_are_honoured() -> None:
    clock = Clock()
    backoff = Backoff(initial=0.2, cap=1.0, reset_after=5.0, jitter=0.0, clock=clock)
    assert _failures(backoff, clock, 4) == pytest.approx([0.2, 0.4, 0.8, 1.0])
    clock.now += 5  # 6 s since the last failure
    assert backoff.next_delay() == pytest.approx(0.2)

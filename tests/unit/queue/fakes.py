"""Test doubles for the queue tests: a hand-moved clock and unique queue names."""

from __future__ import annotations

import itertools

_names = itertools.count()


class FakeClock:
    """Seconds that move only when a test says so."""

    def __init__(self, now: float = 0.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def unique_name(prefix: str = "test") -> str:
    """A queue name no other test uses, so metric samples are this test's alone."""
    return f"{prefix}-{next(_names)}"

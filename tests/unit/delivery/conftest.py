"""Fixtures of the delivery tests (``server`` and ``store`` are in tests/unit/conftest.py)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from notifier.delivery import Delivery


@pytest.fixture
def stoppers() -> Iterator[list[Delivery]]:
    """Deliveries a test started; stopped after it."""
    started: list[Delivery] = []
    yield started
    for delivery in started:
        delivery.stop(time.monotonic() + 1)

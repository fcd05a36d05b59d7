"""Fixtures of the delivery tests: a loopback receiver, a state store, deliveries to stop."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from notifier.delivery import Delivery
from notifier.state import StateStore
from tests.support.webhook_server import WebhookServer
from tests.unit.state.helpers import open_store


@pytest.fixture
def server() -> Iterator[WebhookServer]:
    with WebhookServer() as running:
        yield running


@pytest.fixture
def store(tmp_path: Path) -> Iterator[StateStore]:
    opened = open_store(tmp_path / "state.db")
    yield opened
    opened.close()


@pytest.fixture
def stoppers() -> Iterator[list[Delivery]]:
    started: list[Delivery] = []
    yield started
    for delivery in started:
        delivery.stop(time.monotonic() + 1)

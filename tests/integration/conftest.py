"""Fixtures shared by the integration tests (the control plane ones are in tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.webhook_server import WebhookServer


@pytest.fixture
def receiver() -> Iterator[WebhookServer]:
    """A real webhook receiver on 127.0.0.1, stopped after the test."""
    with WebhookServer() as server:
        yield server

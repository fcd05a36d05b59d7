"""Fixtures shared by the unit tests: a loopback webhook receiver and a state store."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from notifier.state import StateStore
from tests.controlplane.processes import free_port
from tests.support.webhook_server import WebhookServer
from tests.unit.state.helpers import open_store


@pytest.fixture
def server() -> Iterator[WebhookServer]:
    """A webhook receiver on 127.0.0.1, stopped after the test."""
    with WebhookServer() as running:
        yield running


@pytest.fixture
def store(tmp_path: Path) -> Iterator[StateStore]:
    """A state store on a fresh file, open for the whole test (as the service holds it)."""
    opened = open_store(tmp_path / "state.db")
    yield opened
    opened.close()


@pytest.fixture
def taken() -> Iterator[int]:
    """A port someone else holds."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", free_port()))
        holder.listen()
        yield int(holder.getsockname()[1])

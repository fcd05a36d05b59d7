from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

from notifier.delivery import build_delivery
from notifier.sinks.config import SinkConfig
from tests.unit.delivery.harness import eventually
from tests.unit.sinks.factories import notification
from tests.unit.state.helpers import open_store

configs: TypeAdapter[list[Any]] = TypeAdapter(list[SinkConfig])


def test_builds_enabled_sinks_and_delivers_through_the_outbox(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = open_store(tmp_path / "state.db")
    delivery = build_delivery(
        configs.validate_python(
            [
                {"type": "console", "name": "console"},
                {"type": "webhook", "name": "off", "url": "http://127.0.0.1:9/", "enabled": False},
            ]
        ),
        state=store,
    )
    assert not delivery.running

    delivery.start()
    assert delivery.running
    delivery.submit(notification("console", text="web-1 is Running"))
    delivery.submit(notification("off"))  # disabled: not built, so an unknown sink
    eventually(lambda: "web-1 is Running" in capsys.readouterr().out)
    assert delivery.stop(time.monotonic() + 2)
    assert not delivery.running
    store.flush()
    assert store.outbox.pending_by_sink() == {}
    store.close()


def test_without_state_it_still_delivers(capsys: pytest.CaptureFixture[str]) -> None:
    delivery = build_delivery(
        configs.validate_python([{"type": "console", "name": "console"}]), state=None
    )
    delivery.start()

    delivery.submit(notification("console", text="hello"))

    eventually(lambda: "[console] hello" in capsys.readouterr().out)
    delivery.stop(time.monotonic() + 1)

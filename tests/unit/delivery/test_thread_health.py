"""Every long-lived thread survives what it expects or shows in health; a stuck sink shows too."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from prometheus_client import REGISTRY

from notifier.delivery import Delivery
from notifier.service.health import _stuck, _threads
from notifier.supervision import crashed, forget_crashes, supervised
from tests.support.slack_server import SlackServer
from tests.unit.delivery.harness import eventually, slack_target, unique
from tests.unit.sinks.factories import notification
from tests.unit.state.helpers import open_store


@pytest.fixture
def slack() -> Iterator[SlackServer]:
    with SlackServer() as server:
        yield server


def test_a_slack_error_with_a_lone_surrogate_is_dead_lettered_and_delivery_goes_on(
    slack: SlackServer, tmp_path: Path
) -> None:
    name = unique("slack")
    store = open_store(tmp_path / "s.db")
    slack.fail("bad \ud800 channel")  # the JSON reply carries "\ud800": Python keeps it as is
    delivery = Delivery([slack_target(slack, name)], outbox=store.outbox)
    delivery.start()
    try:
        delivery.submit(notification(name, key="Pod/default/first", text="first"))
        eventually(lambda: store.dead_letters.count() == 1)
        delivery.submit(notification(name, key="Pod/default/second", text="second"))
        eventually(lambda: [m.text for m in slack.messages()] == ["second"])
    finally:
        delivery.stop(time.monotonic() + 1)
    assert store.healthy
    [letter] = store.dead_letters.recent()
    assert "bad \ufffd channel" in letter.detail
    store.close()


def test_the_state_writer_outlives_a_write_that_raises_anything(tmp_path: Path) -> None:
    store = open_store(tmp_path / "s.db")

    def hostile(_conn: object) -> None:
        raise UnicodeEncodeError("utf-8", "\ud800", 0, 1, "surrogates not allowed")

    store._writer.submit(hostile)
    assert store.flush(5)
    store.threads.remember_thread("scope", "key", "1.2")
    assert store.flush(5) and store.healthy
    assert store.threads.thread_ts("scope", "key") == "1.2"
    store.close()


def test_a_thread_that_dies_unexpectedly_fails_liveness_with_its_reason() -> None:
    forget_crashes()
    assert _threads().ok

    def body() -> None:
        raise RuntimeError("boom")

    thread = threading.Thread(target=supervised("doomed", body))
    thread.start()
    thread.join(5)
    result = _threads()
    assert not result.ok and "doomed died (RuntimeError: boom)" in result.detail
    assert "doomed" in crashed()
    forget_crashes()


def test_a_send_in_flight_past_its_bound_is_reported_stuck(
    slack: SlackServer, caplog: pytest.LogCaptureFixture
) -> None:
    name = unique("slack")
    slack.hang()
    delivery = Delivery([slack_target(slack, name, stuck_after_seconds=0.3)], outbox=None)
    delivery.start()
    try:
        delivery.submit(notification(name, key="Pod/default/web"))
        eventually(lambda: name in delivery.stuck_sinks())
        result = _stuck(delivery)
        assert not result.ok and f"{name}: a send in flight for" in result.detail
        labels = {"integration": "slack", "sink": name}
        longest = REGISTRY.get_sample_value("kube_notifier_delivery_longest_send_seconds", labels)
        assert longest is not None and longest > 0.3
        assert f"sink {name}: a send has been in flight for" in caplog.text
    finally:
        slack.go_down()  # releases the hung request
        delivery.stop(time.monotonic() + 1)

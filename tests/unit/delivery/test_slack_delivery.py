"""Delivery to a loopback Slack: Retry-After, pacing, permanent errors, threads across restarts."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from notifier.delivery import Delivery
from tests.support.slack_server import SlackServer
from tests.unit.delivery.harness import eventually, metric, slack_target, unique
from tests.unit.sinks.factories import notification
from tests.unit.state.helpers import open_store


@pytest.fixture
def slack() -> Iterator[SlackServer]:
    with SlackServer() as server:
        yield server


def test_a_burst_meeting_429_waits_out_retry_after_then_all_arrive(slack: SlackServer) -> None:
    name = unique("slack")
    slack.rate_limit(retry_after=3)
    delivery = Delivery([slack_target(slack, name)], outbox=None)
    delivery.start()
    notes = [notification(name, key=f"Pod/default/web-{n}", text=f"#{n}") for n in range(5)]

    for note in notes:
        delivery.submit(note)
    slack.wait_for_count(6, timeout=15)
    delivery.stop(time.monotonic() + 1)

    limited, *accepted = slack.received()
    assert limited.status == 429 and all(r.status == 200 for r in accepted)
    assert min(r.arrived_at for r in accepted) - limited.arrived_at >= 3.0
    assert sorted(m.text for m in slack.messages()) == sorted(
        note.facts["summary"] for note in notes
    )
    assert metric("failed_total", name, "slack", reason="rate_limited") == 1


def test_posts_to_one_channel_are_paced(slack: SlackServer) -> None:
    name = unique("slack")
    delivery = Delivery([slack_target(slack, name, min_interval_seconds=0.3)], outbox=None)
    delivery.start()

    for n in range(4):
        delivery.submit(notification(name, key=f"Pod/default/web-{n}"))
    requests = slack.wait_for_count(4)
    delivery.stop(time.monotonic() + 1)

    arrivals = [r.arrived_at for r in requests]
    gaps = [later - earlier for earlier, later in itertools.pairwise(arrivals)]
    # Sends start 0.3 s apart; arrival times add a little network jitter either way.
    assert min(gaps) >= 0.25
    assert arrivals[-1] - arrivals[0] >= 0.85


def test_channel_not_found_is_not_retried_and_is_counted(slack: SlackServer) -> None:
    name = unique("slack")
    slack.fail("channel_not_found")
    delivery = Delivery([slack_target(slack, name)], outbox=None)
    delivery.start()

    delivery.submit(notification(name))
    eventually(
        lambda: metric("dead_lettered_total", name, "slack", reason="channel_not_found") == 1
    )
    time.sleep(0.3)
    delivery.stop(time.monotonic() + 1)

    assert len(slack.received()) == 1
    assert metric("retried_total", name, "slack") == 0


def test_threads_continue_after_a_restart(slack: SlackServer, tmp_path: Path) -> None:
    name = unique("slack")

    def run_once_and_post(text: str) -> None:
        store = open_store(tmp_path / "state.db")
        delivery = Delivery([slack_target(slack, name, threads=store.threads)], outbox=store.outbox)
        delivery.start()
        delivery.submit(notification(name, text=text, thread_key="Pod/default/web-1"))
        eventually(lambda: text in [message.text for message in slack.messages()])
        delivery.stop(time.monotonic() + 2)
        store.close()

    run_once_and_post("first")
    run_once_and_post("second")

    first, second = slack.messages()
    assert first.thread_ts is None
    assert second.thread_ts == first.ts

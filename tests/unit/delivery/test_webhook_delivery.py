"""Delivery to real loopback webhook receivers that fail, hang and go down."""

from __future__ import annotations

import logging
import time

import pytest

from notifier.delivery import Delivery
from notifier.state import StateStore
from tests.support.webhook_server import HANG, ReceivedRequest, WebhookServer
from tests.unit.delivery.harness import (
    all_delivered,
    burst,
    delivered_ids,
    eventually,
    expected_per_key,
    ids_per_key,
    metric,
    started,
    unique,
    webhook_target,
)
from tests.unit.sinks.factories import key_of, notification


def test_receiver_down_then_up_gets_everything_in_order_per_object(
    server: WebhookServer, store: StateStore, stoppers: list[Delivery]
) -> None:
    name = unique("hook")
    server.go_down()
    delivery = started(stoppers, Delivery([webhook_target(server.url, name)], outbox=store.outbox))
    notes = burst(name, 24, keys=4)
    for note in notes:
        delivery.submit(note)
    time.sleep(1.5)
    server.answer(503, times=5)  # the first ones back are refused once more: real repeats
    server.come_up()

    requests = server.wait_for(all_delivered(notes), timeout=15)

    assert sorted(delivered_ids(requests)) == sorted(note.id for note in notes)
    assert ids_per_key(requests) == expected_per_key(notes)
    assert_repeats_share_their_key(requests)
    assert sum(1 for r in requests if r.status == 503) == 5


def assert_repeats_share_their_key(requests: list[ReceivedRequest]) -> None:
    bodies: dict[str, bytes] = {}
    for request in requests:
        key = request.header("Idempotency-Key") or ""
        assert bodies.setdefault(key, request.body) == request.body


def test_server_errors_are_retried_until_success(
    server: WebhookServer, stoppers: list[Delivery]
) -> None:
    name = unique("hook")
    server.answer(500, times=3)
    delivery = started(stoppers, Delivery([webhook_target(server.url, name)], outbox=None))
    note = notification(name)

    delivery.submit(note)
    requests = server.wait_for(lambda rs: delivered_ids(rs) == [note.id])
    eventually(lambda: metric("sent_total", name) == 1)  # the server records before we hear back

    assert [r.status for r in requests] == [500, 500, 500, 200]
    assert {r.header("Idempotency-Key") for r in requests} == {note.id}
    assert metric("failed_total", name, reason="http_500") == 3
    assert metric("retried_total", name) == 3
    assert metric("latency_seconds_count", name) == 1
    failed = delivery.failures.recent(10)  # newest first, for the page
    assert [(f.sink, f.reason, f.attempt) for f in failed] == [
        (name, "http_500", n) for n in (3, 2, 1)
    ]
    assert failed[0].ordering_key == note.ordering_key


def test_a_bad_request_is_dead_lettered_at_once(
    server: WebhookServer,
    store: StateStore,
    stoppers: list[Delivery],
    caplog: pytest.LogCaptureFixture,
) -> None:
    name = unique("hook")
    server.answer(400)
    delivery = started(stoppers, Delivery([webhook_target(server.url, name)], outbox=store.outbox))
    note = notification(name)

    with caplog.at_level(logging.WARNING, logger="notifier.delivery"):
        delivery.submit(note)
        eventually(lambda: metric("dead_lettered_total", name, reason="http_400") == 1)
        store.flush()

    time.sleep(0.3)
    assert len(server.received()) == 1
    assert metric("retried_total", name) == 0
    assert metric("failed_total", name, reason="http_400") == 1
    (letter,) = store.dead_letters.recent()
    assert (letter.notification_id, letter.reason, letter.attempts) == (note.id, "http_400", 1)
    assert store.outbox.count_pending(name) == 0
    assert f"gave up on notification {note.id}" in caplog.text


def test_a_hanging_sink_does_not_slow_the_other(stoppers: list[Delivery]) -> None:
    with WebhookServer() as stuck, WebhookServer() as healthy:
        stuck.answer(HANG, times=None)
        stuck_name, healthy_name = unique("stuck"), unique("healthy")
        targets = [
            webhook_target(stuck.url, stuck_name, read_timeout=3.0),
            webhook_target(healthy.url, healthy_name),
        ]
        delivery = started(stoppers, Delivery(targets, outbox=None))
        for note in burst(stuck_name, 6, keys=6):
            delivery.submit(note)
        stuck.wait_for_count(2)  # both of its threads are now stuck

        submitted_at = time.monotonic()
        fine = burst(healthy_name, 30, keys=10)
        for note in fine:
            delivery.submit(note)
        requests = healthy.wait_for(all_delivered(fine), timeout=5)

        assert max(r.arrived_at for r in requests) - submitted_at < 1.0
        assert metric("sent_total", stuck_name) == 0
        delivery.stop(time.monotonic())


def test_a_key_being_retried_blocks_only_itself(
    server: WebhookServer, stoppers: list[Delivery]
) -> None:
    name = unique("hook")
    server.answer(500, times=4, when=lambda r: key_of(r.json()) == "Pod/default/bad")
    delivery = started(
        stoppers,
        Delivery([webhook_target(server.url, name, backoff_initial_seconds=0.1)], outbox=None),
    )
    bad = [notification(name, key="Pod/default/bad") for _ in range(2)]
    good = [notification(name, key=f"Pod/default/good-{n}") for n in range(6)]
    for note in (bad[0], *good[:3], bad[1], *good[3:]):
        delivery.submit(note)

    requests = server.wait_for(all_delivered([*bad, *good]))

    order = delivered_ids(requests)
    assert order.index(bad[0].id) > max(order.index(note.id) for note in good)
    assert order.index(bad[1].id) > order.index(bad[0].id)


def test_too_many_attempts_end_in_a_dead_letter(
    server: WebhookServer, store: StateStore, stoppers: list[Delivery]
) -> None:
    name = unique("hook")
    server.answer(502, times=None)
    target = webhook_target(server.url, name, max_attempts=3)
    delivery = started(stoppers, Delivery([target], outbox=store.outbox))

    delivery.submit(notification(name))
    eventually(lambda: metric("dead_lettered_total", name, reason="max_attempts") == 1)
    store.flush()

    assert len(server.received()) == 3
    (letter,) = store.dead_letters.recent()
    assert (letter.reason, letter.attempts) == ("max_attempts", 3)
    assert "http_502" in letter.detail


def test_notifications_too_old_to_matter_are_not_sent(
    server: WebhookServer, stoppers: list[Delivery]
) -> None:
    name = unique("hook")
    delivery = started(
        stoppers, Delivery([webhook_target(server.url, name, max_age_seconds=60)], outbox=None)
    )

    delivery.submit(notification(name, observed_at=time.time() - 120))
    eventually(lambda: metric("dead_lettered_total", name, reason="max_age") == 1)

    assert server.received() == []


def test_a_retry_that_would_land_too_late_gives_up_early(
    server: WebhookServer, stoppers: list[Delivery]
) -> None:
    name = unique("hook")
    server.answer(500)
    target = webhook_target(
        server.url, name, max_age_seconds=5, backoff_initial_seconds=30, backoff_max_seconds=60
    )
    delivery = started(stoppers, Delivery([target], outbox=None))

    delivery.submit(notification(name))
    eventually(lambda: metric("dead_lettered_total", name, reason="max_age") == 1)

    assert len(server.received()) == 1

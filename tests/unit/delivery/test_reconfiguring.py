"""Sinks changed while running (a config reload): added, retargeted, removed, added back."""

from __future__ import annotations

import time

from notifier.delivery import Delivery
from notifier.delivery.delivery import SinkChanges
from notifier.state import StateStore
from tests.support.webhook_server import WebhookServer
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
from tests.unit.sinks.factories import notification


def test_an_added_sink_starts_and_delivers(server: WebhookServer, stoppers: list[Delivery]) -> None:
    first, added = unique("hook"), unique("hook")
    delivery = started(stoppers, Delivery([webhook_target(server.url, first)], outbox=None))

    delivery.apply(SinkChanges(added=(webhook_target(server.url, added),)))
    note = notification(added)
    delivery.submit(note)

    server.wait_for(lambda requests: delivered_ids(requests) == [note.id])
    assert delivery.running
    assert sorted(delivery.sink_names()) == sorted([first, added])


def test_a_changed_sink_keeps_its_queue_and_order_and_sends_to_its_new_url(
    server: WebhookServer, store: StateStore, stoppers: list[Delivery]
) -> None:
    name = unique("hook")
    with WebhookServer() as moved:
        server.answer(503, times=None)  # the old address refuses all: everything stays queued
        delivery = started(
            stoppers, Delivery([webhook_target(server.url, name)], outbox=store.outbox)
        )
        notes = burst(name, 20, keys=3)
        for note in notes:
            delivery.submit(note)
        eventually(lambda: metric("retried_total", name) >= 3)

        delivery.apply(SinkChanges(changed=(webhook_target(moved.url, name),)))

        requests = moved.wait_for(all_delivered(notes), timeout=15)
        assert sorted(delivered_ids(requests)) == sorted(note.id for note in notes)
        assert ids_per_key(requests) == expected_per_key(notes)
        assert delivered_ids(server.received()) == []
        eventually(lambda: pending(store, name) == 0)  # deleted once the 200 is read


def test_a_removed_sink_sends_what_it_holds_then_stops(
    server: WebhookServer, stoppers: list[Delivery]
) -> None:
    kept, removed = unique("hook"), unique("hook")
    server.answer(503, times=6)  # the first attempts fail: the removed sink still holds work
    targets = [webhook_target(server.url, kept), webhook_target(server.url, removed)]
    delivery = started(stoppers, Delivery(targets, outbox=None))
    held = burst(removed, 6, keys=2)
    for note in held:
        delivery.submit(note)
    eventually(lambda: metric("retried_total", removed) >= 1)

    unknown_before = metric("dropped_total", "unknown", "unknown", reason="unknown_sink")
    delivery.apply(SinkChanges(removed=(removed,)))
    late = notification(removed)  # rendered under the old rules, submitted after the reload
    delivery.submit(late)

    server.wait_for(all_delivered(held), timeout=15)
    assert delivery.sink_names() == [kept]
    assert delivery.running
    assert late.id not in delivered_ids(server.received())
    assert metric("dropped_total", removed, reason="stopped") == 1
    assert metric("dropped_total", "unknown", "unknown", reason="unknown_sink") == unknown_before


def test_a_sink_removed_and_added_back_sends_each_notification_once(
    server: WebhookServer, store: StateStore, stoppers: list[Delivery]
) -> None:
    name = unique("hook")
    with WebhookServer() as back:
        server.answer(503, times=None)  # the removed sink cannot drain: work stays in the outbox
        delivery = started(
            stoppers, Delivery([webhook_target(server.url, name)], outbox=store.outbox)
        )
        notes = burst(name, 10, keys=2)
        for note in notes:
            delivery.submit(note)
        eventually(lambda: metric("retried_total", name) >= 2)

        delivery.apply(SinkChanges(removed=(name,)))
        delivery.apply(SinkChanges(added=(webhook_target(back.url, name),)))
        server.clear_answers()  # an old runner still at work would now deliver there

        requests = back.wait_for(all_delivered(notes), timeout=15)
        time.sleep(0.5)
        assert delivered_ids(server.received()) == []
        assert sorted(delivered_ids(back.received())) == sorted(note.id for note in notes)
        assert ids_per_key(requests) == expected_per_key(notes)


def pending(store: StateStore, sink: str) -> int:
    store.flush()
    return store.outbox.count_pending(sink)

"""Delivery through the outbox: full queues, stops, and a process killed mid-way."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from notifier.delivery import Delivery
from notifier.delivery.runner import IDLE_WAIT_SECONDS
from notifier.notifications import Notification
from tests.support.webhook_server import HANG, WebhookServer
from tests.unit.delivery.crashing_submitter import crash_key
from tests.unit.delivery.harness import (
    all_delivered,
    burst,
    delivered_ids,
    eventually,
    expected_per_key,
    ids_per_key,
    metric,
    unique,
    webhook_target,
)
from tests.unit.sinks.factories import notification
from tests.unit.state.helpers import open_store

REPO = Path(__file__).resolve().parents[3]


def wait_delivered(server: WebhookServer, notes: list[Notification], timeout: float = 15) -> None:
    server.wait_for(all_delivered(notes), timeout)


def test_a_full_queue_spills_to_the_outbox_and_loads_back_in_order(
    server: WebhookServer, tmp_path: Path
) -> None:
    name = unique("hook")
    store = open_store(tmp_path / "state.db")
    server.go_down()
    delivery = Delivery([webhook_target(server.url, name, queue_size=4)], outbox=store.outbox)
    delivery.start()
    notes = burst(name, 30, keys=3)

    for note in notes:
        delivery.submit(note)
    store.flush()
    spilled = metric("spilled_total", name)
    server.come_up()
    wait_delivered(server, notes)
    delivery.stop(time.monotonic() + 1)
    store.close()

    assert spilled == 26
    assert ids_per_key(server.received()) == expected_per_key(notes)


def test_without_an_outbox_a_full_queue_drops_and_counts(server: WebhookServer) -> None:
    name = unique("hook")
    server.go_down()
    delivery = Delivery([webhook_target(server.url, name, queue_size=4)], outbox=None)
    delivery.start()

    for note in burst(name, 10, keys=2):
        delivery.submit(note)
    delivery.stop(time.monotonic() + 0.2)

    assert metric("dropped_total", name, reason="queue_full") == 6
    assert metric("dropped_total", name, reason="stopped") == 4


def test_stop_leaves_what_is_unsent_in_the_outbox_for_the_next_start(
    server: WebhookServer, tmp_path: Path
) -> None:
    name = unique("hook")
    notes = burst(name, 12, keys=3)
    server.go_down()
    store = open_store(tmp_path / "state.db")
    first = Delivery([webhook_target(server.url, name)], outbox=store.outbox)
    first.start()
    for note in notes:
        first.submit(note)
    store.flush()  # all queued, some retrying

    began = time.monotonic()
    drained = first.stop(began + 0.5)
    stopped_after = time.monotonic() - began
    late = notification(name, key="Pod/default/web-0")
    first.submit(late)  # after stop: kept for the next start
    store.close()

    server.come_up()
    store = open_store(tmp_path / "state.db")
    second = Delivery([webhook_target(server.url, name)], outbox=store.outbox)
    second.start()
    wait_delivered(server, [*notes, late])
    second.stop(time.monotonic() + 1)
    store.close()

    assert not drained
    assert stopped_after < 3.0
    assert ids_per_key(server.received()) == expected_per_key([*notes, late])


def test_the_outbox_survives_sigkill(server: WebhookServer, tmp_path: Path) -> None:
    name, db, count = unique("hook"), tmp_path / "state.db", 20
    server.answer(200, times=5)
    server.answer(HANG, times=None)
    child = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.unit.delivery.crashing_submitter",
            str(db),
            server.url,
            name,
            str(count),
        ],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "submitted"
        server.wait_for_count(6)  # five delivered, the sixth hangs
        eventually(lambda: outbox_rows(db) == count - 5)
    finally:
        child.kill()
        child.wait()
    server.clear_answers()

    store = open_store(db)
    delivery = Delivery([webhook_target(server.url, name)], outbox=store.outbox)
    delivery.start()
    everything = [f"{name}-{n}" for n in range(count)]
    server.wait_for(lambda requests: set(everything) <= set(delivered_ids(requests)))
    delivery.stop(time.monotonic() + 1)
    store.close()

    requests = server.received()
    assert sorted(delivered_ids(requests)) == sorted(everything), "each delivered exactly once"
    hung = requests[5]
    assert hung.status == 0 and hung.header("Idempotency-Key") == f"{name}-5"
    resent = [r for r in requests[6:] if r.header("Idempotency-Key") == f"{name}-5"]
    assert [r.body for r in resent] == [hung.body], "re-sent once, same key, same body"
    expected: dict[str, list[str]] = {}
    for n in range(count):
        expected.setdefault(crash_key(n), []).append(f"{name}-{n}")
    assert ids_per_key(requests) == expected


def outbox_rows(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT count(*) FROM outbox").fetchone()[0])


def test_an_idle_delivery_stops_without_waiting_out_its_senders_sleep(
    server: WebhookServer, tmp_path: Path
) -> None:
    """Idle senders wait in the queue without polling; a stop wakes them at once."""
    name = unique("hook")
    delivery = Delivery([webhook_target(server.url, name, concurrency=4)], outbox=None)
    delivery.start()
    note = notification(key="pod/a", sink=name)
    delivery.submit(note)
    wait_delivered(server, [note])

    began = time.monotonic()
    drained = delivery.stop(began + 3 * IDLE_WAIT_SECONDS)

    assert drained
    assert time.monotonic() - began < IDLE_WAIT_SECONDS  # not a sender's whole wait

from __future__ import annotations

import threading

from notifier.delivery.envelope import Envelope
from notifier.delivery.keyed_queue import KeyedQueue
from tests.unit.sinks.factories import notification
from tests.unit.state.helpers import FakeClock


def envelope(seq: int, key: str) -> Envelope:
    return Envelope(seq, notification(key=key, observed_at=100.0 + seq))


def take_all_ready(queue: KeyedQueue) -> list[int]:
    taken = []
    while (head := queue.take(0)) is not None:
        taken.append(head.seq)
    return taken


def test_one_key_at_a_time_in_order() -> None:
    queue = KeyedQueue(FakeClock())
    for seq in (1, 2, 3):
        queue.put(envelope(seq, "a"))

    first = queue.take(0)
    assert first is not None and first.seq == 1
    assert queue.take(0) is None, "the key is in flight"
    queue.done(first)
    second = queue.take(0)
    assert second is not None and second.seq == 2


def test_keys_take_turns() -> None:
    queue = KeyedQueue(FakeClock())
    for seq, key in enumerate("aabb", start=1):
        queue.put(envelope(seq, key))

    order = []
    while (head := queue.take(0)) is not None:
        order.append(head.seq)
        queue.done(head)

    assert order == [1, 3, 2, 4]


def test_a_key_waiting_to_retry_blocks_only_itself() -> None:
    clock = FakeClock()
    queue = KeyedQueue(clock)
    queue.put(envelope(1, "failing"))
    queue.put(envelope(2, "failing"))
    queue.put(envelope(3, "healthy"))

    head = queue.take(0)
    assert head is not None
    queue.retry_at(head, clock.now + 10)

    assert take_all_ready(queue) == [3]
    clock.now += 10
    assert take_all_ready(queue) == [1], "the same head comes back, never the one behind it"


def test_release_puts_the_key_first_in_line() -> None:
    queue = KeyedQueue(FakeClock())
    queue.put(envelope(1, "a"))
    queue.put(envelope(2, "b"))

    head = queue.take(0)
    assert head is not None
    queue.release(head)

    again = queue.take(0)
    assert again is not None and again.seq == 1


def test_size_and_oldest_observed_at() -> None:
    queue = KeyedQueue(FakeClock())
    queue.put(envelope(5, "a"))
    queue.put(envelope(2, "b"))
    queue.put(envelope(9, "b"))

    assert len(queue) == 3
    assert queue.oldest_observed_at() == 102.0
    head = queue.take(0)
    assert head is not None
    queue.done(head)
    assert len(queue) == 2


def test_take_wakes_up_for_a_put_and_close_releases_waiters() -> None:
    queue = KeyedQueue(FakeClock())
    results: list[Envelope | None] = []
    waiter = threading.Thread(target=lambda: results.append(queue.take(5)))
    waiter.start()
    queue.put(envelope(1, "a"))
    waiter.join(2)

    closer = threading.Thread(target=lambda: results.append(queue.take(5)))
    closer.start()
    queue.close()
    closer.join(2)

    assert [r.seq if r else None for r in results] == [1, None]


def test_drain_ends_waiting_takes_once_the_queue_is_empty() -> None:
    queue = KeyedQueue(FakeClock())
    queue.put(envelope(1, "a"))
    head = queue.take(0)
    assert head is not None
    results: list[Envelope | None] = []
    waiter = threading.Thread(target=lambda: results.append(queue.take(60)))
    waiter.start()

    queue.drain()  # the head is still in flight: the waiter keeps waiting for it
    waiter.join(0.2)
    assert waiter.is_alive() and results == []
    queue.done(head)  # the last one done: the drain is over
    waiter.join(10)

    assert not waiter.is_alive() and results == [None]
    assert queue.take(60) is None  # returns at once from now on


def test_drain_still_hands_out_what_is_queued() -> None:
    queue = KeyedQueue(FakeClock())
    queue.put(envelope(1, "a"))
    queue.put(envelope(2, "b"))
    queue.drain()

    assert take_all_ready(queue) == [1, 2]

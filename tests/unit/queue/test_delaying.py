"""DelayingQueue.add_after: contract clauses 6 and 9 (see notifier.queue)."""

from __future__ import annotations

import threading

from notifier.queue import DelayingQueue
from tests.unit.queue.fakes import FakeClock, unique_name


def _manual_queue(clock: FakeClock) -> DelayingQueue[str]:
    """A queue whose due keys move only when the test calls release_due."""
    return DelayingQueue(unique_name(), clock=clock, timer_thread=False)


def _queued(queue: DelayingQueue[str]) -> list[str]:
    keys = []
    while (key := queue.get(timeout=0)) is not None:
        keys.append(key)
        queue.done(key)
    return keys


def test_keys_are_released_in_due_order_once_due() -> None:
    clock = FakeClock()
    queue = _manual_queue(clock)
    queue.add_after("c", 3.0)
    queue.add_after("a", 1.0)
    queue.add_after("b", 2.0)
    clock.advance(0.5)
    assert queue.release_due() == 0
    clock.advance(1.5)
    assert queue.release_due() == 2
    assert _queued(queue) == ["a", "b"]
    clock.advance(1.0)
    assert queue.release_due() == 1
    assert _queued(queue) == ["c"]


def test_keys_due_at_the_same_time_come_in_call_order() -> None:
    clock = FakeClock()
    queue = _manual_queue(clock)
    for key in ["x", "y", "z"]:
        queue.add_after(key, 1.0)
    clock.advance(1.0)
    queue.release_due()
    assert _queued(queue) == ["x", "y", "z"]


def test_a_non_positive_delay_adds_at_once() -> None:
    queue = _manual_queue(FakeClock())
    queue.add_after("now", 0.0)
    queue.add_after("past", -1.0)
    assert _queued(queue) == ["now", "past"]


def test_a_waiting_key_keeps_its_earlier_due_time() -> None:
    clock = FakeClock()
    queue = _manual_queue(clock)
    queue.add_after("later-first", 5.0)
    queue.add_after("later-first", 1.0)
    queue.add_after("earlier-first", 1.0)
    queue.add_after("earlier-first", 5.0)
    clock.advance(1.0)
    assert queue.release_due() == 2
    assert _queued(queue) == ["later-first", "earlier-first"]
    clock.advance(4.0)
    assert queue.release_due() == 0, "superseded due times must not fire again"


def test_a_released_key_collapses_with_the_same_key_already_queued() -> None:
    clock = FakeClock()
    queue = _manual_queue(clock)
    queue.add("a")
    queue.add_after("a", 1.0)
    clock.advance(1.0)
    queue.release_due()
    assert len(queue) == 1


def test_shutdown_discards_waiting_keys_and_ignores_new_ones() -> None:
    clock = FakeClock()
    queue = _manual_queue(clock)
    queue.add_after("waiting", 1.0)
    queue.shutdown()
    queue.add_after("late", 1.0)
    clock.advance(2.0)
    assert queue.release_due() == 0
    assert queue.get() is None


def test_timer_thread_releases_keys_on_its_own() -> None:
    queue: DelayingQueue[str] = DelayingQueue(unique_name())
    queue.add_after("late", 0.03)
    queue.add_after("early", 0.01)
    assert queue.get(timeout=2) == "early"
    assert queue.get(timeout=2) == "late"
    queue.shutdown()


def test_timer_thread_wakes_for_a_key_due_before_the_one_it_sleeps_for() -> None:
    queue: DelayingQueue[str] = DelayingQueue(unique_name())
    queue.add_after("far", 60.0)
    queue.add_after("first", 0.01)
    # The timer releases "first" and goes back to sleep without letting go of the
    # lock, so once get() has it the timer is asleep until "far" is due.
    assert queue.get(timeout=2) == "first"
    queue.add_after("near", 0.01)
    assert queue.get(timeout=2) == "near"
    queue.shutdown()


def test_timer_thread_ends_at_shutdown() -> None:
    name = unique_name()
    queue: DelayingQueue[str] = DelayingQueue(name)
    queue.add_after("far", 60.0)
    timers = [t for t in threading.enumerate() if t.name == f"workqueue-{name}-timer"]
    assert len(timers) == 1
    queue.shutdown()
    timers[0].join(timeout=2)
    assert not timers[0].is_alive()


def test_no_thread_is_started_for_plain_adds() -> None:
    name = unique_name()
    queue: DelayingQueue[str] = DelayingQueue(name)
    queue.add("a")
    queue.add_after("b", 0)
    assert not [t for t in threading.enumerate() if t.name == f"workqueue-{name}-timer"]

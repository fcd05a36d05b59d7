"""WorkQueue: contract clause 5a, keys handed out in batches (``get_batch``, ``done_all``)."""

from __future__ import annotations

from notifier.queue import WorkQueue
from tests.unit.queue.fakes import unique_name


def _queue_of(*keys: str) -> WorkQueue[str]:
    queue: WorkQueue[str] = WorkQueue(unique_name())
    queue.add_all(list(keys))
    return queue


def test_a_batch_is_the_next_keys_in_order_up_to_the_limit() -> None:
    queue = _queue_of("a", "b", "c")
    assert queue.get_batch(2) == ["a", "b"]
    assert queue.get_batch(2) == ["c"]
    assert len(queue) == 0


def test_keys_of_a_batch_are_processing_until_done() -> None:
    queue = _queue_of("a", "b")
    batch = queue.get_batch(10)
    queue.add_all(["a", "b"])  # dirty while processed: back at their done, not before
    assert queue.get(timeout=0) is None
    queue.done_all(batch)
    assert queue.get_batch(10) == ["a", "b"]


def test_a_key_of_a_batch_may_be_done_on_its_own() -> None:
    queue = _queue_of("a", "b")
    queue.get_batch(10)
    queue.done("b")
    queue.add("b")
    assert queue.get(timeout=0) == "b"


def test_each_idle_getter_is_left_its_share() -> None:
    queue = _queue_of("a", "b", "c", "d", "e")
    queue._idle_getters = 1  # as if another worker slept on the queue, just woken for these
    assert queue.get_batch(10) == ["a", "b", "c"]
    queue._idle_getters = 0
    assert queue.get_batch(10) == ["d", "e"]


def test_get_batch_is_empty_on_timeout_and_once_shut_down_and_drained() -> None:
    queue = _queue_of("a")
    queue.shutdown()
    assert queue.get_batch(5) == ["a"]
    queue.done_all(["a"])
    assert queue.get_batch(5) == []
    assert WorkQueue[str](unique_name()).get_batch(5, timeout=0) == []

"""WorkQueue: contract clauses 1-8 (see notifier.queue)."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable

import pytest

from notifier.queue import WorkQueue
from tests.unit.queue.fakes import unique_name


def _new_queue() -> WorkQueue[str]:
    return WorkQueue(unique_name())


def _drain_now(queue: WorkQueue[str]) -> list[str]:
    """Get and done everything queued right now, in order."""
    keys = []
    while (key := queue.get(timeout=0)) is not None:
        keys.append(key)
        queue.done(key)
    return keys


def _start(target: Callable[[], object]) -> threading.Thread:
    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    return thread


# Clause 1: dedup


def test_duplicate_adds_collapse_into_one_key() -> None:
    queue = _new_queue()
    for key in ["a", "b", "a", "a", "b"]:
        queue.add(key)
    assert len(queue) == 2
    assert _drain_now(queue) == ["a", "b"]


def test_duplicate_add_keeps_the_first_place() -> None:
    queue = _new_queue()
    for key in ["a", "b", "c", "a"]:
        queue.add(key)
    assert _drain_now(queue) == ["a", "b", "c"]


def test_key_can_be_queued_again_after_done() -> None:
    queue = _new_queue()
    queue.add("a")
    assert _drain_now(queue) == ["a"]
    queue.add("a")
    assert _drain_now(queue) == ["a"]


# Clause 2: never two workers on one key


def test_key_being_processed_is_not_handed_out_again() -> None:
    queue = _new_queue()
    queue.add("a")
    assert queue.get(timeout=0) == "a"
    queue.add("a")
    assert queue.get(timeout=0) is None


def test_concurrent_workers_never_share_a_key_and_never_lose_an_add() -> None:
    queue = _new_queue()
    guard = threading.Lock()
    in_progress: set[str] = set()
    needs_processing: set[str] = set()
    violations: list[str] = []
    passes: list[str] = []
    producing = threading.Event()
    producing.set()

    def worker() -> None:
        while (key := queue.get()) is not None:
            with guard:
                if key in in_progress:
                    violations.append(key)
                in_progress.add(key)
                needs_processing.discard(key)
                passes.append(key)
                if producing.is_set() and len(passes) % 3 == 0:
                    needs_processing.add(key)
                    queue.add(key)  # while held: must come back only after done
            time.sleep(0)  # let other threads run while the key is held
            with guard:
                in_progress.discard(key)
            queue.done(key)

    workers = [_start(worker) for _ in range(4)]
    rng = random.Random(7)
    keys = [f"ns/pod-{i}" for i in range(16)]
    for _ in range(3_000):
        key = rng.choice(keys)
        with guard:
            needs_processing.add(key)
        queue.add(key)
        time.sleep(0)  # without it the producer keeps the GIL and adds everything first
    with guard:
        producing.clear()  # from here on every add is accepted: shutdown comes after
    assert queue.shutdown_with_drain(5.0)
    for thread in workers:
        thread.join(timeout=2)
    assert violations == []
    assert needs_processing == set(), "an add made during processing was lost"
    assert len(passes) > 1_000, "too few passes for the workers to have overlapped"


# Clause 3: dirty re-add


def test_readd_while_processing_is_queued_again_after_done() -> None:
    queue = _new_queue()
    queue.add("a")
    key = queue.get(timeout=0)
    assert key == "a"
    queue.add("a")
    assert len(queue) == 0
    queue.done("a")
    assert len(queue) == 1
    assert _drain_now(queue) == ["a"]


def test_several_readds_while_processing_requeue_once_at_the_back() -> None:
    queue = _new_queue()
    queue.add("a")
    queue.get(timeout=0)
    queue.add("a")
    queue.add("b")
    queue.add("a")
    queue.done("a")
    assert _drain_now(queue) == ["b", "a"]


# Clause 4: FIFO


def test_keys_come_out_in_the_order_they_were_added() -> None:
    queue = _new_queue()
    keys = [f"k{i}" for i in range(100)]
    for key in keys:
        queue.add(key)
    assert _drain_now(queue) == keys


# Clause 5: blocking get, timeout, len


def test_get_returns_none_after_timeout() -> None:
    queue = _new_queue()
    started = time.monotonic()
    assert queue.get(timeout=0.02) is None
    assert time.monotonic() - started >= 0.02


def test_blocked_get_receives_a_later_add() -> None:
    queue = _new_queue()
    received: list[str | None] = []
    getter = _start(lambda: received.append(queue.get(timeout=5)))
    queue.add("a")
    getter.join(timeout=5)
    assert received == ["a"]


def test_len_counts_queued_keys_but_not_processing_ones() -> None:
    queue = _new_queue()
    queue.add("a")
    queue.add("b")
    queue.get(timeout=0)
    assert len(queue) == 1


# Clause 6: shutdown


def test_shutdown_stops_intake_and_get_returns_none_once_drained() -> None:
    queue = _new_queue()
    queue.add("a")
    queue.shutdown()
    queue.add("b")
    assert queue.shutting_down
    assert queue.get() == "a"
    queue.done("a")
    assert queue.get() is None


def test_shutdown_wakes_every_blocked_get() -> None:
    queue = _new_queue()
    results: list[str | None] = []
    getters = [_start(lambda: results.append(queue.get())) for _ in range(3)]
    queue.shutdown()
    for getter in getters:
        getter.join(timeout=2)
    assert results == [None, None, None]


def test_dirty_key_is_still_handed_out_after_shutdown() -> None:
    queue = _new_queue()
    queue.add("a")
    queue.get()
    queue.add("a")
    queue.shutdown()
    queue.done("a")
    assert queue.get() == "a"


# Clause 7: shutdown_with_drain


def test_shutdown_with_drain_is_true_at_once_when_idle() -> None:
    assert _new_queue().shutdown_with_drain(0.0)


def test_shutdown_with_drain_is_false_when_a_worker_is_stuck() -> None:
    queue = _new_queue()
    queue.add("a")
    queue.get()
    started = time.monotonic()
    assert queue.shutdown_with_drain(0.05) is False
    assert time.monotonic() - started >= 0.05
    queue.add("b")
    assert len(queue) == 0, "intake must stop even when the drain times out"


def test_shutdown_with_drain_is_true_when_the_worker_finishes_in_time() -> None:
    queue = _new_queue()
    queue.add("a")
    queue.get()
    started = time.monotonic()
    release = threading.Timer(0.05, queue.done, args=("a",))
    release.start()
    assert queue.shutdown_with_drain(2.0) is True
    assert time.monotonic() - started >= 0.04, "returned before the worker was done"


def test_shutdown_with_drain_waits_for_keys_still_queued() -> None:
    queue = _new_queue()
    queue.add("a")
    assert queue.shutdown_with_drain(0.02) is False
    assert _drain_now(queue) == ["a"]
    assert queue.shutdown_with_drain(0.0) is True


def test_shutdown_with_drain_sees_workers_finish_the_queue() -> None:
    queue = _new_queue()
    for key in ["a", "b", "c"]:
        queue.add(key)
    processed: list[str] = []

    def worker() -> None:
        while (key := queue.get()) is not None:
            processed.append(key)
            queue.done(key)

    threads = [_start(worker) for _ in range(2)]
    assert queue.shutdown_with_drain(2.0) is True
    for thread in threads:
        thread.join(timeout=2)
    assert sorted(processed) == ["a", "b", "c"]


# Clause 8: done of a key not being processed


def test_done_of_a_key_not_being_processed_raises() -> None:
    queue = _new_queue()
    queue.add("a")
    with pytest.raises(ValueError, match="not being processed"):
        queue.done("a")


def test_add_all_is_add_for_each_key_in_order() -> None:
    queue = _new_queue()
    queue.add("b")
    first = queue.get(timeout=0)
    assert first == "b"
    queue.add_all(["a", "b", "c", "a"])  # "b" is being processed: dirty, queued at its done
    assert _drain_now(queue) == ["a", "c"]
    queue.done("b")
    assert _drain_now(queue) == ["b"]


def test_add_all_wakes_as_many_idle_getters_as_it_queued() -> None:
    queue = _new_queue()
    got: list[str] = []
    both = threading.Barrier(3)

    def getter() -> None:
        key = queue.get(timeout=5)
        assert key is not None
        got.append(key)
        both.wait(5)  # holds its key: the other getter must have been woken too

    threads = [_start(getter), _start(getter)]
    deadline = time.monotonic() + 5
    while queue._idle_getters < 2 and time.monotonic() < deadline:  # both asleep in get
        threading.Event().wait(0.001)
    queue.add_all(["x", "y"])
    both.wait(5)
    for thread in threads:
        thread.join(5)
    assert sorted(got) == ["x", "y"]

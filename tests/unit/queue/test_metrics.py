"""Queue metrics: contract clause 12 (see notifier.queue)."""

from __future__ import annotations

import gc

import pytest
from prometheus_client import REGISTRY

from notifier.queue import WorkQueue
from tests.unit.queue.fakes import FakeClock, unique_name


def _sample(metric: str, name: str) -> float | None:
    return REGISTRY.get_sample_value(f"kube_notifier_workqueue_{metric}", {"name": name})


def _queue(clock: FakeClock) -> WorkQueue[str]:
    return WorkQueue(unique_name(), clock=clock)


def test_adds_count_accepted_keys_not_collapsed_duplicates() -> None:
    queue = _queue(FakeClock())
    for key in ["a", "b", "a"]:
        queue.add(key)
    assert _sample("adds_total", queue.name) == 2


def test_depth_is_read_from_the_queue_on_scrape() -> None:
    queue = _queue(FakeClock())
    queue.add("a")
    queue.add("b")
    assert _sample("depth", queue.name) == 2
    queue.get(timeout=0)
    assert _sample("depth", queue.name) == 1


def test_queue_duration_runs_from_add_to_get() -> None:
    clock = FakeClock(now=100.0)
    queue = _queue(clock)
    queue.add("a")
    clock.advance(0.25)
    queue.get(timeout=0)
    assert _sample("queue_duration_seconds_count", queue.name) == 1
    assert _sample("queue_duration_seconds_sum", queue.name) == 0.25


def test_work_duration_runs_from_get_to_done() -> None:
    clock = FakeClock(now=100.0)
    queue = _queue(clock)
    queue.add("a")
    queue.get(timeout=0)
    clock.advance(0.5)
    queue.done("a")
    assert _sample("work_duration_seconds_count", queue.name) == 1
    assert _sample("work_duration_seconds_sum", queue.name) == 0.5


def test_duration_buckets_are_cumulative() -> None:
    clock = FakeClock(now=100.0)
    queue = _queue(clock)
    for key, seconds in [("fast", 0.25), ("slow", 2.0)]:
        queue.add(key)
        queue.get(timeout=0)
        clock.advance(seconds)
        queue.done(key)

    def bucket(le: str) -> float | None:
        labels = {"name": queue.name, "le": le}
        return REGISTRY.get_sample_value(
            "kube_notifier_workqueue_work_duration_seconds_bucket", labels
        )

    assert [bucket(le) for le in ["0.1", "0.5", "1.0", "5.0", "+Inf"]] == [0, 1, 1, 2, 2]
    assert _sample("work_duration_seconds_count", queue.name) == 2


def test_unfinished_and_longest_running_follow_the_keys_in_progress() -> None:
    clock = FakeClock(now=100.0)
    queue = _queue(clock)
    queue.add("a")
    queue.add("b")
    queue.get(timeout=0)
    clock.advance(1.0)
    queue.get(timeout=0)
    clock.advance(2.0)
    assert _sample("unfinished_work_seconds", queue.name) == 5.0  # 3 s + 2 s
    assert _sample("longest_running_processor_seconds", queue.name) == 3.0
    queue.done("a")
    queue.done("b")
    assert _sample("unfinished_work_seconds", queue.name) == 0.0
    assert _sample("longest_running_processor_seconds", queue.name) == 0.0


def test_queues_sharing_a_name_add_up_depth_and_work_and_keep_the_longest() -> None:
    name = unique_name()
    clock = FakeClock()
    first: WorkQueue[str] = WorkQueue(name, clock=clock)
    second: WorkQueue[str] = WorkQueue(name, clock=clock)
    first.add("a")
    second.add("a")
    second.add("b")
    first.get(timeout=0)
    clock.advance(2.0)
    second.get(timeout=0)
    clock.advance(1.0)
    assert _sample("depth", name) == 1
    assert _sample("unfinished_work_seconds", name) == 4.0  # 3 s + 1 s
    assert _sample("longest_running_processor_seconds", name) == 3.0


def test_a_collected_queue_leaves_the_gauges_but_keeps_its_totals() -> None:
    queue = _queue(FakeClock())
    name = queue.name
    queue.add("a")
    del queue
    gc.collect()
    assert _sample("depth", name) is None
    assert _sample("adds_total", name) == 1, "counters must not go back when a queue goes"


@pytest.mark.parametrize("name", ["default/my-pod", "", "has space", "x" * 64])
def test_queue_names_that_would_unbound_the_label_are_rejected(name: str) -> None:
    with pytest.raises(ValueError, match="bounded"):
        WorkQueue[str](name)

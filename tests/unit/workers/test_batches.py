"""A worker takes several keys at once: each has its own pass, what they acted on is one write."""

from __future__ import annotations

import threading

import pytest

from notifier.objects import EventType, Kind, KubeObject, ObjectKey
from notifier.origin import Origin
from notifier.queue.rate_limiting_queue import RateLimitingQueue
from notifier.source.store import Store
from notifier.transitions.model import Transition
from notifier.workers.intake import Intake
from notifier.workers.keys import WorkKey
from notifier.workers.known import Known
from notifier.workers.worker import Workers
from tests.unit.queue.fakes import unique_name
from tests.unit.workers.test_intake import _delta, _pod, _pod_key
from tests.unit.workers.test_known import Saving

NAMES = [f"web-{index}" for index in range(6)]


class Saved(Saving):
    """Saving, and telling a waiting test when a key is saved."""

    def __init__(self) -> None:
        super().__init__()
        self.changed = threading.Condition()

    def save_seen(self, changes: list[tuple[WorkKey, KubeObject | None]]) -> None:
        with self.changed:
            super().save_seen(changes)
            self.changed.notify_all()

    def wait_for(self, count: int) -> bool:
        with self.changed:
            return self.changed.wait_for(lambda: len(self.saved) >= count, 5)


class FailsOnceFor:
    """A sink whose first call for one object fails."""

    def __init__(self, name: str) -> None:
        self.name: str | None = name
        self.received: list[Transition] = []

    def handle(self, transitions: list[Transition]) -> None:
        if transitions[0].obj.metadata.name == self.name:
            self.name = None
            raise RuntimeError("sink down")
        self.received.extend(transitions)


def test_a_listed_batch_is_acted_on_in_one_write_and_a_failed_key_alone_retried() -> None:
    queue: RateLimitingQueue[WorkKey] = RateLimitingQueue(unique_name("batches"))
    store, saved = Store(Kind.POD), Saved()
    known = Known(saved)
    intake = Intake(queue, known)
    for name in NAMES:
        store.upsert(_pod(name))
    intake.handle([_delta(EventType.ADDED, _pod(name), Origin.INITIAL_LIST) for name in NAMES])
    sink = FailsOnceFor("web-2")
    workers = Workers(
        queue=queue, intake=intake, stores={Kind.POD: store}, known=known, sink=sink, count=1
    )
    workers.start()
    try:
        assert saved.wait_for(len(NAMES))
        assert saved.writes == 2  # the batch less web-2, then web-2's retry
        assert [key for key, _ in saved.saved][-1] == _pod_key("web-2")
        assert sorted(t.obj.metadata.name for t in sink.received) == NAMES
        assert all(t.origin is Origin.INITIAL_LIST for t in sink.received)
    finally:
        assert workers.stop(2)
    assert not intake.initial_list_waiting()  # every pass finished once the queue drained


def test_a_listed_key_is_waited_for_until_its_state_is_known() -> None:
    queue: RateLimitingQueue[WorkKey] = RateLimitingQueue(
        unique_name("batches"), timer_thread=False
    )
    store, known = Store(Kind.POD), Known()
    intake = Intake(queue, known)
    store.upsert(_pod("web-0"))
    intake.handle([_delta(EventType.ADDED, _pod("web-0"), Origin.INITIAL_LIST)])
    seen_waiting: list[bool] = []

    class Looking:
        def handle(self, transitions: list[Transition]) -> None:
            seen_waiting.append(intake.initial_list_waiting())  # taken, not yet known

    workers = Workers(
        queue=queue, intake=intake, stores={Kind.POD: store}, known=known, sink=Looking()
    )
    [key] = queue.get_batch(10)
    workers.process(key)
    queue.done(key)
    assert seen_waiting == [True]
    assert not intake.initial_list_waiting()
    assert known.get(_pod_key("web-0")) == _pod("web-0")


class BrokenFor(Store):
    """A cache whose read of one key raises (a bug, not a sink failure)."""

    def __init__(self, name: str) -> None:
        super().__init__(Kind.POD)
        self.name = name

    def get(self, key: ObjectKey) -> KubeObject | None:
        if key.endswith(f"/{self.name}"):
            raise RuntimeError("a bug")
        return super().get(key)


def test_keys_after_a_pass_that_raised_come_back_to_the_queue() -> None:
    queue: RateLimitingQueue[WorkKey] = RateLimitingQueue(
        unique_name("batches"), timer_thread=False
    )
    store, known = BrokenFor("web-1"), Known()
    intake = Intake(queue, known)
    for name in NAMES[:3]:
        store.upsert(_pod(name))
    intake.handle([_delta(EventType.ADDED, _pod(name), Origin.INITIAL_LIST) for name in NAMES[:3]])
    workers = Workers(
        queue=queue, intake=intake, stores={Kind.POD: store}, known=known, sink=FailsOnceFor("")
    )
    keys = queue.get_batch(10)
    with pytest.raises(RuntimeError):
        workers._process_all(keys, "test")
    queue.done_all(keys)
    assert known.get(_pod_key("web-0")) == _pod("web-0")
    assert queue.get_batch(10) == [_pod_key("web-2")]  # queued again, its pending kept
    assert intake.take(_pod_key("web-2")).listed == _pod("web-2")

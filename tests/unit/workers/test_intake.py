"""Intake: informer deltas in, one queued key per object out, plus what each key must remember."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import msgspec

from notifier.kinds.deployment import Deployment
from notifier.kinds.pod import Pod
from notifier.objects import EventType, Kind, KubeObject, ObjectKey, key_of
from notifier.origin import Origin
from notifier.queue.rate_limiting_queue import RateLimitingQueue
from notifier.source.deltas import Delta
from notifier.source.store import Store
from notifier.transitions.model import Transition
from notifier.workers.intake import Intake
from notifier.workers.keys import WorkKey
from notifier.workers.known import Known
from notifier.workers.pending import Pending
from notifier.workers.worker import Workers
from tests.unit.queue.fakes import unique_name


def _pod(name: str, version: str = "100", *, phase: str = "Running", deleting: bool = False) -> Pod:
    metadata: dict[str, Any] = {
        "name": name,
        "namespace": "shop",
        "uid": f"uid-{name}",
        "resourceVersion": version,
        "labels": {"app": "web"},
    }
    if deleting:
        metadata["deletionTimestamp"] = "2024-05-14T09:20:00Z"
    document = {
        "kind": "Pod",
        "metadata": metadata,
        "spec": {"nodeName": "node-1", "containers": [{"name": "web", "image": "web:v1"}]},
        "status": {"phase": phase},
    }
    return msgspec.convert(document, type=Pod)


WEB = _pod("web-1")
WEB_KEY = WorkKey(Kind.POD, ObjectKey("shop/web-1"))


def _delta(kind: EventType, obj: KubeObject, origin: Origin = Origin.LIVE) -> Delta:
    return Delta(Kind.POD, key_of(obj), kind, obj, origin)


def _queue(max_retries: int = 15) -> RateLimitingQueue[WorkKey]:
    return RateLimitingQueue(unique_name("intake"), max_retries=max_retries, timer_thread=False)


def _queued(queue: RateLimitingQueue[WorkKey]) -> list[WorkKey]:
    """Every key queued now, in order (each taken and marked done)."""
    keys = []
    while (key := queue.get(timeout=0)) is not None:
        queue.done(key)
        keys.append(key)
    return keys


class Seen:
    """The durable known state a restarted process loads."""

    def __init__(self, objects: Iterable[tuple[WorkKey, KubeObject]]) -> None:
        self.objects = list(objects)

    def load_seen(self) -> Iterable[tuple[WorkKey, KubeObject]]:
        return self.objects

    def has_baseline(self) -> bool:
        return True

    def mark_baseline(self, scopes: Iterable[str]) -> None:
        pass

    def baselines(self) -> frozenset[str]:
        return frozenset()

    def forget_baseline(self, scope: str) -> None:
        pass

    def save_seen(self, changes: list[tuple[WorkKey, KubeObject | None]]) -> None:
        pass


# -- handle: dedup ----------------------------------------------------------------------------


def test_many_deltas_of_one_key_queue_it_once() -> None:
    queue = _queue()
    intake = Intake(queue, Known())
    intake.handle([_delta(EventType.ADDED, WEB), _delta(EventType.UPDATED, _pod("web-1", "101"))])
    intake.handle([_delta(EventType.UPDATED, _pod("web-1", "102"), Origin.RESYNC)])
    assert _queued(queue) == [WEB_KEY]
    assert intake.take(WEB_KEY).origins == {Origin.LIVE, Origin.RESYNC}


def test_keys_are_queued_in_arrival_order_and_kinds_do_not_mix() -> None:
    queue = _queue()
    intake = Intake(queue, Known())
    deployment = msgspec.convert(
        {"kind": "Deployment", "metadata": {"name": "web-1", "namespace": "shop"}}, type=Deployment
    )
    intake.handle([_delta(EventType.ADDED, _pod("b")), _delta(EventType.ADDED, _pod("a"))])
    intake.handle(
        [Delta(Kind.DEPLOYMENT, key_of(deployment), EventType.ADDED, deployment, Origin.LIVE)]
    )
    intake.handle([_delta(EventType.ADDED, WEB)])
    assert [str(key) for key in _queued(queue)] == [
        "Pod/shop/b",
        "Pod/shop/a",
        "Deployment/shop/web-1",
        "Pod/shop/web-1",
    ]


def test_a_delta_for_a_key_in_flight_queues_it_again_after_its_pass() -> None:
    queue = _queue()
    intake = Intake(queue, Known())
    intake.handle([_delta(EventType.ADDED, WEB)])
    key = queue.get(timeout=0)
    assert key == WEB_KEY
    assert intake.take(WEB_KEY).origins == {Origin.LIVE}
    intake.handle([_delta(EventType.DELETED, _pod("web-1", "103"))])
    queue.done(WEB_KEY)
    assert _queued(queue) == [WEB_KEY]
    assert intake.take(WEB_KEY).tombstone == _pod("web-1", "103")


def test_take_empties_what_was_pending() -> None:
    intake = Intake(_queue(), Known())
    intake.handle([_delta(EventType.ADDED, WEB, Origin.INITIAL_LIST)])
    assert intake.take(WEB_KEY).listed is WEB
    assert intake.take(WEB_KEY) == Pending()


# -- give_back -----------------------------------------------------------------------------------


def test_give_back_keeps_a_failed_pass_for_the_retry() -> None:
    intake = Intake(_queue(), Known())
    intake.handle([_delta(EventType.ADDED, WEB, Origin.INITIAL_LIST)])
    failed = intake.take(WEB_KEY)
    intake.give_back(WEB_KEY, failed)
    assert intake.take(WEB_KEY) == Pending(origins=frozenset({Origin.INITIAL_LIST}), listed=WEB)


def test_give_back_merges_what_arrived_during_the_failed_pass() -> None:
    queue = _queue()
    intake = Intake(queue, Known())
    intake.handle([_delta(EventType.ADDED, WEB, Origin.INITIAL_LIST)])
    failed = intake.take(WEB_KEY)
    final = _pod("web-1", "104", deleting=True)
    intake.handle([_delta(EventType.DELETED, final)])
    intake.give_back(WEB_KEY, failed)
    retry = intake.take(WEB_KEY)
    assert retry == Pending(
        origins=frozenset({Origin.INITIAL_LIST, Origin.LIVE}), tombstone=final, listed=WEB
    )


def test_give_back_keeps_the_failed_pass_tombstone_over_a_later_re_create() -> None:
    intake = Intake(_queue(), Known())
    intake.handle([_delta(EventType.DELETED, WEB)])
    failed = intake.take(WEB_KEY)
    intake.handle([_delta(EventType.ADDED, _pod("web-1", "200"))])
    intake.give_back(WEB_KEY, failed)
    assert intake.take(WEB_KEY).tombstone is WEB


# -- enqueue_vanished ------------------------------------------------------------------------------


def _restarted_known(*keys: WorkKey) -> Known:
    return Known(Seen((key, _pod(key.key.split("/")[1])) for key in keys))


def _pod_key(name: str) -> WorkKey:
    return WorkKey(Kind.POD, ObjectKey(f"shop/{name}"))


def test_keys_known_before_a_restart_and_absent_now_are_queued_as_catch_ups() -> None:
    queue = _queue()
    deployment_key = WorkKey(Kind.DEPLOYMENT, ObjectKey("shop/web"))
    known = _restarted_known(_pod_key("a"), _pod_key("b"), _pod_key("c"), deployment_key)
    intake = Intake(queue, known)
    assert intake.enqueue_vanished(Kind.POD, {ObjectKey("shop/a")}) == 2
    assert sorted(_queued(queue)) == [_pod_key("b"), _pod_key("c")]
    assert intake.take(_pod_key("b")) == Pending(origins=frozenset({Origin.CATCH_UP}))
    assert intake.take(deployment_key) == Pending()


def test_nothing_vanished_nothing_queued() -> None:
    queue = _queue()
    intake = Intake(queue, _restarted_known(_pod_key("a")))
    assert intake.enqueue_vanished(Kind.POD, {ObjectKey("shop/a"), ObjectKey("shop/new")}) == 0
    assert _queued(queue) == []


def test_a_vanished_key_already_pending_gains_the_catch_up_mark_and_is_queued_once() -> None:
    queue = _queue()
    intake = Intake(queue, _restarted_known(_pod_key("a")))
    intake.handle([_delta(EventType.DELETED, _pod("a", "300"), Origin.RELIST)])
    assert intake.enqueue_vanished(Kind.POD, set()) == 1
    assert _queued(queue) == [_pod_key("a")]
    pending = intake.take(_pod_key("a"))
    assert pending.origins == {Origin.RELIST, Origin.CATCH_UP}
    assert pending.tombstone == _pod("a", "300")


# -- a dropped key, through the worker's retry ----------------------------------------------------


class FlakySink:
    """Fails its first call after running ``during_first`` (an informer acting meanwhile)."""

    def __init__(self, during_first: Callable[[], None]) -> None:
        self.during_first: Callable[[], None] | None = during_first
        self.received: list[Transition] = []

    def handle(self, transitions: list[Transition]) -> None:
        if self.during_first is not None:
            during, self.during_first = self.during_first, None
            during()
            raise RuntimeError("sink down")
        self.received.extend(transitions)


def test_a_delete_arriving_during_a_pass_that_is_then_dropped_keeps_its_final_state() -> None:
    queue = _queue(max_retries=0)  # the first failure drops the key
    known, store = Known(), Store(Kind.POD)
    known.set(WEB_KEY, WEB)
    intake = Intake(queue, known)
    final = _pod("web-1", "105", phase="Failed", deleting=True)

    def deleted_meanwhile() -> None:
        store.delete(WEB_KEY.key)
        intake.handle([_delta(EventType.DELETED, final)])

    sink = FlakySink(deleted_meanwhile)
    workers = Workers(queue=queue, intake=intake, stores={Kind.POD: store}, known=known, sink=sink)
    failing = _pod("web-1", "104", phase="Failed")
    store.upsert(failing)
    intake.handle([_delta(EventType.UPDATED, failing)])
    for _ in ("the failed pass", "the pass after the drop"):
        key = queue.get(timeout=0)
        assert key == WEB_KEY
        workers.process(key)
        queue.done(key)
    deletes = [t for t in sink.received if t.event is EventType.DELETED]
    assert len(deletes) == 1
    assert deletes[0].old == final
    assert not deletes[0].final_state_unknown


def test_initial_list_waiting_until_every_listed_key_is_taken_and_finished() -> None:
    intake = Intake(_queue(), Known())
    assert not intake.initial_list_waiting()
    intake.handle([_delta(EventType.ADDED, WEB, Origin.INITIAL_LIST)])
    assert intake.initial_list_waiting()
    taken = intake.take(WEB_KEY)
    assert intake.initial_list_waiting()  # being worked: its state is not known yet
    intake.finished([taken])
    assert not intake.initial_list_waiting()


def test_a_listed_key_given_back_waits_again_until_its_retry_finishes() -> None:
    intake = Intake(_queue(), Known())
    intake.handle([_delta(EventType.ADDED, WEB, Origin.INITIAL_LIST)])
    failed = intake.take(WEB_KEY)
    intake.give_back(WEB_KEY, failed)
    intake.finished([failed])
    assert intake.initial_list_waiting()
    intake.finished([intake.take(WEB_KEY)])
    assert not intake.initial_list_waiting()

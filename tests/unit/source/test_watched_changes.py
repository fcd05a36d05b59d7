"""What a watched change hands on: an add, an update, a delete, and a new uid under a name."""

from __future__ import annotations

from notifier.kinds.pod import Pod
from notifier.objects import EventType, Kind, ObjectKey, ObjectMeta
from notifier.origin import Origin
from notifier.source.deltas import Delta
from notifier.source.informer_store import InformerStore
from notifier.source.store import Store


class Handed:
    def __init__(self) -> None:
        self.calls: list[list[Delta]] = []

    def handle(self, deltas: list[Delta]) -> None:
        self.calls.append(deltas)


def _pod(uid: str, version: str) -> Pod:
    return Pod(metadata=ObjectMeta(name="web", namespace="shop", uid=uid, resource_version=version))


def _seen(calls: list[list[Delta]]) -> list[list[tuple[EventType, str, bool]]]:
    return [
        [(d.type, d.obj.metadata.resource_version, d.final_state_unknown) for d in call]
        for call in calls
    ]


def test_each_watched_change_is_handed_on_in_one_call() -> None:
    store, handed = Store(Kind.POD), Handed()
    informer_store = InformerStore(Kind.POD, store, handed)
    informer_store.upsert(_pod("u1", "1"))
    informer_store.upsert(_pod("u1", "2"))
    informer_store.upsert(_pod("u2", "3"))  # deleted and created again while we looked away
    informer_store.delete(_pod("u2", "4"))
    assert _seen(handed.calls) == [
        [(EventType.ADDED, "1", False)],
        [(EventType.UPDATED, "2", False)],
        [(EventType.DELETED, "2", True), (EventType.ADDED, "3", False)],
        [(EventType.DELETED, "4", False)],
    ]
    deltas = [delta for call in handed.calls for delta in call]
    assert {(d.kind, d.key, d.origin) for d in deltas} == {
        (Kind.POD, ObjectKey("shop/web"), Origin.LIVE)
    }
    assert store.get(ObjectKey("shop/web")) is None

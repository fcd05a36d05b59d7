"""A relist keeps the cached object for what did not change: the cache is not held twice."""

from __future__ import annotations

import json
from typing import Any

from notifier.kinds.registry import KINDS, decode_object
from notifier.objects import EventType, Kind, KubeObject, ObjectKey
from notifier.source.deltas import Delta
from notifier.source.informer_store import InformerStore
from notifier.source.outage import Outage
from notifier.source.reflector import Reflector
from notifier.source.resources import resource_for
from notifier.source.store import Store
from notifier.source.trimming import trim
from notifier.state.seen import encode_object


def _pod(name: str, version: str, uid: str = "u") -> dict[str, Any]:
    meta = {"name": name, "namespace": "shop", "uid": f"{uid}-{name}", "resourceVersion": version}
    return {"metadata": meta, "status": {"phase": "Running"}}


class ListingClient:
    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []
        self.outage = Outage("https://listing.invalid")

    def get(self, path: str, query: dict[str, str]) -> bytes:
        page = {"kind": "PodList", "metadata": {"resourceVersion": "100"}, "items": self.items}
        return json.dumps(page).encode()


def _reflector(
    client: ListingClient, store: Store, handed: Handed, **options: Any
) -> Reflector[KubeObject]:
    informer_store = InformerStore(Kind.POD, store, handed, **options)
    list_watch = resource_for(Kind.POD, kinds=KINDS).list_watch(None)
    return Reflector(list_watch=list_watch, store=informer_store, client=client)  # type: ignore[arg-type]


class Handed:
    def __init__(self) -> None:
        self.deltas: list[Delta] = []

    def handle(self, deltas: list[Delta]) -> None:
        self.deltas.extend(deltas)


def test_unchanged_objects_stay_the_cached_instances_and_changes_still_show() -> None:
    client, store, handed = ListingClient(), Store(Kind.POD), Handed()
    reflector = _reflector(client, store, handed)
    client.items = [_pod("a", "1"), _pod("b", "1"), _pod("c", "1")]
    reflector._list_and_hand_on()
    first = {key: store.get(ObjectKey(f"shop/{key}")) for key in "abc"}
    handed.deltas.clear()
    client.items = [_pod("a", "1"), _pod("b", "2"), _pod("c", "1", uid="new")]
    reflector._list_and_hand_on()  # a relist: same a, changed b, c re-created with the same RV
    assert store.get(ObjectKey("shop/a")) is first["a"]
    assert store.get(ObjectKey("shop/b")) is not first["b"]
    assert store.get(ObjectKey("shop/c")) is not first["c"]
    kinds = sorted((d.key, d.type) for d in handed.deltas)
    assert (ObjectKey("shop/b"), EventType.UPDATED) in kinds
    assert not any(d.key == "shop/a" for d in handed.deltas)


def _rich_pod(name: str, version: str) -> dict[str, Any]:
    pod = _pod(name, version)
    pod["metadata"]["labels"] = {"app": "shop", "tier": "web"}
    pod["spec"] = {"nodeName": "n1", "containers": [{"name": "app", "image": "shop:1"}]}
    pod["status"]["containerStatuses"] = [
        {"name": "app", "ready": True, "restartCount": 2, "image": "shop:1"}
    ]
    return pod


def _as_saved(pod: dict[str, Any]) -> KubeObject:
    """What a restart's ``Known`` holds: decoded from the state file and trimmed."""
    page = {"kind": "PodList", "metadata": {"resourceVersion": "1"}, "items": [pod]}
    listed = (
        resource_for(Kind.POD, kinds=KINDS).decoders.list.decode(json.dumps(page).encode()).items[0]
    )
    return trim(decode_object(encode_object(trim(listed))))


def test_a_restarts_first_list_keeps_the_saved_instance_of_what_did_not_change() -> None:
    saved = {
        ObjectKey("shop/a"): _as_saved(_rich_pod("a", "1")),
        ObjectKey("shop/b"): _as_saved(_rich_pod("b", "1")),
    }
    older_release = _rich_pod("c", "1")
    del older_release["metadata"]["labels"]  # the same version, saved without a field
    saved[ObjectKey("shop/c")] = _as_saved(older_release)
    client, store, handed = ListingClient(), Store(Kind.POD), Handed()
    reflector = _reflector(client, store, handed, saved=saved.get)
    client.items = [_rich_pod("a", "1"), _rich_pod("b", "2"), _rich_pod("c", "1")]

    reflector._list_and_hand_on()

    assert store.get(ObjectKey("shop/a")) is saved[ObjectKey("shop/a")]
    assert store.get(ObjectKey("shop/b")) is not saved[ObjectKey("shop/b")]  # changed meanwhile
    c = store.get(ObjectKey("shop/c"))
    assert c is not saved[ObjectKey("shop/c")] and c is not None
    assert c.metadata.labels == {"app": "shop", "tier": "web"}


def test_a_relist_keeps_the_cached_key_strings() -> None:
    client, store, handed = ListingClient(), Store(Kind.POD), Handed()
    reflector = _reflector(client, store, handed)
    client.items = [_pod("a", "1"), _pod("b", "1")]
    reflector._list_and_hand_on()
    before = {str(key): key for key in store.snapshot()}  # held, so no id is reused
    client.items = [_pod("a", "1"), _pod("b", "2"), _pod("c", "1")]
    reflector._list_and_hand_on()
    after = {str(key): key for key in store.snapshot()}
    assert sorted(after) == ["shop/a", "shop/b", "shop/c"]
    assert after["shop/a"] is before["shop/a"] and after["shop/b"] is before["shop/b"]


def test_the_relisted_hook_runs_once_per_relist_after_its_deltas_are_handed_on() -> None:
    client, store, handed = ListingClient(), Store(Kind.POD), Handed()
    calls: list[int] = []
    reflector = _reflector(
        client, store, handed, on_relisted=lambda: calls.append(len(handed.deltas))
    )
    client.items = [_pod("a", "1")]
    reflector._list_and_hand_on()
    assert calls == []  # the initial list is not a relist
    client.items = [_pod("a", "2")]
    reflector._list_and_hand_on()
    client.items = [_pod("a", "3")]
    reflector._list_and_hand_on()
    assert calls == [2, 3]  # each after its delta was handed on

"""Store: the informer cache, and a relist replacing one namespace's part of it."""

from __future__ import annotations

import msgspec

from notifier.kinds.pod import Pod
from notifier.objects import EventType, Kind, ObjectKey
from notifier.source.store import Store


def _pod(namespace: str, name: str, *, version: str = "1000", uid: str = "") -> Pod:
    return msgspec.convert(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": name,
                "namespace": namespace,
                "uid": uid or f"uid-{namespace}-{name}",
                "resourceVersion": version,
                "labels": {"app": name.partition("-")[0]},
            },
            "spec": {"containers": [{"name": "main", "image": f"example.com/{name}:1"}]},
            "status": {"phase": "Running"},
        },
        type=Pod,
    )


def _filled(*pods: Pod) -> Store:
    store = Store(Kind.POD)
    for pod in pods:
        store.upsert(pod)
    return store


SHOP_WEB = _pod("shop", "web-1")
SHOP_CART = _pod("shop", "cart-1")
BILLING_API = _pod("billing", "api-1")


def test_upsert_returns_what_was_there_before() -> None:
    store = Store(Kind.POD)
    assert store.upsert(SHOP_WEB) is None
    newer = _pod("shop", "web-1", version="1001")
    assert store.upsert(newer) is SHOP_WEB
    assert store.get(ObjectKey("shop/web-1")) is newer
    assert len(store) == 1


def test_delete_returns_the_removed_object_and_tolerates_unknown_keys() -> None:
    store = _filled(SHOP_WEB)
    assert store.delete(ObjectKey("shop/web-1")) is SHOP_WEB
    assert store.delete(ObjectKey("shop/web-1")) is None
    assert len(store) == 0


def test_snapshot_is_a_copy() -> None:
    store = _filled(SHOP_WEB)
    snapshot = store.snapshot()
    store.upsert(SHOP_CART)
    assert snapshot == {ObjectKey("shop/web-1"): SHOP_WEB}


def test_replace_of_everything_swaps_the_cache_and_returns_the_diff() -> None:
    store = _filled(SHOP_WEB, BILLING_API)
    web_changed = _pod("shop", "web-1", version="2000")
    deltas = store.replace([web_changed, SHOP_CART], None)
    assert store.snapshot() == {
        ObjectKey("shop/web-1"): web_changed,
        ObjectKey("shop/cart-1"): SHOP_CART,
    }
    assert sorted((d.key, d.type) for d in deltas) == [
        ("billing/api-1", EventType.DELETED),
        ("shop/cart-1", EventType.ADDED),
        ("shop/web-1", EventType.UPDATED),
    ]
    assert {d.kind for d in deltas} == {Kind.POD}


def test_replace_of_one_namespace_leaves_the_others_alone() -> None:
    store = _filled(SHOP_WEB, SHOP_CART, BILLING_API)
    deltas = store.replace([_pod("shop", "web-1", version="2000")], "shop")
    assert set(store.snapshot()) == {ObjectKey("shop/web-1"), ObjectKey("billing/api-1")}
    assert store.get(ObjectKey("billing/api-1")) is BILLING_API
    assert sorted((d.key, d.type) for d in deltas) == [
        ("shop/cart-1", EventType.DELETED),
        ("shop/web-1", EventType.UPDATED),
    ]


def test_an_empty_list_of_one_namespace_deletes_only_that_namespace() -> None:
    store = _filled(SHOP_WEB, BILLING_API)
    deltas = store.replace([], "billing")
    assert store.snapshot() == {ObjectKey("shop/web-1"): SHOP_WEB}
    assert [(d.key, d.type, d.obj) for d in deltas] == [
        ("billing/api-1", EventType.DELETED, BILLING_API)
    ]


def test_a_namespace_whose_name_prefixes_another_is_not_confused_with_it() -> None:
    store = _filled(_pod("shop", "web-1"), _pod("shop-staging", "web-1"))
    store.replace([], "shop")
    assert set(store.snapshot()) == {ObjectKey("shop-staging/web-1")}

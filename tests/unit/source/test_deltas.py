"""diff_relist: what a relist after 410 Gone hands downstream, compared with the cache."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from notifier.kinds.pod import Pod
from notifier.kinds.service import Service
from notifier.objects import EventType, Kind, KubeObject, ObjectKey, key_of
from notifier.origin import Origin
from notifier.source.deltas import Delta, diff_relist


def _pod(name: str, *, uid: str, version: str, label: str = "v1") -> Pod:
    """A pod of Deployment "web" in "shop", as a list on /api/v1/namespaces/shop/pods shows it."""
    document: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": "shop",
            "uid": uid,
            "resourceVersion": version,
            "creationTimestamp": "2024-05-14T09:12:03Z",
            "labels": {"app": "web", "release": label},
        },
        "spec": {
            "nodeName": "node-1",
            "restartPolicy": "Always",
            "containers": [{"name": "web", "image": "registry.example.com/shop/web:v1"}],
        },
        "status": {"phase": "Running", "startTime": "2024-05-14T09:12:05Z"},
    }
    return msgspec.convert(document, type=Pod)


def _by_key(*objects: KubeObject) -> dict[ObjectKey, KubeObject]:
    return {key_of(obj): obj for obj in objects}


def _relist(cached: Sequence[KubeObject], listed: Sequence[KubeObject]) -> list[Delta]:
    return diff_relist(Kind.POD, _by_key(*cached), _by_key(*listed))


A1 = _pod("web-a", uid="0b7c9a52-1e6d-4f0b-9a3e-6f1d2c3b4a01", version="184201")


def test_a_new_key_is_an_add_of_the_listed_object() -> None:
    deltas = _relist([], [A1])
    assert deltas == [Delta(Kind.POD, ObjectKey("shop/web-a"), EventType.ADDED, A1, Origin.RELIST)]


def test_a_changed_resource_version_is_an_update_to_the_listed_object() -> None:
    relabeled = _pod("web-a", uid=A1.metadata.uid, version="184377", label="v2")
    deltas = _relist([A1], [relabeled])
    assert deltas == [
        Delta(Kind.POD, ObjectKey("shop/web-a"), EventType.UPDATED, relabeled, Origin.RELIST)
    ]


def test_an_unchanged_resource_version_is_nothing() -> None:
    # Decoded again from a fresh list: equal, but not the cached object itself.
    same = _pod("web-a", uid=A1.metadata.uid, version="184201")
    assert same is not A1
    assert _relist([A1], [same]) == []


def test_a_vanished_key_is_a_delete_carrying_the_last_known_state() -> None:
    deltas = _relist([A1], [])
    assert len(deltas) == 1
    delete = deltas[0]
    assert (delete.type, delete.key, delete.origin) == (
        EventType.DELETED,
        "shop/web-a",
        Origin.RELIST,
    )
    assert delete.obj is A1
    assert delete.final_state_unknown


def test_a_new_uid_under_the_same_key_is_a_delete_then_an_add() -> None:
    recreated = _pod("web-a", uid="7e41d0c2-88aa-4b1f-b7a5-2d9c0e6f3a02", version="185000")
    deltas = _relist([A1], [recreated])
    assert [(d.type, d.obj, d.final_state_unknown) for d in deltas] == [
        (EventType.DELETED, A1, True),
        (EventType.ADDED, recreated, False),
    ]


def test_a_relist_after_an_outage_reports_each_key_once() -> None:
    """The integration scenario, without the cluster: p0 deleted, p1 changed,
    p2 deleted and re-created, p3 untouched while the watch was down."""
    p = [_pod(f"p{i}", uid=f"uid-p{i}", version=f"{100 + i}") for i in range(4)]
    p1_changed = _pod("p1", uid="uid-p1", version="250", label="changed")
    p2_new = _pod("p2", uid="uid-p2-second", version="251")
    deltas = _relist(p, [p1_changed, p2_new, p[3]])
    assert sorted((d.key, d.type.value) for d in deltas) == [
        ("shop/p0", "deleted"),
        ("shop/p1", "updated"),
        ("shop/p2", "added"),
        ("shop/p2", "deleted"),
    ]
    assert {d.origin for d in deltas} == {Origin.RELIST}


def test_deltas_carry_the_kind_they_were_asked_for() -> None:
    service = msgspec.convert(
        {
            "kind": "Service",
            "metadata": {
                "name": "web",
                "namespace": "shop",
                "uid": "svc-1",
                "resourceVersion": "9",
            },
            "spec": {"selector": {"app": "web"}, "ports": [{"name": "http", "port": 80}]},
        },
        type=Service,
    )
    deltas = diff_relist(Kind.SERVICE, {}, _by_key(service))
    assert [d.kind for d in deltas] == [Kind.SERVICE]


# -- property: the deltas turn the cache into the list --------------------------------------

_names = st.sampled_from([f"p{i}" for i in range(6)])
_versions = st.sampled_from(["1", "2"])
_uids = st.sampled_from(["first", "second"])
_pods = st.builds(lambda n, u, v: _pod(n, uid=f"{n}-{u}", version=v), _names, _uids, _versions)
_states = st.lists(_pods, max_size=6).map(lambda pods: _by_key(*pods))


def _apply(cache: dict[ObjectKey, KubeObject], deltas: list[Delta]) -> None:
    """Replay deltas as a consumer would, checking each one makes sense where it lands."""
    for delta in deltas:
        before = cache.get(delta.key)
        if delta.type is EventType.DELETED:
            assert before is delta.obj
            del cache[delta.key]
            continue
        if delta.type is EventType.ADDED:
            assert before is None
        else:
            assert before is not None and before.metadata.uid == delta.obj.metadata.uid
        cache[delta.key] = delta.obj


@settings(max_examples=200, deadline=None)
@given(cached=_states, listed=_states)
def test_applying_the_deltas_to_the_cache_yields_the_list(
    cached: dict[ObjectKey, KubeObject], listed: dict[ObjectKey, KubeObject]
) -> None:
    deltas = diff_relist(Kind.POD, cached, listed)
    replayed = dict(cached)
    _apply(replayed, deltas)
    assert replayed == listed
    unchanged = {key for key, obj in listed.items() if cached.get(key) == obj}
    assert unchanged.isdisjoint(d.key for d in deltas)

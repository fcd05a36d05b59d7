"""Interning: equal results, one shared copy of repeated parts, bounded tables."""

from __future__ import annotations

import gc
import sys
import threading
import weakref
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from notifier.kinds.deployment import Deployment
from notifier.kinds.pod import Pod
from notifier.kinds.registry import KINDS, share
from notifier.kinds.service import Service
from notifier.kinds.sharing import InternTable, Sharing, freeze_heap
from notifier.objects import Kind, KubeObject

Json = dict[str, Any]

# -- objects as the decoder builds them, from a small alphabet so values repeat ---------
_words = st.text(alphabet="ab-", max_size=3)
_maps = st.dictionaries(_words, _words, max_size=3)
_ints = st.integers(min_value=0, max_value=3)
_condition = st.fixed_dictionaries(
    {"type": _words, "status": st.sampled_from(["True", "False"])},
    optional={"reason": _words, "message": _words},
)
_state: st.SearchStrategy[Json] = st.one_of(
    st.just({}),
    st.fixed_dictionaries({"running": st.fixed_dictionaries({}, optional={"startedAt": _words})}),
    st.fixed_dictionaries({"waiting": st.fixed_dictionaries({"reason": _words})}),
    st.fixed_dictionaries({"terminated": st.fixed_dictionaries({"exitCode": _ints})}),
)
_container_status = st.fixed_dictionaries(
    {"name": _words, "image": _words, "ready": st.booleans(), "state": _state, "lastState": _state}
)
_containers = st.lists(st.fixed_dictionaries({"name": _words, "image": _words}), max_size=2)
_owner = st.fixed_dictionaries({"kind": _words, "uid": _words, "controller": st.booleans()})
_meta = st.fixed_dictionaries(
    {"name": _words, "namespace": _words, "uid": _words, "labels": _maps, "annotations": _maps},
    optional={"ownerReferences": st.lists(_owner, max_size=2)},
)
_pod_spec = st.fixed_dictionaries(
    {"nodeName": _words, "containers": _containers}, optional={"initContainers": _containers}
)
_pod_documents: st.SearchStrategy[Json] = st.fixed_dictionaries(
    {
        "kind": st.just("Pod"),
        "metadata": _meta,
        "spec": _pod_spec,
        "status": st.fixed_dictionaries(
            {
                "phase": _words,
                "conditions": st.lists(_condition, max_size=3),
                "containerStatuses": st.lists(_container_status, max_size=2),
            }
        ),
    }
)
_deployment_documents: st.SearchStrategy[Json] = st.fixed_dictionaries(
    {
        "kind": st.just("Deployment"),
        "metadata": _meta,
        "spec": st.fixed_dictionaries(
            {"template": st.fixed_dictionaries({"metadata": _meta, "spec": _pod_spec})}
        ),
        "status": st.fixed_dictionaries({"conditions": st.lists(_condition, max_size=2)}),
    }
)
_port = st.fixed_dictionaries({"port": _ints}, optional={"targetPort": _ints | _words})
_service_documents: st.SearchStrategy[Json] = st.fixed_dictionaries(
    {
        "kind": st.just("Service"),
        "metadata": _meta,
        "spec": st.fixed_dictionaries(
            {"type": _words, "selector": _maps, "ports": st.lists(_port, max_size=2)}
        ),
    }
)


def _decoded(document: Json) -> KubeObject:
    obj: KubeObject = msgspec.convert(document, type=KINDS[Kind(str(document["kind"]))].struct)
    return obj


kube_objects = st.one_of(_pod_documents, _deployment_documents, _service_documents).map(_decoded)


def _pod(name: str, *, node: str = "node-1", ready: str = "True", **extra: Any) -> Pod:
    """A Pod as the decoder builds it: every string a fresh object."""
    document = {
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": "shop",
            "uid": f"uid-{name}",
            "resourceVersion": f"rv-{name}",
            "labels": {"app": "web", "pod-template-hash": "5d9f"},
            "annotations": {"prometheus.io/scrape": "true"},
            "ownerReferences": [
                {"kind": "ReplicaSet", "name": "web-5d9f", "uid": "rs-1", "controller": True}
            ],
            **extra,
        },
        "spec": {
            "nodeName": node,
            "restartPolicy": "Always",
            "containers": [{"name": "app", "image": "example.com/web:1.2"}],
        },
        "status": {
            "phase": "Running",
            "startTime": f"2024-05-01T08:00:00Z-{name}",
            "conditions": [{"type": "Ready", "status": ready}, {"type": "PodScheduled"}],
            "containerStatuses": [
                {
                    "name": "app",
                    "image": "example.com/web:1.2",
                    "ready": True,
                    "state": {"running": {"startedAt": f"2024-05-01T08:00:03Z-{name}"}},
                    "lastState": {},
                }
            ],
        },
    }
    return msgspec.json.decode(msgspec.json.encode(document), type=Pod)


# -- InternTable ------------------------------------------------------------------
def _fresh(text: str) -> str:
    """An equal string that is a different object (literals are shared by the compiler)."""
    return "".join(list(text))


def test_equal_values_come_back_as_the_first_instance() -> None:
    table = InternTable()
    first = _fresh("payments")
    assert table.intern(first) is first
    again = _fresh("payments")
    assert again is not first
    assert table.intern(again) is first


def test_unequal_values_stay_apart() -> None:
    table = InternTable()
    assert table.intern(_fresh("a")) == "a"
    assert table.intern(_fresh("b")) == "b"
    assert len(table) == 2


def test_a_value_in_use_survives_rotations() -> None:
    table = InternTable(capacity=2)
    hot = table.intern(_fresh("hot"))
    for index in range(10):
        table.intern(_fresh(f"cold-{index}"))
        assert table.intern(_fresh("hot")) is hot  # found in either generation, moved to young


def test_an_unused_value_is_dropped_after_two_rotations() -> None:
    table = InternTable(capacity=2)
    once = table.intern(_fresh("once"))
    for index in range(4):
        table.intern(_fresh(f"other-{index}"))
    again = _fresh("once")
    assert table.intern(again) is again
    assert table.intern(again) is not once


def test_the_table_never_holds_more_than_two_generations() -> None:
    table = InternTable(capacity=100)
    for index in range(10_000):
        table.intern(f"unique-{index}")
        assert len(table) <= 200


def test_a_table_can_key_unhashable_values_by_what_it_derives_from_them() -> None:
    table = InternTable(key_of=lambda d: tuple(d.items()))
    value = {"app": "web"}
    assert table.remember(value) is value
    assert table.lookup((("app", "web"),)) is value
    assert table.lookup((("app", "api"),)) is None


def test_a_promoted_entry_is_keyed_by_the_shared_instance_not_the_callers_copy() -> None:
    table = InternTable(capacity=1)
    shared = table.intern(_fresh("payments"))
    table.intern(_fresh("other"))  # rotation: "payments" is now in the old generation
    copy = _fresh("payments")
    references = sys.getrefcount(copy)
    assert table.intern(copy) is shared
    assert sys.getrefcount(copy) == references  # the table kept no reference to the copy


def test_capacity_must_be_positive() -> None:
    with pytest.raises(ValueError, match="capacity"):
        InternTable(capacity=0)


# -- Sharing: equal results -------------------------------------------------------
@settings(max_examples=100, deadline=None)
@given(st.lists(kube_objects, max_size=12), st.integers(min_value=1, max_value=6))
def test_shared_objects_equal_the_originals(objects: list[KubeObject], capacity: int) -> None:
    sharing = Sharing(capacity)  # small: later objects hit values of earlier ones, and rotate
    for obj in objects:
        shared = share(sharing, obj)
        assert shared == obj
        assert type(shared) is type(obj)
    assert [share(sharing, obj) for obj in objects] == objects


def test_sharing_does_not_mutate_its_argument() -> None:
    pod = _pod("web-1")
    before = msgspec.json.encode(pod)
    labels = pod.metadata.labels
    share(Sharing(), _pod("web-0"))
    share(Sharing(), pod)
    assert pod.metadata.labels is labels
    assert msgspec.json.encode(pod) == before


# -- Sharing: one copy of repeated parts ------------------------------------------
def test_two_pods_share_their_repeated_parts() -> None:
    sharing = Sharing()
    one, two = share(sharing, _pod("web-1")), share(sharing, _pod("web-2"))
    assert one.metadata.namespace is two.metadata.namespace
    assert one.metadata.labels is two.metadata.labels
    assert one.metadata.annotations is two.metadata.annotations
    assert one.metadata.owner_references is two.metadata.owner_references
    assert one.spec.node_name is two.spec.node_name
    assert one.spec.containers is two.spec.containers
    assert one.status.phase is two.status.phase
    assert one.status.conditions is two.status.conditions
    one_app, two_app = one.status.container_statuses[0], two.status.container_statuses[0]
    assert one_app.name is two_app.name
    assert one_app.image is two_app.image
    assert one_app.last_state is two_app.last_state


def test_a_status_without_per_pod_values_is_shared_whole() -> None:
    sharing = Sharing()
    one, two = share(sharing, _pod("web-1")), share(sharing, _pod("web-2"))
    assert one.status is two.status
    assert one.status.container_statuses is two.status.container_statuses


def test_per_pod_values_are_not_shared() -> None:
    sharing = Sharing()
    one, two = share(sharing, _pod("web-1")), share(sharing, _pod("web-2"))
    assert one.metadata.uid != two.metadata.uid
    assert one.metadata is not two.metadata


def test_a_status_that_differs_keeps_its_own_and_shares_the_rest() -> None:
    sharing = Sharing()
    one = share(sharing, _pod("web-1"))
    restarted = _pod("web-2")
    status = restarted.status.container_statuses[0]
    bumped = msgspec.structs.replace(status, restart_count=3)
    restarted = msgspec.structs.replace(
        restarted,
        status=msgspec.structs.replace(restarted.status, container_statuses=(bumped,)),
    )
    two = share(sharing, restarted)
    assert one.status != two.status
    assert two.status.container_statuses[0].restart_count == 3
    assert one.status.container_statuses[0].restart_count == 0
    assert one.status.conditions is two.status.conditions
    assert one.status.container_statuses[0].state is two.status.container_statuses[0].state


def test_a_status_first_missed_is_held_with_its_parts_shared_and_found_next_time() -> None:
    sharing = Sharing()
    one = share(sharing, _pod("web-1"))
    moved = _pod("web-2", ready="False")
    two, three = share(sharing, moved), share(sharing, _pod("web-3", ready="False"))
    assert two.status is three.status  # held on the miss, found whole on the next Pod
    assert two.status.container_statuses is one.status.container_statuses


def test_add_holds_a_value_without_looking_and_skips_large_ones() -> None:
    table = InternTable(capacity=8, max_item_bytes=10)
    held = table.add("".join(["x"] * 5))
    again = "".join(["x"] * 5)
    assert again is not held
    assert table.intern(again) is held
    large = "y" * 50
    assert table.add(large) is large
    assert table.lookup(large) is None


def test_differing_parts_stay_different() -> None:
    sharing = Sharing()
    ready, unready = share(sharing, _pod("web-1")), share(sharing, _pod("web-2", ready="False"))
    assert ready.status.conditions != unready.status.conditions
    assert ready.status.conditions[0].status == "True"
    assert unready.status.conditions[0].status == "False"
    assert ready.metadata.labels is unready.metadata.labels


def test_unique_strings_do_not_fill_the_tables() -> None:
    sharing = Sharing()
    share(sharing, _pod("web-0"))
    size = len(sharing.values), len(sharing.mappings)
    for index in range(1, 200):
        share(sharing, _pod(f"web-{index}"))  # new name, uid, resourceVersion, timestamps
    assert (len(sharing.values), len(sharing.mappings)) == size


def test_equal_label_sets_share_one_dict_and_different_ones_do_not() -> None:
    sharing = Sharing()
    first = sharing.mapping({"a": "b", "c": "d"})
    assert sharing.mapping({"a": "b", "c": "d"}) is first
    swapped = sharing.mapping({"a": "c", "b": "d"})  # same strings, other pairs
    assert swapped == {"a": "c", "b": "d"}
    assert swapped is not first


def test_empty_mappings_are_shared() -> None:
    sharing = Sharing()
    assert sharing.mapping({}) is sharing.mapping({})


def test_deployments_share_their_template_and_conditions() -> None:
    document = {
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "shop", "labels": {"app": "web"}},
        "spec": {
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "app", "image": "example.com/web:1.2"}]},
            }
        },
        "status": {"conditions": [{"type": "Available", "status": "True"}]},
    }
    raw = msgspec.json.encode(document)
    sharing = Sharing()
    one = share(sharing, msgspec.json.decode(raw, type=Deployment))
    two = share(sharing, msgspec.json.decode(raw, type=Deployment))
    assert isinstance(one, Deployment)
    assert isinstance(two, Deployment)
    assert one.metadata.labels is two.spec.template.metadata.labels
    assert one.spec.template.spec.containers is two.spec.template.spec.containers
    assert one.status.conditions is two.status.conditions


def test_services_share_their_selector_and_ports() -> None:
    document = {
        "kind": "Service",
        "metadata": {"name": "web", "namespace": "shop"},
        "spec": {"selector": {"app": "web"}, "ports": [{"port": 80, "targetPort": 8080}]},
    }
    raw = msgspec.json.encode(document)
    sharing = Sharing()
    one = share(sharing, msgspec.json.decode(raw, type=Service))
    two = share(sharing, msgspec.json.decode(raw, type=Service))
    assert isinstance(one, Service)
    assert isinstance(two, Service)
    assert one.spec.selector is two.spec.selector
    assert one.spec.ports is two.spec.ports


def test_concurrent_sharing_returns_equal_objects() -> None:
    sharing = Sharing(capacity=16)  # small: threads race through rotations
    pods = [_pod(f"web-{index}", node=f"node-{index % 7}") for index in range(300)]
    failures: list[str] = []

    def share_all() -> None:
        for pod in pods:
            if share(sharing, pod) != pod:
                failures.append(pod.metadata.name)

    threads = [threading.Thread(target=share_all) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


# -- freeze_heap ----------------------------------------------------------------------
class _Node:
    def __init__(self) -> None:
        self.me = self


def test_freeze_heap_collects_garbage_before_freezing() -> None:
    cycle = _Node()
    alive = weakref.ref(cycle)
    del cycle
    try:
        frozen = freeze_heap()
        assert alive() is None  # frozen garbage would never be freed
        assert frozen == gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()

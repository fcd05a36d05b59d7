"""The stand-in's data: pages by key, history by resourceVersion, 410 below what it keeps."""

from __future__ import annotations

import json

import pytest

from bench.scale.store import (
    SNAPSHOTS,
    Cluster,
    Collection,
    GoneError,
    decode_token,
    list_body,
)


def pod(name: str, seq: int = 0, version: int = 1) -> bytes:
    """A Pod written at ``version`` (what ``modify`` is given: the object as it is now, changed)."""
    return b'{"metadata":{"name":"%s","resourceVersion":"%d","labels":{"seq":"%d"}}}' % (
        name.encode(),
        version,
        seq,
    )


def cluster_of(keys: list[tuple[str, str]], history: int = 100) -> Cluster:
    cluster = Cluster.empty(history)
    for namespace, name in keys:
        cluster.load("pods", (namespace, name), pod(name))
    return cluster


def test_load_writes_the_version_into_each_object() -> None:
    cluster = cluster_of([("a", "x"), ("a", "y")])
    pods = cluster.collections["pods"]
    assert json.loads(pods.objects[("a", "y")])["metadata"]["resourceVersion"] == "2"
    assert cluster.version == 2


def test_pages_follow_key_order_and_carry_the_first_pages_version() -> None:
    cluster = cluster_of([("b", "1"), ("a", "2"), ("a", "1"), ("c", "1")])
    pods = cluster.collections["pods"]
    first = pods.page(None, 3, "", cluster.version)
    assert [json.loads(i)["metadata"]["name"] for i in first.items] == ["1", "2", "1"]
    assert first.remaining == 1
    cluster.modify("pods", ("c", "1"), pods.objects[("c", "1")])  # the version moves on
    second = pods.page(None, 3, first.continue_token, cluster.version)
    assert len(second.items) == 1
    assert (second.continue_token, second.remaining) == ("", 0)
    assert second.version == first.version == 4
    assert decode_token(first.continue_token) == (4, ("b", "1"))


def test_later_pages_serve_the_objects_as_they_were_at_the_lists_version() -> None:
    cluster = cluster_of([("a", "1"), ("a", "2"), ("a", "3")])
    pods = cluster.collections["pods"]
    first = pods.page(None, 1, "", cluster.version)
    cluster.modify("pods", ("a", "2"), pod("2", 7, version=2))  # changed while listed
    cluster.delete("pods", ("a", "3"))
    cluster.add("pods", ("a", "4"), pod("4", version=0))
    rest = pods.page(None, 10, first.continue_token, cluster.version)
    served = [json.loads(i)["metadata"] for i in rest.items]
    assert [(m["name"], m["labels"]["seq"], m["resourceVersion"]) for m in served] == [
        ("2", "0", "2"),
        ("3", "0", "3"),
    ]  # what changed after the list's version comes as watch events after it
    assert [e.version for e in pods.since(first.version, None)] == [4, 5, 6]


def test_a_page_asked_again_is_served_again_until_its_snapshot_is_let_go() -> None:
    cluster = cluster_of([("a", str(n)) for n in range(SNAPSHOTS + 2)])
    pods = cluster.collections["pods"]
    token = pods.page(None, 1, "", cluster.version).continue_token
    assert pods.page(None, 1, token, cluster.version) == pods.page(None, 1, token, cluster.version)
    for _ in range(SNAPSHOTS):  # lists begun since, each at a later version
        cluster.modify("pods", ("a", "0"), pods.objects[("a", "0")])
        pods.page(None, 1, "", cluster.version)
    with pytest.raises(GoneError):
        pods.page(None, 1, token, cluster.version)


def test_a_namespace_pages_only_its_own_keys() -> None:
    cluster = cluster_of([("a", "1"), ("b", "1"), ("b", "2"), ("c", "1")])
    page = cluster.collections["pods"].page("b", 0, "", cluster.version)
    assert len(page.items) == 2
    assert page.continue_token == ""


def test_since_returns_later_events_of_the_namespace_asked_for() -> None:
    cluster = cluster_of([("a", "1"), ("b", "1")])
    pods = cluster.collections["pods"]
    first = cluster.modify("pods", ("a", "1"), pod("1", 1, version=1))
    second = cluster.modify("pods", ("b", "1"), pod("1", 2, version=2))
    assert pods.since(first.version, None) == [second]
    assert pods.since(cluster.version - 2, "a") == [first]
    assert b'"resourceVersion":"4"' in second.line
    assert second.line.startswith(b'{"type":"MODIFIED","object":{"kind":"Pod","apiVersion":"v1",')


def test_versions_older_than_the_history_are_gone() -> None:
    cluster = cluster_of([("a", "1")], history=2)
    with pytest.raises(GoneError):
        cluster.collections["pods"].since(0, None)  # before the initial objects
    for seq in range(1, 6):
        cluster.modify("pods", ("a", "1"), pod("1", seq, version=seq))  # 5 events; 4 or fewer kept
    pods = cluster.collections["pods"]
    with pytest.raises(GoneError):
        pods.since(1, None)
    assert [e.version for e in pods.since(4, None)] == [5, 6]


def test_forgetting_history_expires_watches_and_continue_tokens() -> None:
    cluster = cluster_of([("a", "1"), ("a", "2")])
    pods = cluster.collections["pods"]
    token = pods.page(None, 1, "", cluster.version).continue_token
    cluster.modify("pods", ("a", "1"), pod("1", 1))
    cluster.forget_history()
    with pytest.raises(GoneError):
        pods.since(2, None)
    with pytest.raises(GoneError):
        pods.page(None, 1, token, cluster.version)
    assert pods.since(cluster.version, None) == []


def test_a_malformed_continue_token_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="continue token"):
        Collection("Pod", "v1").page(None, 1, "not-base64!", 0)


def test_list_body_is_a_list_of_the_kind() -> None:
    cluster = cluster_of([("a", "1")])
    pods = cluster.collections["pods"]
    body = json.loads(list_body(pods, pods.page(None, 0, "", cluster.version)))
    assert body["kind"] == "PodList"
    assert body["metadata"] == {"resourceVersion": "1"}
    assert body["items"][0]["metadata"]["name"] == "1"

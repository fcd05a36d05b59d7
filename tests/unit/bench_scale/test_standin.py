"""The stand-in API server speaks the API's protocol: pages, watch from a resourceVersion,
bookmarks, 410 for what its history no longer holds. Against the real process on 127.0.0.1."""

from __future__ import annotations

import http.client
import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.scale.processes import StandInProcess
from bench.scale.standin import listening_socket

PODS, NAMESPACES = 300, 6


@pytest.fixture(scope="module")
def standin(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandInProcess]:
    work_dir = Path(tmp_path_factory.mktemp("standin"))
    process = StandInProcess(work_dir, pods=PODS, namespaces=NAMESPACES, bookmark_seconds=0.2)
    process.start(timeout=60)
    try:
        yield process
    finally:
        process.stop()


def get(standin: StandInProcess, path: str) -> tuple[int, dict[str, Any]]:
    connection = http.client.HTTPConnection("127.0.0.1", standin.port, timeout=10)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def watch(standin: StandInProcess, path: str, count: int) -> list[dict[str, Any]]:
    """The first ``count`` events of a watch (fewer if the stream ends), each within 10 s."""
    connection = http.client.HTTPConnection("127.0.0.1", standin.port, timeout=10)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        assert response.status == 200
        assert response.getheader("Transfer-Encoding") == "chunked"
        events: list[dict[str, Any]] = []
        while len(events) < count and (line := response.readline()):
            events.append(json.loads(line))
        return events
    finally:
        connection.close()


def names(page: dict[str, Any]) -> list[str]:
    return [f"{i['metadata']['namespace']}/{i['metadata']['name']}" for i in page["items"]]


def current_version(standin: StandInProcess) -> int:
    return int(get(standin, "/api/v1/pods?limit=1")[1]["metadata"]["resourceVersion"])


def test_a_paged_list_returns_every_pod_once_at_one_resource_version(
    standin: StandInProcess,
) -> None:
    status, page = get(standin, "/api/v1/pods?limit=70")
    seen, versions, remaining = names(page), {page["metadata"]["resourceVersion"]}, []
    while (token := page["metadata"].get("continue")) and len(seen) <= PODS:
        remaining.append(page["metadata"]["remainingItemCount"])
        status, page = get(standin, f"/api/v1/pods?limit=70&continue={token}")
        assert status == 200
        seen += names(page)
        versions.add(page["metadata"]["resourceVersion"])
    assert len(seen) == len(set(seen)) == PODS
    assert seen == sorted(seen, key=lambda key: tuple(key.split("/")))
    assert remaining == [230, 160, 90, 20]
    assert len(versions) == 1
    assert page["kind"] == "PodList"
    assert "kind" not in page["items"][0]  # list items carry no kind, as kube-apiserver's


def test_a_namespaced_list_holds_only_that_namespace(standin: StandInProcess) -> None:
    status, page = get(standin, "/apis/apps/v1/namespaces/team-0002/deployments")
    assert status == 200
    assert page["kind"] == "DeploymentList"
    assert {item["metadata"]["namespace"] for item in page["items"]} == {"team-0002"}
    assert len(page["items"]) == 2


def test_a_watch_from_a_resource_version_sends_only_later_changes(
    standin: StandInProcess,
) -> None:
    standin.control("burst", 30, rate=1000, seconds=0.01)  # 10 changes before the version taken
    version = current_version(standin)
    made = standin.control("burst", 30, rate=1000, seconds=0.005)["changes"]
    events = watch(standin, f"/api/v1/pods?watch=true&resourceVersion={version}", made)
    versions = [int(e["object"]["metadata"]["resourceVersion"]) for e in events]
    assert len(events) == made == 5
    assert all(e["type"] == "MODIFIED" and e["object"]["kind"] == "Pod" for e in events)
    assert versions == sorted(versions)
    assert versions[0] == version + 1
    assert versions[-1] == current_version(standin)


def test_a_namespaced_watch_sends_only_its_namespace(standin: StandInProcess) -> None:
    version = current_version(standin)
    standin.control("burst", 30, rate=1000, seconds=0.06)  # 60 Pods of 300 over 6 namespaces
    events = watch(
        standin,
        f"/api/v1/namespaces/team-0001/pods?watch=true&resourceVersion={version}&timeoutSeconds=1",
        60,
    )
    assert events
    assert {e["object"]["metadata"]["namespace"] for e in events} == {"team-0001"}


def test_a_quiet_watch_gets_bookmarks_at_the_current_version(standin: StandInProcess) -> None:
    version = current_version(standin)
    query = f"watch=true&resourceVersion={version}&allowWatchBookmarks=true"
    events = watch(standin, f"/api/v1/services?{query}", 2)
    assert [e["type"] for e in events] == ["BOOKMARK", "BOOKMARK"]
    assert events[0]["object"]["kind"] == "Service"
    assert int(events[0]["object"]["metadata"]["resourceVersion"]) == version


def test_no_bookmarks_unless_asked(standin: StandInProcess) -> None:
    version = current_version(standin)
    events = watch(
        standin, f"/api/v1/services?watch=true&resourceVersion={version}&timeoutSeconds=1", 1
    )
    assert events == []  # the stream ended at its timeout with nothing in it


def test_a_watch_from_a_compacted_version_gets_410_expired(standin: StandInProcess) -> None:
    events = watch(standin, "/api/v1/pods?watch=true&resourceVersion=1", 2)
    assert len(events) == 1  # then the stream ends
    assert events[0]["type"] == "ERROR"
    assert events[0]["object"]["code"] == 410
    assert events[0]["object"]["reason"] == "Expired"


def test_gone_ends_open_watches_and_expires_continue_tokens(standin: StandInProcess) -> None:
    status, page = get(standin, "/api/v1/pods?limit=10")
    version = page["metadata"]["resourceVersion"]
    standin.control("burst", 30, rate=1000, seconds=0.003)
    standin.control("gone", 30)
    events = watch(standin, f"/api/v1/pods?watch=true&resourceVersion={version}", 5)
    assert [(e["type"], e["object"]["code"]) for e in events] == [("ERROR", 410)]
    status, body = get(standin, f"/api/v1/pods?limit=10&continue={page['metadata']['continue']}")
    assert (status, body["reason"], body["code"]) == (410, "Expired", 410)
    assert (
        watch(
            standin,
            f"/api/v1/pods?watch=true&resourceVersion={current_version(standin)}&timeoutSeconds=1",
            1,
        )
        == []
    )


def test_connections_are_accepted_without_nagle() -> None:
    """Else each answer on a kept-alive connection waits ~40 ms for the client's delayed ACK."""
    sock = listening_socket(0)
    try:
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        client = socket.create_connection(sock.getsockname(), timeout=5)
        accepted, _ = sock.accept()
        assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        accepted.close()
        client.close()
    finally:
        sock.close()


def test_what_it_does_not_serve_is_a_404_status_and_a_log_line(standin: StandInProcess) -> None:
    for path in ("/api/v1/namespaces/team-0001/configmaps", "/apis/coordination.k8s.io/v1/leases"):
        status, body = get(standin, path)
        assert (status, body["kind"], body["code"]) == (404, "Status", 404)
        assert f"unserved: GET {path}" in standin.log_tail()

"""The demo ends only once the messages its scenario causes have arrived, and names what has not."""

from __future__ import annotations

import json
from typing import Any

from scripts.demo_scenario import missing
from tests.support.webhook_server import ReceivedRequest


def _request(body: dict[str, Any]) -> ReceivedRequest:
    return ReceivedRequest("POST", "/hook", {}, json.dumps(body).encode(), arrived_at=0.0)


def _told(kind: str, key: str, text: str) -> dict[str, Any]:
    namespace, name = key.split("/")
    obj = {"kind": kind, "namespace": namespace, "name": name}
    return {"type": "transition", "object": obj, "transition": {"text": text}}


BATCH = {
    "type": "digest",
    "group": {"namespace": "batch", "transition": "Failed"},
    "count": 50,
    "items": [{"kind": "Pod", "namespace": "batch", "name": "job-00", "transition": "Failed"}],
}
EVERYTHING = [
    _told("Deployment", "demo/web", "Progressing -> Unavailable"),
    _told("Deployment", "demo/web", "Progressing -> Stuck"),
    _told("Pod", "demo/web-7cc99c55bf-gd8l2", "Pending -> ImagePullBackOff"),
    _told("Pod", "demo/worker-hungry", "Ready, Running -> OOMKilled, Failed"),
    _told("Pod", "demo/worker-crashy", "Ready -> CrashLoopBackOff, NotReady"),
    BATCH,
]


def test_nothing_is_missing_once_every_message_arrived() -> None:
    assert missing([_request(body) for body in EVERYTHING]) == []


def test_the_stuck_rollout_is_missing_until_its_pod_failing_to_pull_is_told() -> None:
    arrived = [body for body in EVERYTHING if "ImagePull" not in json.dumps(body)]
    assert missing([_request(body) for body in arrived]) == [
        "a Pod of Deployment demo/web failing to pull its image"
    ]


def test_a_digest_of_fewer_pods_is_not_the_batch() -> None:
    partial = {**BATCH, "count": 20}
    arrived = [_request(body) for body in EVERYTHING if body is not BATCH] + [_request(partial)]
    assert missing(arrived) == ["one digest of the 50 failed Pods in batch"]


def test_a_member_of_a_digest_counts_for_its_object() -> None:
    member = {"kind": "Pod", "namespace": "demo", "name": "worker-crashy"}
    digest = {"type": "digest", "count": 1, "items": [{**member, "transition": "CrashLoopBackOff"}]}
    arrived = [b for b in EVERYTHING if "worker-crashy" not in json.dumps(b)] + [digest]
    assert missing([_request(body) for body in arrived]) == []

"""The demo plays on a real node where one can run (else on kwok, saying why), waits there
for one message per Pod and fails if a Pod is told twice."""

from __future__ import annotations

import json
from typing import Any

import pytest

from scripts import demo
from scripts.demo_node import missing, told_twice
from tests.controlplane import node
from tests.support.webhook_server import ReceivedRequest


def _request(body: dict[str, Any]) -> ReceivedRequest:
    return ReceivedRequest("POST", "/hook", {}, json.dumps(body).encode(), arrived_at=0.0)


def _told(name: str, text: str) -> dict[str, Any]:
    obj = {"kind": "Pod", "namespace": "demo", "name": name}
    return {"type": "transition", "object": obj, "transition": {"text": text}}


CRASH = _told("worker-crashy", "Ready -> CrashLoopBackOff, NotReady")
OOM = _told("worker-hungry", "Ready -> OOMKilled, CrashLoopBackOff, NotReady")


def test_both_pods_told_once_is_complete_and_no_repeat() -> None:
    arrived = [_request(CRASH), _request(OOM)]
    assert (missing(arrived), told_twice(arrived)) == ([], [])


def test_the_oom_kill_is_missing_until_a_message_names_oomkilled() -> None:
    hidden = _told("worker-hungry", "Ready -> CrashLoopBackOff, NotReady")
    assert missing([_request(CRASH), _request(hidden)]) == ["Pod demo/worker-hungry OOMKilled"]


def test_a_second_message_about_the_crash_loop_is_told_twice() -> None:
    again = _told("worker-crashy", "NotReady -> CrashLoopBackOff")
    arrived = [_request(CRASH), _request(OOM), _request(again)]
    assert told_twice(arrived) == ["worker-crashy"]


def test_a_digest_member_counts_for_its_pod() -> None:
    member = {"kind": "Pod", "namespace": "demo", "name": "worker-crashy"}
    digest = {"type": "digest", "count": 1, "items": [{**member, "transition": "CrashLoopBackOff"}]}
    arrived = [_request(digest), _request(OOM)]
    assert (missing(arrived), told_twice(arrived)) == ([], [])


def test_the_demo_plays_on_kwok_saying_why_where_no_node_can_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(node, "unavailable", lambda: "a real node needs root")
    assert demo.kwok_reason([]) == "a real node needs root"


def test_the_demo_plays_on_a_real_node_where_one_can_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(node, "unavailable", lambda: None)
    assert (demo.kwok_reason([]), demo.kwok_reason(["--kwok"])) == (None, "--kwok was given")

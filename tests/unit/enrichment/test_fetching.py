from __future__ import annotations

import json

from notifier.enrichment.config import EnrichmentConfig
from notifier.enrichment.fetching import ContextFetcher
from notifier.kinds.registry import KINDS
from notifier.queue.rate_limiters import TokenBucket
from notifier.source.client import ApiError
from tests.unit.enrichment.fakes import (
    DEPLOY_PATH,
    EVENTS_PATH,
    LOG_PATH,
    RS_PATH,
    FakeApi,
    owned_by,
    request,
)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _events(*items: dict[str, object]) -> bytes:
    return json.dumps({"items": list(items)}).encode()


def _fetcher(api: FakeApi, clock: Clock | None = None, **settings: object) -> ContextFetcher:
    clock = clock or Clock()
    config = EnrichmentConfig.model_validate(settings)
    bucket = TokenBucket(config.requests_per_second, config.burst, clock)
    return ContextFetcher(api, config, bucket=bucket, clock=clock, kinds=KINDS)  # type: ignore[arg-type]


def test_every_part_is_fetched_bounded_and_redacted() -> None:
    log = "\n".join([f"line {n}" for n in range(30)] + ["token=s3cr3t", "\x1b[31mpanic\x1b[0m"])
    api = FakeApi({
        LOG_PATH: log.encode(),
        EVENTS_PATH: _events(
            {"reason": "Old", "message": "m", "count": 1, "lastTimestamp": "2026-01-01T00:00:00Z"},
            {"reason": "BackOff", "message": "Back-off", "count": 9,
             "lastTimestamp": "2026-01-02T00:00:00Z"},
        ),
        RS_PATH: owned_by("Deployment", "web"),
        DEPLOY_PATH: b'{"metadata": {}}',
    })  # fmt: skip
    context = _fetcher(api, log_lines=3).fetch(request(), deadline=110.0)
    assert context.problems == ()
    [found] = context.logs
    assert found.lines == ("line 29", "token=[REDACTED]", "panic") and found.truncated
    assert [e.reason for e in context.events] == ["BackOff", "Old"]
    assert context.owners == ("ReplicaSet/web-7d9f", "Deployment/web")
    (_, log_query, _), (_, event_query, _) = api.asked[:2]
    assert log_query["previous"] == "true" and log_query["tailLines"] == "3"
    assert event_query["fieldSelector"] == "involvedObject.uid=uid-1,type=Warning"


def test_a_refused_part_is_said_with_the_permission_it_needs_and_the_rest_still_comes() -> None:
    forbidden = ApiError(403, "Forbidden", 'pods "web-1" is forbidden', None)
    api = FakeApi({LOG_PATH: forbidden, EVENTS_PATH: _events(), RS_PATH: b"{}"})
    context = _fetcher(api).fetch(request(), deadline=110.0)
    [problem] = context.problems
    assert problem.startswith("logs: previous log of app: forbidden (needs get on pods/log)")
    assert context.owners == ("ReplicaSet/web-7d9f",)


def test_each_request_gets_only_the_time_left_and_none_once_it_is_gone() -> None:
    clock = Clock()

    def slow() -> bytes:
        clock.now += 4.0
        return b'{"items": []}'

    api = FakeApi({LOG_PATH: slow, EVENTS_PATH: slow, RS_PATH: b"{}"})
    context = _fetcher(api, clock).fetch(request(), deadline=clock.now + 5.0)
    assert [round(timeout, 1) for _, _, timeout in api.asked] == [5.0, 1.0]
    assert context.problems == ("owners: no time left (enrichment.timeout_seconds)",)


def test_past_the_request_rate_a_part_is_skipped_not_waited_for_beyond_the_deadline() -> None:
    api = FakeApi({LOG_PATH: b"x", EVENTS_PATH: _events(), RS_PATH: b"{}"})
    fetcher = _fetcher(api, requests_per_second=0.01, burst=2)
    context = fetcher.fetch(request(), deadline=103.0)
    assert len(api.asked) == 2
    assert context.problems == (
        "owners: skipped: over the API request rate (enrichment.requests_per_second)",
    )


def test_the_owner_chain_stops_at_its_depth_and_at_kinds_it_cannot_place() -> None:
    api = FakeApi({RS_PATH: owned_by("Deployment", "web"), DEPLOY_PATH: owned_by("Rollout", "r")})
    only_owners = request(parts=("owners",))
    assert _fetcher(api).fetch(only_owners, 110.0).owners == (
        "ReplicaSet/web-7d9f", "Deployment/web", "Rollout/r",
    )  # fmt: skip
    assert _fetcher(api, owner_depth=1).fetch(only_owners, 110.0).owners == ("ReplicaSet/web-7d9f",)


def test_an_object_without_a_log_to_show_asks_nothing_and_says_nothing() -> None:
    api = FakeApi({})
    context = _fetcher(api).fetch(request(parts=("logs",), logs=()), 110.0)
    assert not context and api.asked == []


def test_a_nodes_events_are_found_by_kind_and_name() -> None:
    api = FakeApi({"/api/v1/events": _events({"reason": "NodeNotReady", "message": "m"})})
    node = request(parts=("events",), kind="Node", namespace="", name="node-a", uid="1f2e")
    [event] = _fetcher(api).fetch(node, 110.0).events
    assert event.reason == "NodeNotReady"
    [(_, query, _)] = api.asked
    assert (
        query["fieldSelector"] == "involvedObject.kind=Node,involvedObject.name=node-a,type=Warning"
    )


def test_an_unreadable_event_list_is_a_problem_not_an_exception() -> None:
    api = FakeApi({EVENTS_PATH: b"<html>proxy error</html>"})
    [problem] = _fetcher(api).fetch(request(parts=("events",)), 110.0).problems
    assert problem.startswith("events: unreadable answer")


def test_owners_of_one_wave_are_looked_up_once_and_again_after_a_minute() -> None:
    clock = Clock()
    api = FakeApi({RS_PATH: owned_by("Deployment", "web"), DEPLOY_PATH: b"{}"})
    fetcher = _fetcher(api, clock)
    chains = [
        fetcher.fetch(request(parts=("owners",), name=f"web-{n}"), 200.0).owners for n in range(3)
    ]
    assert chains == [("ReplicaSet/web-7d9f", "Deployment/web")] * 3
    assert api.paths() == [RS_PATH, DEPLOY_PATH]
    clock.now += 61
    fetcher.fetch(request(parts=("owners",)), 300.0)
    assert api.paths() == [RS_PATH, DEPLOY_PATH] * 2

"""The decision ring: bounded, newest first, searchable by object, in words."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from notifier.api.decision_log import DecisionLog
from notifier.api.page.views import SendState, Told
from notifier.api.page.wording import outcome, reasons
from notifier.kinds.diffing import Change
from notifier.rules.decisions import Decision
from tests.unit.rules.builders import crashloop, transition
from tests.unit.sinks.factories import notification

DELIVERED = {"hook": SendState("hook", "delivered", attempts=1)}


def _as(states: dict[str, SendState]) -> Callable[[Told], SendState]:
    return lambda told: states.get(told.sink, SendState(told.sink, "unknown"))


def test_the_ring_keeps_the_last_n_and_pages_them_newest_first() -> None:
    log = DecisionLog(size=100)
    for index in range(250):
        log.record(crashloop(metadata={"name": f"web-{index}"}), Decision(matched=()))
    first = log.search("", 0, 50)
    assert first.total == 100 and first.has_next
    assert first.items[0].name == "web-249" and first.items[-1].name == "web-200"
    assert log.search("", 50, 50).items[-1].name == "web-150"
    assert not log.search("", 50, 50).has_next


def test_search_finds_an_object_by_name_or_namespace_any_case() -> None:
    log = DecisionLog()
    for name in ("api-1", "web-1", "web-2"):
        log.record(crashloop(metadata={"name": name}), Decision(matched=()))
    assert [r.name for r in log.search("WEB-", 0, 10).items] == ["web-2", "web-1"]
    assert log.search("shop/api-1", 0, 10).total == 1
    assert log.search("pod/shop/", 0, 10).total == 3


def test_a_decision_in_words() -> None:
    silenced = Decision(matched=("pod-crash",), suppressed=[("pod-crash", "silenced by ab12")])
    log = DecisionLog()
    log.record(crashloop(), silenced)
    log.record(crashloop(), Decision(matched=()))
    log.record(crashloop(), Decision(matched=("pod-crash",), notifications=[notification()]))
    told, nothing, muted = log.search("", 0, 3).items
    sent = _as(DELIVERED)
    assert outcome(muted, sent) == "silenced"
    assert reasons(muted, sent) == ["rule pod-crash: silenced by ab12"]
    assert outcome(nothing, sent) == "no rule matched"
    assert outcome(told, sent) == "sent" and reasons(told, sent) == [
        "rule pod-crash to hook: delivered"
    ]
    assert told.as_json()["notifications"][0]["sink"] == "hook"


def test_told_is_what_each_sink_made_of_it_the_least_lucky_first() -> None:
    log = DecisionLog()
    log.record(
        crashloop(),
        Decision(
            matched=("pod-crash",), notifications=[notification("hook"), notification("pager")]
        ),
    )
    (told,) = log.search("", 0, 1).items
    dead = SendState("pager", "dead-lettered", "http_400: bad payload", 1)
    retrying = SendState("pager", "retrying", "http_500: oops", 2)
    queued = SendState("pager", "queued")
    assert outcome(told, _as({**DELIVERED, "pager": dead})) == "dead-lettered"
    assert reasons(told, _as({**DELIVERED, "pager": dead})) == [
        "rule pod-crash to hook: delivered",
        "rule pod-crash to pager: dead-lettered after 1 attempt: http_400: bad payload",
    ]
    assert outcome(told, _as({**DELIVERED, "pager": retrying})) == "retrying"
    assert "retrying after attempt 2 failed: http_500: oops" in reasons(
        told, _as({**DELIVERED, "pager": retrying}))[1]  # fmt: skip
    assert outcome(told, _as({**DELIVERED, "pager": queued})) == "queued"
    assert outcome(told, _as(DELIVERED)) == "handed on"  # pager: never handed over here
    assert "a standby" in reasons(told, _as(DELIVERED))[1]


def test_a_list_cut_says_how_many_more_and_a_value_cut_ends_with_an_ellipsis() -> None:
    changes = tuple(Change(f"metadata.labels.l{i}", "a" * 300, str(i)) for i in range(8))
    log = DecisionLog()
    log.record(replace(crashloop(), changes=changes), Decision(matched=()))
    (record,) = log.search("", 0, 1).items
    assert len(record.changes) == 5 and record.changes_left_out == 3
    assert record.changes[0] == f"metadata.labels.l0: {'a' * 200}… -> 0"
    assert record.as_json()["changes_left_out"] == 3


def test_an_events_message_is_kept() -> None:
    event = {"apiVersion": "v1", "kind": "Event", "type": "Warning", "reason": "FailedMount",
             "message": "MountVolume.SetUp failed " + "x" * 300,
             "metadata": {"name": "web-1.17a", "namespace": "shop"},
             "involvedObject": {"kind": "Pod", "name": "web-1"}}  # fmt: skip
    log = DecisionLog()
    log.record(transition(None, event, new_states={"Warning"}), Decision(matched=()))
    log.record(crashloop(), Decision(matched=()))
    pod, warning = log.search("", 0, 2).items
    assert warning.message.startswith("FailedMount: MountVolume.SetUp failed xx")
    assert len(warning.message) == 201 and warning.message.endswith("…")
    assert pod.message == ""


def test_the_ring_keeps_no_large_value_of_an_object() -> None:
    """Ten thousand records of an annotation churned with 200 KB values would hold 4 GB."""
    huge = "x" * 200_000
    transition = replace(crashloop(), changes=(Change("metadata.annotations.note", huge, huge),))
    log = DecisionLog(size=1)
    log.record(transition, Decision(matched=()))
    [kept] = log.search("", 0, 1).items[0].first_changes
    assert len(kept.old or "") <= 201 and len(kept.new or "") <= 201  # the ellipsis


def test_why_not_says_the_likely_cause_it_was_sent_with_once() -> None:
    log = DecisionLog()
    told_twice = [notification("hook"), notification("pager")]
    log.record(crashloop(), Decision(matched=("pod-crash",), notifications=told_twice))
    (told,) = log.search("", 0, 1).items
    cause = "rollout of Deployment/web to revision 2, 40s before, by kubectl"
    states = {
        sink: SendState(sink, "delivered", attempts=1, cause=cause) for sink in ("hook", "pager")
    }
    assert reasons(told, _as(states)) == [
        "rule pod-crash to hook: delivered",
        f"likely cause: {cause}",
        "rule pod-crash to pager: delivered",
    ]

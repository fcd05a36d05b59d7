"""The decision ring: bounded, newest first, searchable by object, in words."""

from __future__ import annotations

from notifier.api.decisions import DecisionLog
from notifier.api.page.wording import outcome, reasons
from notifier.rules.decisions import Decision
from tests.unit.rules.builders import crashloop
from tests.unit.sinks.factories import notification


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
    assert outcome(muted) == "silenced" and reasons(muted) == ["rule pod-crash: silenced by ab12"]
    assert outcome(nothing) == "no rule matched"
    assert outcome(told) == "sent" and reasons(told) == ["sent by rule pod-crash to hook"]
    assert told.as_json()["notifications"][0]["sink"] == "hook"


def test_the_ring_keeps_no_large_value_of_an_object() -> None:
    """Ten thousand records of an annotation churned with 200 KB values would hold 4 GB."""
    from dataclasses import replace

    from notifier.kinds.diffing import Change

    huge = "x" * 200_000
    transition = replace(crashloop(), changes=(Change("metadata.annotations.note", huge, huge),))
    log = DecisionLog(size=1)
    log.record(transition, Decision(matched=()))
    [kept] = log.search("", 0, 1).items[0].first_changes
    assert len(kept.old or "") <= 200 and len(kept.new or "") <= 200

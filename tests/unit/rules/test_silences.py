"""Silences: matchers as amtool's, applied to every rule until they end."""

from __future__ import annotations

import pytest

from notifier.rules.engine import RulesEngine
from notifier.silences.book import Silence, SilenceBook, SilenceError, parse_matchers
from tests.unit.rules.builders import NOW, crashloop, ruleset

RULES = [{"name": "pod-failures", "match": {"kinds": ["Pod"], "to": ["CrashLoopBackOff"]},
          "sinks": ["console"], "dedup_window": 0}]  # fmt: skip


def _engine(book: SilenceBook) -> RulesEngine:
    compiled = ruleset(RULES)
    return RulesEngine(lambda: compiled, clock=lambda: NOW, silences=book)


def _silence(match: str, *, start: float = NOW - 60, end: float = NOW + 60) -> Silence:
    return Silence(id="s1", matchers=parse_matchers(match), starts_at=start, ends_at=end)


@pytest.mark.parametrize(
    "match",
    [
        "namespace=shop,kind=Pod",
        "name=web-*",
        "rule=pod-*",
        "label:app=web",
        "reason=CrashLoop*",
        "namespace=~^sh.p$",
    ],
)
def test_a_matching_active_silence_mutes_and_says_which(match: str) -> None:
    book = SilenceBook()
    assert book.replace([_silence(match)]) == []
    decision = _engine(book).decide(crashloop())
    assert decision.notifications == []
    assert decision.suppressed == [("pod-failures", "silenced by s1")]


@pytest.mark.parametrize(
    ("match", "start", "end"),
    [
        ("namespace=payments", NOW - 60, NOW + 60),  # another namespace
        ("kind=Deployment", NOW - 60, NOW + 60),
        ("namespace=shop,name=api-*", NOW - 60, NOW + 60),  # every matcher must hold
        ("namespace=shop", NOW - 120, NOW - 60),  # ended
        ("namespace=shop", NOW + 60, NOW + 120),  # not begun
    ],
)
def test_a_silence_that_does_not_hold_lets_it_through(match: str, start: float, end: float) -> None:
    book = SilenceBook()
    book.replace([_silence(match, start=start, end=end)])
    assert len(_engine(book).process(crashloop())) == 1


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "no matchers"),
        ("namespace", "write key=value"),
        ("zone=eu", "unknown matcher 'zone'"),
        ("name=~(", "name="),
    ],
)
def test_bad_matchers_are_refused_with_what_is_wrong(text: str, expected: str) -> None:
    with pytest.raises(SilenceError, match=expected):
        parse_matchers(text)


def test_a_bad_silence_in_the_list_is_left_out_and_named() -> None:
    book = SilenceBook()
    bad = Silence(id="bad", matchers={"zone": "eu"}, starts_at=0, ends_at=NOW * 2)
    problems = book.replace([bad, _silence("namespace=shop")])
    assert problems == [
        "silence bad: unknown matcher 'zone' (namespace, name, rule, reason, kind, label:<key>)"
    ]
    assert [s.id for s in book.all()] == ["s1"]

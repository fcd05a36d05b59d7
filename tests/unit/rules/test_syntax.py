"""Selectors, name patterns and durations: the small languages inside rules."""

from __future__ import annotations

import pytest

from notifier.rules.config.durations import parse_duration
from notifier.rules.matching.patterns import PatternError, parse_filter
from notifier.rules.matching.selectors import parse_selector
from notifier.templating.environment import format_duration

LABELS = {"app": "web", "tier": "frontend", "example.com/team": "a"}


@pytest.mark.parametrize(
    ("selector", "matches"),
    [
        ("", True),
        ("app=web", True),
        ("app = web", True),
        ("app==web", True),
        ("app=api", False),
        ("app!=api", True),
        ("missing!=x", True),
        ("app=web,tier!=frontend", False),
        ("app in (web,api)", True),
        ("app in (api)", False),
        ("app notin (api, db)", True),
        ("missing notin (x)", True),
        ("tier", True),
        ("missing", False),
        ("!missing", True),
        ("! tier", False),
        ("example.com/team=a", True),
        ("app in (web,api),tier,!canary", True),
        ("missing=", False),
    ],
)
def test_selector_semantics(selector: str, matches: bool) -> None:
    assert parse_selector(selector).matches(LABELS) is matches


@pytest.mark.parametrize(
    ("selector", "fragment"),
    [
        ("app in (web", "invalid selector requirement 'app in (web'"),
        ("app=web=x", "invalid selector requirement"),
        ("=web", "invalid selector requirement"),
        ("-bad-=x", "invalid label key '-bad-'"),
        ("app=not valid", "invalid selector requirement"),
        ("app=-x-", "invalid label value '-x-'"),
        ("app>3", "invalid label key 'app>3'"),
    ],
)
def test_selector_errors(selector: str, fragment: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_selector(selector)
    assert fragment in str(caught.value)


def test_annotation_values_may_be_free() -> None:
    selector = parse_selector("note=hello:world/1", free_values=True)
    assert selector.matches({"note": "hello:world/1"})


@pytest.mark.parametrize(
    ("patterns", "name", "matches"),
    [
        ([], "anything", True),
        (["prod"], "prod", True),
        (["prod"], "prod-2", False),
        (["prod-*"], "prod-2", True),
        (["prod-?"], "prod-22", False),
        (["[ab]-x"], "b-x", True),
        (["~^ci-[0-9]+$"], "ci-12", True),
        (["regex:ci-[0-9]+"], "ci-12x", False),
        (["!kube-*"], "kube-system", False),
        (["!kube-*"], "shop", True),
        (["*", "!shop"], "shop", False),
        (["shop", "~bill.*"], "billing", True),
    ],
)
def test_name_filters(patterns: list[str], name: str, matches: bool) -> None:
    assert parse_filter(patterns).matches(name) is matches


def test_exact_names_are_indexable() -> None:
    assert parse_filter(["a", "b", "!c*"]).exact_names() == frozenset({"a", "b"})
    assert parse_filter(["a", "b*"]).exact_names() is None
    assert parse_filter([]).exact_names() is None


def test_bad_regexes_are_all_reported_by_position() -> None:
    with pytest.raises(PatternError) as caught:
        parse_filter(["ok", "~(", "regex:[", "!~*"])
    assert [position for position, _ in caught.value.errors] == [1, 2, 3]
    assert "invalid regex '~('" in caught.value.errors[0][1]


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("30s", 30),
        ("5m", 300),
        ("1h30m", 5400),
        ("250ms", 0.25),
        ("2d", 172800),
        (45, 45),
        (1.5, 1.5),
        ("0", None),
    ],
)
def test_durations(text: str | float, seconds: float | None) -> None:
    if seconds is None:
        with pytest.raises(ValueError, match="expected a duration"):
            parse_duration(text)
    else:
        assert parse_duration(text) == seconds


@pytest.mark.parametrize("bad", ["5x", "-3s", "", "m", -1, True, float("nan"), None])
def test_bad_durations(bad: object) -> None:
    with pytest.raises(ValueError, match="expected a duration"):
        parse_duration(bad)


def test_format_duration() -> None:
    assert [format_duration(s) for s in (0, 45, 192, 7500, 356_000)] == [
        "0s",
        "45s",
        "3m12s",
        "2h5m",
        "4d2h",
    ]

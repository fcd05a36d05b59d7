"""A "did you mean" is worked out for the errors shown, and only for them."""

from __future__ import annotations

import difflib
from collections.abc import Iterator

import pytest

from notifier import suggestions
from notifier.config import ConfigError, load_config_text
from notifier.config.errors import MAX_SHOWN

RULES = 200


def misspelt_rules(count: int) -> str:
    lines = ["sinks: [{name: o, type: console}]", "defaults: {sinks: [o]}", "rules:"]
    for index in range(count):
        mistake = (f"descirption{index}: x", f"match: {{kinds: [Deploymnet{index}]}}")[index % 2]
        lines.append(f"  - {{name: r{index}, {mistake}}}")
    return "\n".join(lines) + "\n"


@pytest.fixture
def lookups(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The words difflib was asked about, from a cold cache."""
    asked: list[str] = []
    nearest = difflib.get_close_matches

    def counted(word: str, choices: list[str], n: int = 3) -> list[str]:
        asked.append(word)
        return nearest(word, choices, n=n)

    suggestions.did_you_mean.cache_clear()
    monkeypatch.setattr(difflib, "get_close_matches", counted)
    yield asked
    suggestions.did_you_mean.cache_clear()


def refused(text: str) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        load_config_text(text, "c.yaml")
    return caught.value


def test_every_printed_error_keeps_its_hint(lookups: list[str]) -> None:
    lines = str(refused(misspelt_rules(RULES))).splitlines()
    shown = lines[1 : 1 + MAX_SHOWN]
    assert lines[0] == f"{RULES} errors in config"
    assert all("(did you mean 'description'?)" in line for line in shown[0::2]), shown
    assert all("(did you mean 'Deployment'?)" in line for line in shown[1::2]), shown
    assert lines[-1] == f"... and {RULES - MAX_SHOWN} more"


def test_only_the_printed_errors_are_looked_up(lookups: list[str]) -> None:
    str(refused(misspelt_rules(RULES)))
    assert len(lookups) == MAX_SHOWN
    assert "Deploymnet1" in lookups and f"Deploymnet{RULES - 1}" not in lookups


def test_an_error_not_printed_still_says_its_hint_when_asked() -> None:
    error = refused(misspelt_rules(RULES))
    last = error.issues[-1]
    assert last.path == f"rules[{RULES - 1}].match.kinds[0]"
    assert "(did you mean 'Deployment'?)" in last.message

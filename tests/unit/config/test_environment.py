"""``${VAR}`` expansion: shell forms, the conditional form, nesting and errors."""

from __future__ import annotations

import pytest

from notifier.config.environment import ExpansionError, expand

ENVIRON = {"SET": "value", "EMPTY": "", "URL": "http://x:9/h"}


@pytest.mark.parametrize(
    ("text", "expanded"),
    [
        ("plain", "plain"),
        ("cost $5", "cost $5"),
        ("$${SET}", "${SET}"),
        ("${SET}", "value"),
        ("a-${SET}-b", "a-value-b"),
        ("${EMPTY}", ""),
        ("${UNSET:-fallback}", "fallback"),
        ("${EMPTY:-fallback}", "fallback"),
        ("${EMPTY-fallback}", ""),
        ("${UNSET-fallback}", "fallback"),
        ("${UNSET:-http://127.0.0.1:9000/hook}", "http://127.0.0.1:9000/hook"),
        ("${SET:+yes}", "yes"),
        ("${UNSET:+yes}", ""),
        ("${SET:+true:-false}", "true"),
        ("${EMPTY:+true:-false}", "false"),
        ("${EMPTY+set}", "set"),
        ("${UNSET:-${SET}}", "value"),
        ("${UNSET:-${ALSO_UNSET:-deep}}", "deep"),
        ("${URL}", "http://x:9/h"),
    ],
)
def test_expansion(text: str, expanded: str) -> None:
    assert expand(text, ENVIRON).value == expanded


def test_expansion_reports_use() -> None:
    assert expand("${SET}", ENVIRON).used
    assert not expand("$$ and $", ENVIRON).used


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("${UNSET}", "environment variable UNSET is not set"),
        ("${UNSET:?give the token}", "environment variable UNSET: give the token"),
        ("${EMPTY:?}", "environment variable EMPTY: is not set"),
        ("${SET", "expected '}' after SET"),
        ("${UNSET:-open", "unclosed reference"),
        ("${1X}", "invalid reference"),
        ("${}", "invalid reference"),
    ],
)
def test_expansion_errors(text: str, fragment: str) -> None:
    with pytest.raises(ExpansionError) as caught:
        expand(text, ENVIRON)
    assert fragment in str(caught.value)

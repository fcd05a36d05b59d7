"""Templates cannot build huge values at render time either: each way to grow one is bounded."""

from __future__ import annotations

import time

import pytest
from jinja2.exceptions import SecurityError, UndefinedError

from notifier.templating.environment import make_environment
from notifier.templating.sandbox import render_budget

HOSTILE = [
    "{{ n ** 999999999 }}",
    "{{ name * n }}",
    "{{ name|center(n) }}",
    "{{ ('%' ~ n ~ 's') % name }}",
    "{{ ('{:>' ~ n ~ '}').format(name) }}",
    "{{ name.ljust(n) }}",
    "{{ name|replace('a', 'a' * 1000)|replace('a', 'a' * 1000) }}",
    "{% for i in range(100000) %}{% for j in range(100000) %}.{% endfor %}{% endfor %}",
    "{% set s = name * 1000 %}{% set s = s ~ s ~ s ~ s ~ s ~ s ~ s ~ s %}{{ s ~ s ~ s ~ s }}",
    "{% for i in range(100000) %}{{ name }}{% endfor %}",
]


@pytest.mark.parametrize("source", HOSTILE)
def test_growth_past_the_bounds_fails_the_render_quickly(source: str) -> None:
    template = make_environment().from_string(source)
    started = time.monotonic()
    with render_budget(), pytest.raises(SecurityError):
        template.render(name="a" * 100, n=10**9)
    assert time.monotonic() - started < 2.0


def test_namespace_is_not_offered() -> None:
    template = make_environment().from_string("{% set ns = namespace(s='') %}{{ ns.s }}")
    with pytest.raises(UndefinedError):
        template.render()


def test_ordinary_templates_render_as_before() -> None:
    source = "{{ 2 ** 10 }} {{ 'ab' * 3 }} {{ [1] + [2] }} {{ a ~ b }} {{ '%5s'|format(a) }}"
    rendered = make_environment().from_string(source).render(a="x", b="y")
    assert rendered == "1024 ababab [1, 2] xy     x"

"""Configs built to freeze or exhaust the loader are refused in bounded time and memory, located."""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from notifier.config import ConfigError, read_config, read_config_text
from notifier.sinks.building import sink_problems
from notifier.sinks.registry import receiver_of

BASE = """
sinks:
  - {name: console, type: console}
rules:
  - name: r
    sinks: [console]
"""
SECONDS = 5.0  # far above what each takes (milliseconds); a regression freezes for minutes
PEAK_BYTES = 64 * 1024 * 1024


@contextmanager
def bounded() -> Iterator[None]:
    tracemalloc.start()
    started = time.monotonic()
    try:
        yield
    finally:
        took = time.monotonic() - started
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert took < SECONDS, f"took {took:.1f}s"
        assert peak < PEAK_BYTES, f"peak {peak / 2**20:.0f} MiB"


def _rejected(text: str) -> str:
    with bounded(), pytest.raises(ConfigError) as caught:
        read_config_text(text, "c.yaml", environ={})
    return str(caught.value)


@pytest.mark.parametrize(
    "expression",
    ["{{ 7 ** 999999999 }}", "{{ 'x' * 10**9 }}", "{{ (2 ** 64) ** 70 }}", "{{ [0] * 10**8 }}"],
)
def test_templates_whose_constants_would_explode_are_refused_when_built(expression: str) -> None:
    """A sink's template is compiled when the sink is built (``rules check`` and ``run``)."""
    text = BASE.replace("type: console}", f"type: console, template: {{text: {expression!r}}}}}")
    [sink] = read_config_text(text, "c.yaml", environ={}).config.sinks
    with bounded():
        problems = sink_problems([sink])
    [(name, problem)] = problems
    assert name == "console"
    assert str(problem).startswith("sink 'console': template.text: template would build too large")


def test_nested_merge_keys_are_counted_as_what_they_expand_to() -> None:
    lines = ["a0: &a0 {k0: v, k1: v}"]
    for level in range(1, 30):
        lines.append(f"a{level}: &a{level} {{<<: [*a{level - 1}, *a{level - 1}], x{level}: v}}")
    report = _rejected("\n".join(lines) + "\n" + BASE)
    assert "counting what aliases and merge keys expand to" in report


def test_a_merge_with_an_overriding_key_loads() -> None:
    text = """
sinks:
  - &base {name: console, type: console}
  - <<: *base
    name: printer
rules:
  - {name: r, sinks: [printer, console]}
"""
    loaded = read_config_text(text, "c.yaml", environ={})
    assert [(sink.name, receiver_of(sink).name) for sink in loaded.config.sinks] == [
        ("console", "console"),
        ("printer", "console"),
    ]


def test_a_file_over_the_size_limit_is_refused_without_being_read(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    with path.open("wb") as file:
        file.truncate(100 * 1024 * 1024)  # sparse: 100 MB without writing them
    with bounded(), pytest.raises(ConfigError, match="104,857,600 bytes; at most 1,048,576"):
        read_config(path)


def test_text_over_the_size_limit_is_refused() -> None:
    assert "at most 1,048,576" in _rejected(BASE + "# " + "x" * 1_100_000 + "\n")


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (BASE.encode() + b"# caf\xe9\n", "c.yaml:7:6: not UTF-8 text here"),
        (BASE.encode() + b"# \x00\x01\n", "binary or control character 0x00"),
    ],
)
def test_non_utf8_and_binary_input_name_the_place(
    tmp_path: Path, content: bytes, expected: str
) -> None:
    path = tmp_path / "c.yaml"
    path.write_bytes(content)
    with pytest.raises(ConfigError) as caught:
        read_config(path)
    assert expected.replace("c.yaml", str(path)) in str(caught.value)


def test_deep_nesting_names_the_limit() -> None:
    assert "nested deeper than 64 levels" in _rejected("a: " + "[" * 200 + "]" * 200 + "\n")


def test_a_backtracking_regex_meets_a_long_name_in_linear_time() -> None:
    from notifier.rules.matching.patterns import parse_filter

    names = parse_filter(["~(a+)+$"])
    check: Callable[[str], bool] = names.matches
    with bounded():
        assert not check("a" * 50_000 + "!")
    assert "lookaround" in _rejected(BASE + "    match: {names: ['~(?=x)web']}\n")


SECRET_SINK = """
sinks:
  - name: hook
    type: webhook
    url: http://127.0.0.1:1/x
    hmac_secret: {value}
rules:
  - {{name: r, sinks: [hook]}}
"""


@pytest.mark.parametrize(
    ("value", "environ"),
    [("${HMAC}", {"HMAC": "918273645"}), ("918273645", {})],
    ids=["from-the-environment", "written-inline"],
)
def test_a_validation_error_never_quotes_a_secret(value: str, environ: dict[str, str]) -> None:
    with pytest.raises(ConfigError) as caught:
        read_config_text(SECRET_SINK.format(value=value), "c.yaml", environ=environ)
    report = str(caught.value)
    assert "sinks[0].hmac_secret" in report and "not shown" in report
    assert "918273645" not in report


def test_an_ordinary_wrong_value_is_still_quoted() -> None:
    report = _rejected(BASE.replace("name: r", "name: r\n    continue: 12"))
    assert "got 12" in report


def test_thousands_of_errors_print_the_first_ones_and_a_count() -> None:
    rules = "".join(f"  - {{name: r{i}, sinks: [nowhere]}}\n" for i in range(600))
    report = _rejected("sinks: []\nrules:\n" + rules)
    lines = report.splitlines()
    assert lines[0] == "600 errors in config"
    assert len(lines) == 52 and lines[-1] == "... and 550 more"

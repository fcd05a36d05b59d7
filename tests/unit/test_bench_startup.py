"""The start-up profile's summary: py-spy's collapsed stacks summed by function and area."""

from __future__ import annotations

from bench.startup import area_of, function_of, parse_raw, summarize

RAW = [
    "<module> (notifier/__main__.py:3);main (notifier/cli.py:10);_find_and_load "
    "(<frozen importlib._bootstrap>:1176);<module> (msgspec/__init__.py:1) 7",
    "run (threading.py:982);list_page (notifier/source/reflector.py:88);decode "
    "(msgspec/json.py:5) 20",
    "run (threading.py:982);write (notifier/state/writer.py:40);execute (sqlite3:0) 3",
    "garbage line",
]


def test_collapsed_lines_are_stacks_with_counts() -> None:
    stacks = parse_raw(RAW)
    assert [count for _stack, count in stacks] == [7, 20, 3]
    assert stacks[1][0][-1] == "decode (msgspec/json.py:5)"


def test_frames_lose_their_line_numbers() -> None:
    assert function_of("decode (msgspec/json.py:5)") == "decode (msgspec/json.py)"
    assert function_of("<frozen>") == "<frozen>"


def test_areas_are_imports_or_the_innermost_of_ours() -> None:
    stacks = parse_raw(RAW)
    assert [area_of(stack) for stack, _ in stacks] == [
        "imports",
        "notifier/source",
        "notifier/state",
    ]


def test_the_summary_counts_a_function_once_per_sample_however_deep() -> None:
    summary = summarize(parse_raw([*RAW, "f (a.py:1);f (a.py:2) 5"]), top=10)
    assert summary["samples"] == 35
    assert dict(summary["inclusive"])["f (a.py)"] == 5
    assert dict(summary["inclusive"])["run (threading.py)"] == 23
    assert dict(summary["self"])["decode (msgspec/json.py)"] == 20
    assert dict(summary["areas"])["imports"] == 7

"""YAML with positions: every value's line and column, typed expansion, duplicate keys."""

from __future__ import annotations

from notifier.config.documents import Position, parse_document

TEXT = """\
cluster_name: prod
watch:
  workers: ${WORKERS:-8}
  quoted: "${WORKERS:-8}"
base: &base
  kinds: [Pod]
rule:
  <<: *base
  name: x
on: yes
"""


def test_values_and_positions() -> None:
    document = parse_document(TEXT, {})
    assert document.problems == []
    assert document.data["cluster_name"] == "prod"
    assert document.locate(("watch", "workers")) == Position(3, 12)
    assert document.locate(("watch", "workers"), prefer_key=True) == Position(3, 3)
    assert document.locate(("rule", "name", "deeper", 3)) == Position(9, 9)
    assert document.locate(("nowhere",)) == Position(1, 1)


def test_plain_references_are_typed_after_expansion() -> None:
    data = parse_document(TEXT, {}).data
    assert data["watch"]["workers"] == 8
    assert data["watch"]["quoted"] == "8"
    assert parse_document("x: ${FLAG:+true:-false}", {"FLAG": "1"}).data == {"x": True}
    assert parse_document("x: ${NONE:-}", {}).data == {"x": None}


def test_keys_stay_as_written_and_merge_keys_work() -> None:
    data = parse_document(TEXT, {}).data
    assert data["on"] is True
    assert "on" in data
    assert data["rule"] == {"kinds": ["Pod"], "name": "x"}


def test_environment_origin_is_recorded() -> None:
    document = parse_document(TEXT, {})
    assert ("watch", "workers") in document.from_environment
    assert ("cluster_name",) not in document.from_environment


def test_problems_are_collected_with_positions() -> None:
    text = "a: 1\na: 2\nb: ${MISSING}\nc: !!int nope\n? [x]\n: y\n"
    problems = parse_document(text, {}).problems
    assert [(path, where) for path, where, _ in problems] == [
        (("a",), Position(2, 1)),
        (("b",), Position(3, 4)),
        (("c",), Position(4, 4)),
        ((), Position(5, 3)),
    ]
    assert "duplicate key 'a' (first at line 1)" in problems[0][2]
    assert "MISSING is not set" in problems[1][2]
    assert "keys must be plain text" in problems[3][2]


def test_alias_bombs_and_cycles_are_bounded() -> None:
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for previous, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{previous}"] * 10) + "]")
    problems = parse_document("\n".join(lines), {}).problems
    assert problems and "more than 100,000 values" in problems[0][2]
    cycle = parse_document("a: &a [*a]\n", {}).problems
    assert cycle and "nested deeper than 64 levels" in cycle[0][2]


def test_syntax_error_has_a_position() -> None:
    [(path, where, message)] = parse_document("a: [1, 2\nb: 3\n", {}).problems
    assert path == ()
    assert where is not None and where.line == 2
    assert message.startswith("not valid YAML")


def test_a_mapping_that_merges_itself_is_a_problem_not_a_crash() -> None:
    document = parse_document("a: &a {x: 1, <<: *a}\nb: {<<: *a}\n", {})
    assert document.data == {"a": {"x": 1}, "b": {"x": 1}}
    message = "a merge key (<<) cannot take in a mapping it is part of"
    assert document.problems == [
        (("a",), Position(1, 4), message),
        (("b",), Position(1, 4), message),  # what b merges merges itself
    ]


def test_a_long_chain_of_merges_is_bounded() -> None:
    lines = ["m0: &m0 {k0: v}"]
    lines += [f"m{i}: &m{i} {{<<: *m{i - 1}}}" for i in range(1, 2000)]
    problems = parse_document("\n".join(lines), {}).problems
    bounds = ("nested deeper than 64 levels", "more than 100,000 values")
    assert problems and all(any(b in m for b in bounds) for _, _, m in problems)


def test_positions_are_found_through_merged_keys_and_keys_are_listed_in_order() -> None:
    document = parse_document(TEXT, {})
    assert document.locate(("rule", "kinds", 0)) == Position(6, 11)
    assert document.locate(("rule", "kinds"), prefer_key=True) == Position(6, 3)
    keys = [path for path, _ in document.key_positions()]
    assert keys[:3] == [("cluster_name",), ("watch",), ("watch", "workers")]
    assert ("rule", "kinds") in keys and ("rule", "name") in keys
    assert keys.index(("rule", "name")) < keys.index(("rule", "kinds"))  # own keys, then merged

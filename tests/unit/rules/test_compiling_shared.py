"""What 20,000 rules share when compiled (rules/compiling.py): each rule is still its own.

Rules that match alike share one matcher and rules with the same noise settings one
policy, yet a problem in a ``match:`` many rules repeat is told at each rule, and each
kind's candidates keep the file's order whatever sets of kinds the rules name.
"""

from __future__ import annotations

import pytest

from notifier.config import ConfigError, read_config_text
from notifier.objects import Kind

HEAD = "sinks: [{name: o, type: console}]\ndefaults: {sinks: [o]}\nrules:\n"


def test_rules_that_match_alike_share_one_matcher_and_policy() -> None:
    text = HEAD + (
        "- {name: a, match: {kinds: [Pod], to: [OOMKilled], owner: {name: [web]}}}\n"
        "- {name: b, match: {kinds: [Pod], to: [OOMKilled], owner: {name: [web]}}}\n"
        "- {name: c, match: {kinds: [Pod], to: [OOMKilled], owner: {name: [api]}}}\n"
        "- {name: d, match: {kinds: [Pod], to: [OOMKilled], owner: {name: [web]}}, "
        "honor_opt_out: false}\n"
        "- {name: e, match: {kinds: [Pod], to: [OOMKilled], owner: {name: [web]}}, "
        "dedup_window: 5m}\n"
    )
    rules = {rule.name: rule for rule in read_config_text(text, "c.yaml").ruleset.rules}
    assert rules["a"].matcher is rules["b"].matcher
    assert rules["a"].matcher != rules["c"].matcher  # another owner
    assert rules["a"].matcher != rules["d"].matcher  # opted-out objects are not skipped
    assert rules["a"].matcher is rules["e"].matcher
    assert rules["a"].noise is rules["b"].noise
    assert rules["e"].noise.dedup_window == 300.0 != rules["a"].noise.dedup_window


def test_a_problem_many_rules_repeat_is_told_at_each_rule() -> None:
    text = HEAD + "".join(
        f"- {{name: r{i}, match: {{kinds: [Pod], to: [Runing], labels: 'app in (a'}}}}\n"
        for i in range(3)
    )
    with pytest.raises(ConfigError) as caught:
        read_config_text(text, "c.yaml")
    told = [(issue.line, issue.path) for issue in caught.value.issues]
    assert told == [
        (line, f"rules[{i}].match.{key}")
        for i, line in enumerate((4, 5, 6))
        for key in ("to[0]", "labels")
    ]


def test_each_kinds_candidates_keep_the_files_order() -> None:
    text = (
        "watch: {kinds: [Pod, Node, Job]}\n"
        + HEAD
        + (
            "- {name: any-1}\n"
            "- {name: pods, match: {kinds: [Pod]}, continue: true}\n"
            "- {name: nodes-and-pods, match: {kinds: [Node, Pod], namespaces: [prod]}}\n"
            "- {name: any-2}\n"
        )
    )
    ruleset = read_config_text(text, "c.yaml").ruleset
    names = {
        (kind, namespace): [rule.name for rule in ruleset.candidates(Kind(kind), namespace)]
        for kind in ("Pod", "Node", "Job")
        for namespace in ("prod", "dev")
    }
    assert names == {
        ("Pod", "prod"): ["any-1", "pods", "nodes-and-pods", "any-2", "default"],
        ("Pod", "dev"): ["any-1", "pods", "any-2", "default"],
        ("Node", "prod"): ["any-1", "nodes-and-pods", "any-2", "default"],
        ("Node", "dev"): ["any-1", "any-2", "default"],
        ("Job", "prod"): ["any-1", "any-2", "default"],
        ("Job", "dev"): ["any-1", "any-2", "default"],
    }

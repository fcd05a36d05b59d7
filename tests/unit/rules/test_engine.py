"""The rules stage end to end: transitions in, notifications out, metrics counted."""

from __future__ import annotations

from typing import Any

from prometheus_client import REGISTRY

from notifier.origin import Origin
from notifier.rules.engine import RulesEngine
from notifier.rules.ruleset import Ruleset
from notifier.sinks import lines
from tests.unit.rules.builders import NOW, POD_JSON, crashloop, ruleset, transition


def _suppressed(reason: str) -> float:
    return (
        REGISTRY.get_sample_value("kube_notifier_rules_suppressed_total", {"reason": reason}) or 0.0
    )


def _engine(rules: list[dict[str, Any]], **kwargs: Any) -> tuple[RulesEngine, Ruleset]:
    compiled = ruleset(rules, **kwargs)
    return RulesEngine(lambda: compiled, clock=lambda: NOW), compiled


def _pod(index: int, namespace: str = "shop") -> Any:
    metadata = {
        **POD_JSON["metadata"],
        "name": f"web-{index}",
        "uid": f"{namespace}-{index}",
        "namespace": namespace,
    }
    return crashloop(metadata=metadata)


def test_one_notification_per_enabled_sink() -> None:
    engine, _ = _engine([{"name": "r", "sinks": ["console", "off", "slack"]}])
    notifications = engine.process(crashloop())
    assert [n.sink for n in notifications] == ["console", "slack"]
    assert {n.rule for n in notifications} == {"r"}
    assert {n.ordering_key for n in notifications} == {"Pod/shop/web-7d4b9c6f5d-x2x9q"}
    assert notifications[0].observed_at == NOW
    assert notifications[0].facts is notifications[1].facts


def test_ids_are_stable_and_distinct() -> None:
    first, _ = _engine([{"name": "r", "sinks": ["console", "slack"], "dedup_window": 0}])
    second, _ = _engine([{"name": "r", "sinks": ["console", "slack"], "dedup_window": 0}])
    a = [n.id for n in first.process(crashloop())]
    b = [n.id for n in second.process(crashloop())]
    assert a == b
    assert len(set(a)) == 2
    newer = crashloop(metadata={**POD_JSON["metadata"], "resourceVersion": "48214"})
    assert not {n.id for n in first.process(newer)} & set(a)


def test_continue_gives_each_rule_its_notifications() -> None:
    engine, _ = _engine(
        [{"name": "a", "sinks": ["slack"], "continue": True}, {"name": "b", "sinks": ["console"]}]
    )
    assert [(n.rule, n.sink) for n in engine.process(crashloop())] == [
        ("a", "slack"),
        ("b", "console"),
    ]


def test_dedup_counts_and_suppresses() -> None:
    engine, _ = _engine([{"name": "r", "sinks": ["console"]}])
    before = _suppressed("dedup")
    assert len(engine.process(crashloop(), now=NOW)) == 1
    assert engine.process(crashloop(), now=NOW + 10) == []
    assert _suppressed("dedup") == before + 1
    assert len(engine.process(crashloop(), now=NOW + 61)) == 1


def test_mass_failure_becomes_one_digest() -> None:
    engine, _ = _engine(
        [{"name": "failures", "sinks": ["slack"], "group_by": ["namespace", "transition"]}],
        defaults={"digest_max_items": 5},
    )
    before = _suppressed("group")
    assert all(engine.process(_pod(i), now=NOW + i * 0.01) == [] for i in range(200))
    assert _suppressed("group") == before + 199
    assert engine.tick(NOW + 29).notifications == []
    [digest] = engine.tick(NOW + 31).notifications
    text = "\n".join([lines.headline(digest.facts), *lines.member_lines(digest.facts)])
    assert text.splitlines()[0] == (
        "[prod-eu] 200 Pods in shop: OOMKilled, CrashLoopBackOff, NotReady, "
        "RestartCountIncreased (rule failures)"
    )
    assert "- Pod shop/web-0: Ready -> OOMKilled" in text
    assert "shop/web-5:" not in text
    assert "… and 195 more" in text
    assert len(digest.facts["members"]) == 5
    assert digest.facts["count"] == 200
    assert len(digest.facts["items"]) == 5
    assert digest.ordering_key.startswith("digest/failures/namespace=shop")


def test_groups_split_by_namespace() -> None:
    engine, _ = _engine([{"name": "f", "sinks": ["slack"], "group_by": ["namespace"]}])
    for index in range(3):
        engine.process(_pod(index, "shop"))
        engine.process(_pod(index, "billing"))
    digests = engine.tick(NOW + 30).notifications
    assert sorted(d.facts["group"]["namespace"] for d in digests) == ["billing", "shop"]


def test_group_by_label_and_owner() -> None:
    engine, _ = _engine([{"name": "f", "sinks": ["slack"], "group_by": ["owner", "label:app"]}])
    engine.process(_pod(1))
    engine.process(_pod(2))
    [digest] = engine.tick(NOW + 30).notifications
    assert digest.facts["group"] == {"owner": "Deployment/web", "label:app": "web"}


def test_startup_transitions_are_counted_not_sent() -> None:
    engine, _ = _engine([{"name": "r", "sinks": ["console"]}])
    before = _suppressed("startup")
    added = transition(
        None, POD_JSON, new_states={"Running"}, signals={"Created"}, origin=Origin.INITIAL_LIST
    )
    assert engine.process(added) == []
    assert _suppressed("startup") == before + 1


def test_drop_and_opt_out_are_counted() -> None:
    engine, _ = _engine([{"name": "quiet", "match": {"namespaces": ["shop"]}, "action": "drop"}])
    before = _suppressed("drop_rule")
    assert engine.process(crashloop()) == []
    assert _suppressed("drop_rule") == before + 1
    engine, _ = _engine([{"name": "r", "sinks": ["console"]}])
    before = _suppressed("opt_out")
    ignored = crashloop(
        metadata={**POD_JSON["metadata"], "annotations": {"kube-notifier.io/ignore": "true"}}
    )
    assert engine.process(ignored) == []
    assert _suppressed("opt_out") == before + 1


def test_reload_takes_effect_at_next_transition() -> None:
    current = {"rules": ruleset([{"name": "old", "sinks": ["console"]}])}
    engine = RulesEngine(lambda: current["rules"], clock=lambda: NOW)
    assert [n.rule for n in engine.process(crashloop())] == ["old"]
    current["rules"] = ruleset([{"name": "new", "sinks": ["console"]}])
    assert [n.rule for n in engine.process(crashloop())] == ["new"]


def test_catch_up_is_flagged() -> None:
    engine, _ = _engine([{"name": "r", "sinks": ["console"]}])
    made = transition(None, POD_JSON, signals={"Created"}, origin=Origin.CATCH_UP)
    [notification] = engine.process(made)
    assert notification.catch_up

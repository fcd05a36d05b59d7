"""Routing as a table: rules in, transition in, matched rule names (and suppression) out."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest

from notifier.origin import Origin
from notifier.rules.matching.probing import EvalContext
from notifier.rules.reasons import SuppressReason
from notifier.transitions.model import Change, Transition
from tests.unit.rules.builders import (
    DEPLOYMENT_JSON,
    NOW,
    POD_JSON,
    SERVICE_JSON,
    changed,
    crashloop,
    ruleset,
    transition,
)

NAMESPACE_LABELS = {"shop": {"env": "prod", "team": "storefront"}, "ci-42": {"env": "ci"}}


def _warning() -> Transition:
    event = {
        "kind": "Event",
        "metadata": {"name": "web-1.17f", "namespace": "shop", "uid": "e1"},
        "involvedObject": {"kind": "Pod", "namespace": "shop", "name": "web-1"},
        "reason": "FailedScheduling",
        "message": "0/3 nodes are available",
        "type": "Warning",
    }
    return transition(None, event, new_states={"Warning"}, signals={"Created"})


def _deployment_stuck() -> Transition:
    return transition(
        DEPLOYMENT_JSON,
        changed(DEPLOYMENT_JSON, metadata={"resourceVersion": "901"}),
        old_states={"Progressing", "Available"},
        new_states={"Stuck", "Available"},
        changes=(Change("status.conditions[Progressing].status", "True", "False"),),
    )


def _service_ports() -> Transition:
    new_spec = {**SERVICE_JSON["spec"], "ports": [{"name": "http", "port": 8080}]}
    return transition(
        SERVICE_JSON,
        changed(SERVICE_JSON, spec=new_spec),
        signals={"PortsChanged"},
        changes=(Change("spec.ports", "http:80/TCP->8080", "http:8080/TCP"),),
    )


def _pod_added(origin: Origin = Origin.LIVE) -> Transition:
    return transition(
        None, POD_JSON, new_states={"Running", "Ready"}, signals={"Created"}, origin=origin
    )


def _pod_deleted() -> Transition:
    return transition(POD_JSON, None, old_states={"Running", "Ready"}, signals={"Deleted"})


def _in(namespace: str, **metadata: Any) -> Transition:
    return crashloop(metadata={**POD_JSON["metadata"], "namespace": namespace, **metadata})


@dataclass(frozen=True)
class Case:
    name: str
    rules: list[dict[str, Any]]
    make: Callable[[], Transition]
    routes: list[str]
    suppressed: SuppressReason | None = None
    dropped_by: str | None = None
    muted: list[str] = field(default_factory=list)
    defaults: dict[str, Any] = field(default_factory=dict)
    mute_windows: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


def rule(name: str, match: dict[str, Any] | None = None, /, **extra: Any) -> dict[str, Any]:
    return {"name": name, "match": match or {}, "sinks": ["console"], **extra}


CASES = [
    # kinds
    Case("kind matches", [rule("pods", {"kinds": ["Pod"]})], crashloop, ["pods"]),
    Case("kind differs", [rule("deps", {"kinds": ["Deployment"]})], crashloop, []),
    Case("no kinds: every kind", [rule("any")], _service_ports, ["any"]),
    # to / from / derived states and signals
    Case("to state entered", [rule("r", {"to": ["CrashLoopBackOff"]})], crashloop, ["r"]),
    Case("to derived OOMKilled", [rule("r", {"to": ["OOMKilled"]})], crashloop, ["r"]),
    Case("to signal", [rule("r", {"to": ["RestartCountIncreased"]})], crashloop, ["r"]),
    Case("to state held before is not reached", [rule("r", {"to": ["Running"]})], crashloop, []),
    Case("from state held before", [rule("r", {"from": ["Ready"]})], crashloop, ["r"]),
    Case("from state not held", [rule("r", {"from": ["Pending"]})], crashloop, []),
    Case(
        "deployment Stuck",
        [rule("r", {"kinds": ["Deployment"], "to": ["Stuck"]})],
        _deployment_stuck,
        ["r"],
    ),
    Case("service signal", [rule("r", {"to": ["PortsChanged"]})], _service_ports, ["r"]),
    Case("created signal", [rule("r", {"to": ["Created"]})], _pod_added, ["r"]),
    Case("deleted signal", [rule("r", {"to": ["Deleted"]})], _pod_deleted, ["r"]),
    # events
    Case("event updated", [rule("r", {"events": ["updated"]})], crashloop, ["r"]),
    Case("event added only", [rule("r", {"events": ["added"]})], crashloop, []),
    Case("event deleted", [rule("r", {"events": ["deleted"]})], _pod_deleted, ["r"]),
    # namespaces
    Case("namespace exact", [rule("r", {"namespaces": ["shop"]})], crashloop, ["r"]),
    Case("namespace exact other", [rule("r", {"namespaces": ["billing"]})], crashloop, []),
    Case("namespace glob", [rule("r", {"namespaces": ["sh*"]})], crashloop, ["r"]),
    Case(
        "namespace regex ~",
        [rule("r", {"namespaces": ["~^ci-[0-9]+$"]})],
        lambda: _in("ci-42"),
        ["r"],
    ),
    Case(
        "namespace regex: prefix",
        [rule("r", {"namespaces": ["regex:ci-\\d+"]})],
        lambda: _in("ci-42"),
        ["r"],
    ),
    Case("regex is anchored", [rule("r", {"namespaces": ["~ci"]})], lambda: _in("ci-42"), []),
    Case("namespace excluded", [rule("r", {"namespaces": ["!shop"]})], crashloop, []),
    Case("exclusion only, other ns", [rule("r", {"namespaces": ["!kube-*"]})], crashloop, ["r"]),
    Case("include and exclude", [rule("r", {"namespaces": ["*", "!sh?p"]})], crashloop, []),
    # namespace_selector
    Case(
        "namespace labels match", [rule("r", {"namespace_selector": "env=prod"})], crashloop, ["r"]
    ),
    Case(
        "namespace labels set",
        [rule("r", {"namespace_selector": "env in (prod,staging),team"})],
        crashloop,
        ["r"],
    ),
    Case("namespace labels differ", [rule("r", {"namespace_selector": "env=ci"})], crashloop, []),
    Case(
        "namespace labels unknown",
        [rule("r", {"namespace_selector": "env"})],
        lambda: _in("other"),
        [],
    ),
    # names
    Case("name glob", [rule("r", {"names": ["web-*"]})], crashloop, ["r"]),
    Case("name excluded", [rule("r", {"names": ["!web-*"]})], crashloop, []),
    # labels
    Case("label equals", [rule("r", {"labels": "app=web"})], crashloop, ["r"]),
    Case("label double equals", [rule("r", {"labels": "app==web"})], crashloop, ["r"]),
    Case("label not equals", [rule("r", {"labels": "tier!=cache"})], crashloop, ["r"]),
    Case(
        "label not equals fails", [rule("r", {"labels": "app=web,tier!=frontend"})], crashloop, []
    ),
    Case("label in", [rule("r", {"labels": "app in (api,web)"})], crashloop, ["r"]),
    Case("label notin", [rule("r", {"labels": "app notin (api,web)"})], crashloop, []),
    Case("label exists", [rule("r", {"labels": "tier"})], crashloop, ["r"]),
    Case("label absent", [rule("r", {"labels": "!canary"})], crashloop, ["r"]),
    Case("label absent fails", [rule("r", {"labels": "!tier"})], crashloop, []),
    # annotations
    Case("annotation equals", [rule("r", {"annotations": "team=storefront"})], crashloop, ["r"]),
    Case("annotation differs", [rule("r", {"annotations": "team=payments"})], crashloop, []),
    # fields
    Case("field prefix", [rule("r", {"fields": ["status.containerStatuses"]})], crashloop, ["r"]),
    Case("field exact", [rule("r", {"fields": ["spec.ports"]})], _service_ports, ["r"]),
    Case("field not a word prefix", [rule("r", {"fields": ["spec.port"]})], _service_ports, []),
    Case("field absent", [rule("r", {"fields": ["spec.selector"]})], _service_ports, []),
    # owner, through ReplicaSet to Deployment
    Case("owner kind", [rule("r", {"owner": {"kind": "Deployment"}})], crashloop, ["r"]),
    Case(
        "owner kind and name",
        [rule("r", {"owner": {"kind": "Deployment", "name": "web"}})],
        crashloop,
        ["r"],
    ),
    Case("owner name glob", [rule("r", {"owner": {"name": ["api", "w*"]}})], crashloop, ["r"]),
    Case("owner kind differs", [rule("r", {"owner": {"kind": "Job"}})], crashloop, []),
    Case("no owner", [rule("r", {"owner": {"kind": "Deployment"}})], _deployment_stuck, []),
    Case("event's owner is its object", [rule("r", {"owner": {"kind": "Pod"}})], _warning, ["r"]),
    # reasons: what the kind says the reason is
    Case("event reason", [rule("r", {"reasons": ["FailedSched*"]})], _warning, ["r"]),
    Case("event reason differs", [rule("r", {"reasons": ["FailedMount"]})], _warning, []),
    Case("container reason", [rule("r", {"reasons": ["CrashLoopBackOff"]})], crashloop, ["r"]),
    Case("no reason", [rule("r", {"reasons": ["?*"]})], _service_ports, []),
    # origins
    Case(
        "initial list quiet by default",
        [rule("r")],
        lambda: _pod_added(Origin.INITIAL_LIST),
        [],
        SuppressReason.STARTUP,
    ),
    Case(
        "resync quiet by default",
        [rule("r")],
        lambda: _pod_added(Origin.RESYNC),
        [],
        SuppressReason.STARTUP,
    ),
    Case("relist by default", [rule("r")], lambda: _pod_added(Origin.RELIST), ["r"]),
    Case("catch-up by default", [rule("r")], lambda: _pod_added(Origin.CATCH_UP), ["r"]),
    Case(
        "rule opts in",
        [rule("r", {"origins": ["initial_list"]})],
        lambda: _pod_added(Origin.INITIAL_LIST),
        ["r"],
    ),
    Case(
        "opted-in rule only that origin", [rule("r", {"origins": ["initial_list"]})], _pod_added, []
    ),
    Case(
        "defaults opt in",
        [rule("r")],
        lambda: _pod_added(Origin.INITIAL_LIST),
        ["r"],
        defaults={"notify_on_initial_list": True},
    ),
    # opt-out annotation
    Case(
        "opted out",
        [rule("r")],
        lambda: _in("shop", annotations={"kube-notifier.io/ignore": "true"}),
        [],
        SuppressReason.OPT_OUT,
    ),
    Case(
        "opt-out ignored by rule",
        [rule("r", honor_opt_out=False)],
        lambda: _in("shop", annotations={"kube-notifier.io/ignore": "True"}),
        ["r"],
    ),
    Case(
        "opt-out value false",
        [rule("r")],
        lambda: _in("shop", annotations={"kube-notifier.io/ignore": "false"}),
        ["r"],
    ),
    # ordering, continue, drop, default route, mute
    Case("first match wins", [rule("a"), rule("b")], crashloop, ["a"]),
    Case(
        "continue", [rule("a", **{"continue": True}), rule("b"), rule("c")], crashloop, ["a", "b"]
    ),
    Case(
        "drop stops",
        [{"name": "quiet", "match": {"namespaces": ["shop"]}, "action": "drop"}, rule("b")],
        crashloop,
        [],
        SuppressReason.DROP_RULE,
        dropped_by="quiet",
    ),
    Case(
        "drop keeps earlier continue",
        [rule("a", **{"continue": True}), {"name": "quiet", "action": "drop"}, rule("b")],
        crashloop,
        ["a"],
        dropped_by="quiet",
    ),
    Case(
        "expired drop is skipped",
        [{"name": "quiet", "action": "drop", "until": "2024-05-01T00:00:00Z"}, rule("b")],
        crashloop,
        ["b"],
    ),
    Case(
        "drop until the future",
        [{"name": "quiet", "action": "drop", "until": "2024-06-01T00:00:00+02:00"}, rule("b")],
        crashloop,
        [],
        SuppressReason.DROP_RULE,
        dropped_by="quiet",
    ),
    Case(
        "default route takes unmatched",
        [rule("deps", {"kinds": ["Deployment"]})],
        crashloop,
        ["default"],
        defaults={"sinks": ["slack"]},
    ),
    Case(
        "default route not used after a match",
        [rule("a", **{"continue": True})],
        crashloop,
        ["a"],
        defaults={"sinks": ["slack"]},
    ),
    Case(
        "muted rule takes the transition",
        [rule("a", mute=["always"]), rule("b")],
        crashloop,
        [],
        SuppressReason.MUTE,
        muted=["a"],
        mute_windows={"always": [{"start": "2024-01-01T00:00:00Z"}]},
    ),
    Case(
        "mute window by weekday and time (Wednesday 12:06 in Paris)",
        [rule("a", mute=["lunch"])],
        crashloop,
        [],
        SuppressReason.MUTE,
        muted=["a"],
        mute_windows={
            "lunch": [{"weekdays": ["wed"], "times": ["12:00-13:00"], "timezone": "Europe/Paris"}]
        },
    ),
    Case(
        "mute window over midnight not active",
        [rule("a", mute=["night"])],
        crashloop,
        ["a"],
        mute_windows={"night": [{"times": ["22:00-06:00"]}]},
    ),
    Case(
        "mute window ended",
        [rule("a", mute=["past"])],
        crashloop,
        ["a"],
        mute_windows={"past": [{"start": "2024-01-01T00:00:00Z", "end": "2024-02-01T00:00:00Z"}]},
    ),
    Case("disabled sink still matches", [{"name": "r", "sinks": ["off"]}], crashloop, ["r"]),
]


def _context(labels: Mapping[str, Mapping[str, str]] = NAMESPACE_LABELS) -> EvalContext:
    return EvalContext(now=NOW, namespace_labels=labels.get)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_routing(case: Case) -> None:
    rules = ruleset(case.rules, defaults=case.defaults, mute_windows=case.mute_windows)
    evaluation = rules.evaluate(case.make(), _context())
    assert [r.name for r in evaluation.routes] == case.routes
    assert evaluation.suppressed == case.suppressed
    assert [r.name for r in evaluation.muted] == case.muted
    assert (evaluation.dropped_by.name if evaluation.dropped_by else None) == case.dropped_by


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_explain_agrees_with_evaluate(case: Case) -> None:
    rules = ruleset(case.rules, defaults=case.defaults, mute_windows=case.mute_windows)
    made = case.make()
    verdicts = rules.explain(made, _context())
    matched = [v.rule.name for v in verdicts if v.outcome == "matched"]
    assert matched == case.routes
    for verdict in verdicts:
        if verdict.outcome == "not matched":
            assert verdict.detail, f"{verdict.rule.name} gave no reason"


def test_explain_says_why() -> None:
    rules = ruleset(
        [
            rule("deps", {"kinds": ["Deployment"]}),
            rule("ns", {"namespaces": ["billing"]}),
            rule("hit"),
            rule("late"),
        ]
    )
    verdicts = {v.rule.name: v for v in rules.explain(crashloop(), _context())}
    assert "kind Pod is not one of Deployment" in verdicts["deps"].detail
    assert "namespace 'shop' does not match ['billing']" in verdicts["ns"].detail
    assert verdicts["hit"].outcome == "matched"
    assert verdicts["late"].outcome == "not reached"
    assert "'hit' matched first" in verdicts["late"].detail


def test_failing_lookups_count_as_unknown() -> None:
    def broken(_: object) -> Any:
        raise RuntimeError("cache not synced")

    rules = ruleset(
        [rule("sel", {"namespace_selector": "env"}), rule("own", {"owner": {"kind": "Deployment"}})]
    )
    context = EvalContext(now=NOW, namespace_labels=broken, owner_of=broken)
    assert rules.evaluate(crashloop(), context).routes == ()

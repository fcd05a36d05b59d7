"""Properties: the index never changes the answer, and odd transitions never raise."""

from __future__ import annotations

from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from notifier.kinds.registry import BUILT_IN_KINDS, KINDS
from notifier.objects import EventType, Kind, ObjectKey
from notifier.origin import Origin
from notifier.rules.engine import RulesEngine
from notifier.rules.matching.probing import EvalContext, Probe
from notifier.rules.ruleset import Ruleset
from notifier.transitions.model import Change, Transition
from notifier.transitions.vocabulary import names_for
from tests.unit.rules.builders import NOW, ruleset

NAMESPACES = ["shop", "billing", "kube-system", "ci-1", ""]
WORDS = sorted(
    names_for(Kind.POD, kinds=KINDS)
    | names_for(Kind.DEPLOYMENT, kinds=KINDS)
    | names_for(Kind.SERVICE, kinds=KINDS)
)
text = st.text(max_size=12)
labels = st.dictionaries(
    st.sampled_from(["app", "tier", "kube-notifier.io/ignore"]),
    st.sampled_from(["web", "true", ""]),
    max_size=3,
)
metadata = st.fixed_dictionaries(
    {
        "name": text,
        "namespace": st.sampled_from(NAMESPACES),
        "uid": text,
        "resourceVersion": text,
        "creationTimestamp": st.one_of(st.none(), text, st.just("2024-05-01T10:00:00Z")),
        "labels": labels,
        "annotations": labels,
        "ownerReferences": st.lists(
            st.fixed_dictionaries(
                {
                    "kind": st.sampled_from(["ReplicaSet", "Job", ""]),
                    "name": text,
                    "controller": st.booleans(),
                }
            ),
            max_size=2,
        ),
    }
)
container_status = st.fixed_dictionaries(
    {
        "name": text,
        "restartCount": st.integers(-5, 10**6),
        "state": st.sampled_from(
            [
                {},
                {"waiting": {"reason": "CrashLoopBackOff"}},
                {"terminated": {"exitCode": -1}},
                {"running": {}},
            ]
        ),
        "lastState": st.sampled_from(
            [{}, {"terminated": {"exitCode": 137, "reason": "OOMKilled"}}]
        ),
    }
)
pods = st.builds(
    lambda meta, statuses, phase: {
        "kind": "Pod",
        "metadata": meta,
        "status": {"phase": phase, "containerStatuses": statuses},
    },
    metadata,
    st.lists(container_status, max_size=3),
    st.sampled_from(["", "Running", "Failed", "???"]),
)
deployments = st.builds(
    lambda meta, replicas: {
        "kind": "Deployment",
        "metadata": meta,
        "spec": {"replicas": replicas},
        "status": {"conditions": [{"type": "Progressing", "status": "False"}]},
    },
    metadata,
    st.one_of(st.none(), st.integers(-1, 5)),
)
services = st.builds(lambda meta: {"kind": "Service", "metadata": meta}, metadata)
words = st.frozensets(st.one_of(st.sampled_from(WORDS), text), max_size=4)


STRATEGIES = {Kind.POD: pods, Kind.DEPLOYMENT: deployments, Kind.SERVICE: services}
ANY_KIND = st.builds(lambda meta: {"metadata": meta}, metadata)  # the other kinds: odd_objects


def _object(draw: st.DrawFn, kind: Kind) -> Any:
    return msgspec.convert(draw(STRATEGIES.get(kind, ANY_KIND)), type=KINDS[kind].struct)


@st.composite
def transitions(draw: st.DrawFn) -> Transition:
    kind = draw(st.sampled_from(list(BUILT_IN_KINDS)))
    first, second = (_object(draw, kind) for _ in range(2))
    event = draw(st.sampled_from(list(EventType)))
    paths = draw(st.lists(st.sampled_from(["spec.ports", "status.phase", "spec", ""]), max_size=3))
    return Transition(
        kind=kind,
        key=ObjectKey(first.metadata.name),
        event=event,
        origin=draw(st.sampled_from(list(Origin))),
        old=None if event is EventType.ADDED else first,
        new=None if event is EventType.DELETED else second,
        changes=tuple(Change(path, draw(st.one_of(st.none(), text)), None) for path in paths),
        old_states=draw(words),
        new_states=draw(words),
        signals=draw(words),
        observed_at=draw(st.one_of(st.just(0.0), st.floats(0, 2e9))),
        final_state_unknown=draw(st.booleans()),
    )


RULES: list[dict[str, Any]] = [
    {"name": "drop-system", "match": {"namespaces": ["kube-system"]}, "action": "drop"},
    {
        "name": "shop-pods",
        "match": {"kinds": ["Pod"], "namespaces": ["shop"], "to": ["CrashLoopBackOff", "Failed"]},
        "sinks": ["console"],
        "continue": True,
    },
    {
        "name": "billing",
        "match": {"namespaces": ["billing", "shop"], "labels": "app=web"},
        "sinks": ["console"],
        "continue": True,
    },
    {"name": "ci", "match": {"namespaces": ["ci-*"]}, "sinks": ["slack"], "continue": True},
    {
        "name": "owned",
        "match": {"owner": {"kind": "Deployment"}, "fields": ["spec"]},
        "sinks": ["slack"],
        "continue": True,
    },
    {
        "name": "deps",
        "match": {"kinds": ["Deployment"], "from": ["Progressing"], "to": ["Stuck"]},
        "sinks": ["slack"],
    },
    {
        "name": "group",
        "match": {"to": ["Created", "Deleted"]},
        "sinks": ["slack"],
        "group_by": ["namespace", "owner", "reason", "label:app"],
    },
    {
        "name": "fallback",
        "match": {"origins": ["initial_list", "resync", "live", "relist", "catch_up"]},
        "sinks": ["console"],
        "honor_opt_out": False,
    },
]
COMPILED = ruleset(RULES)


def _brute_force(rules: Ruleset, made: Transition, context: EvalContext) -> list[str]:
    """Evaluation without the index: every rule in order."""
    probe = Probe(made, context)
    matched = []
    for rule in rules.rules:
        if rule.matcher.first_failure(probe) is None:
            if rule.action == "drop":
                break
            matched.append(rule.name)
            if not rule.continue_matching:
                break
    return matched


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(transitions())
def test_index_gives_the_same_answer_as_scanning_every_rule(made: Transition) -> None:
    context = EvalContext(now=NOW)
    evaluation = COMPILED.evaluate(made, context)
    assert [r.name for r in evaluation.routes] == _brute_force(COMPILED, made, context)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(transitions())
def test_odd_transitions_never_raise(made: Transition) -> None:
    engine = RulesEngine(lambda: COMPILED, clock=lambda: NOW)
    for notification in engine.process(made) + engine.tick(NOW + 3600).notifications:
        assert notification.facts["summary"]
    COMPILED.explain(made, EvalContext(now=NOW))

"""Custom resources from config: loaded, checked, states read from real-shaped objects."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

from notifier.config import ConfigError, read_config_text
from notifier.kinds.registry import KINDS, share
from notifier.kinds.sharing import Sharing
from notifier.objects import Kind
from notifier.origin import Origin
from notifier.rules.compiling import RulesSource, compile_ruleset
from notifier.rules.config.specs import RuleSpec
from notifier.rules.engine import RulesEngine
from notifier.rules.facts.contexts import single_context
from notifier.transitions.detecting import detect
from notifier.transitions.states import states_of

EXAMPLES = Path(__file__).resolve().parents[3] / "docs" / "examples" / "custom-resources.yaml"


# The example's kinds: a value of its own, which loading the file changed nowhere else.
DECLARED = read_config_text(EXAMPLES.read_text(), "custom-resources.yaml", environ={}).kinds


def _object(kind: str, **body: Any) -> Any:
    doc = {"kind": kind, "metadata": {"name": "web", "namespace": "shop", "uid": "u1"}, **body}
    return msgspec.json.decode(msgspec.json.encode(doc), type=DECLARED[Kind(kind)].struct)


def test_loading_a_config_declares_its_kinds_for_itself_only() -> None:
    assert Kind("Certificate") in DECLARED
    assert Kind("Certificate") not in KINDS  # the built-in registry is not changed


def _condition(kind: str, status: str, reason: str = "", message: str = "") -> dict[str, str]:
    return {"type": kind, "status": status, "reason": reason, "message": message}


def test_a_certificate_that_fails_to_renew_leaves_ready_with_its_reason() -> None:
    ready = _object(
        "Certificate",
        spec={"secretName": "web-tls"},
        status={"conditions": [_condition("Ready", "True", "Ready")]},
    )
    why = "Issuing certificate as Secret does not exist"
    failing = _object(
        "Certificate",
        status={
            "conditions": [
                _condition("Ready", "False", "DoesNotExist", why),
                _condition("Issuing", "True", "DoesNotExist"),
            ]
        },
    )
    transition = detect(ready, failing, origin=Origin.LIVE, observed_at=1.0, correlation_id="c")
    assert transition is not None
    assert transition.entered == {"NotReady", "Issuing"} and transition.left == {"Ready"}
    context = single_context(transition, cluster="", rule="r", owner=None)
    assert (context["reason"], context["severity"]) == ("DoesNotExist", "critical")
    assert "spec" not in msgspec.structs.asdict(ready)  # only what the states read is kept


def test_a_degraded_rollout_reads_its_phase_and_message() -> None:
    rollout = _object(
        "Rollout", status={"phase": "Degraded", "message": "ProgressDeadlineExceeded"}
    )
    assert states_of(rollout) == {"Degraded"}
    healthy = _object("Rollout", status={"phase": "Healthy"})
    transition = detect(healthy, rollout, origin=Origin.LIVE, observed_at=1.0, correlation_id="r")
    assert transition is not None
    assert [(c.path, c.old, c.new) for c in transition.changes] == [
        ("status.phase", "Healthy", "Degraded"),
        ("status.message", None, "ProgressDeadlineExceeded"),
    ]
    context = single_context(transition, cluster="", rule="r", owner=None)
    assert context["message"] == "ProgressDeadlineExceeded"


def test_a_field_holding_an_object_is_kept_as_bounded_text() -> None:
    odd = _object("Rollout", status={"phase": {"nested": ["x" * 10_000]}, "message": 7})
    kept = share(Sharing(), odd)
    assert isinstance(kept.status.phase, str) and len(kept.status.phase) == 256
    assert states_of(kept) == frozenset() and kept.status.message == 7


def test_a_stalled_kustomization_is_critical() -> None:
    conditions = [_condition("Ready", "False", "BuildFailed"), _condition("Stalled", "True")]
    stalled = _object("Kustomization", status={"conditions": conditions})
    assert states_of(stalled) == {"NotReady", "Stalled"}


def _widget(**extra: Any) -> dict[str, Any]:
    return {"kind": "Widget", "version": "v1", "resource": "widgets", **extra}


def _state(**rule: Any) -> dict[str, Any]:
    return {"Up": rule}


@pytest.mark.parametrize(
    ("resource", "expected"),
    [
        ({"kind": "Pod", "version": "v1", "resource": "pods"}, "Pod is a built-in kind"),
        (_widget(states=_state(field="status.up")), "'field' needs 'equals'"),
        (_widget(states=_state(condition="Up", field="status.up", equals=1)), "either"),
        (_widget(states=_state(field="status[0]", equals=1)), "should match pattern"),
        (_widget(resource="Widgets!"), "should match pattern"),
        (_widget(critical=["Down"]), "name states not under 'states'"),
    ],
    ids=["built-in", "field-without-equals", "both", "bad-path", "bad-plural", "bad-severity"],
)
def test_a_bad_resource_is_refused_with_its_place(resource: dict[str, Any], expected: str) -> None:
    text = msgspec.json.encode({"watch": {"resources": [resource]}}).decode()
    with pytest.raises(ConfigError) as caught:
        read_config_text(text, "c.yaml", environ={})
    assert expected in str(caught.value)
    assert "watch.resources[0]" in str(caught.value)


def test_rules_name_declared_kinds_and_their_states_only() -> None:
    config = """
watch:
  resources:
    - {kind: Gadget, group: example.com, version: v1, resource: gadgets,
       states: {Broken: {field: status.state, equals: broken}}}
rules:
  - {name: a, match: {kinds: [Gadget], to: [Brokn]}}
  - {name: b, match: {kinds: [Gizmo]}}
"""
    with pytest.raises(ConfigError) as caught:
        read_config_text(config, "c.yaml", environ={})
    report = str(caught.value)
    assert (
        "rules[0].match.to[0]: unknown state or signal 'Brokn' for Gadget (did you mean 'Broken'?)"
        in report
    )
    assert "rules[1].match.kinds[0]: unknown kind 'Gizmo'" in report


def test_a_custom_resource_state_held_for_its_for_is_told_once() -> None:
    rule = {"name": "cert-down", "sinks": ["console"],
            "match": {"kinds": ["Certificate"], "to": ["NotReady"], "for": "1h"}}  # fmt: skip
    specs = [(0, RuleSpec.model_validate(rule))]
    compiled = compile_ruleset(RulesSource(specs, sinks={"console": True}, kinds=DECLARED))
    engine = RulesEngine(lambda: compiled, clock=lambda: 0.0)
    ready = _object("Certificate", status={"conditions": [_condition("Ready", "True")]})
    failing = _object("Certificate", status={"conditions": [_condition("Ready", "False", "X")]})
    went = detect(ready, failing, origin=Origin.LIVE, observed_at=100.0, correlation_id="c")
    assert went is not None
    assert engine.decide(went, now=100.0).notifications == []
    assert engine.tick(100.0 + 3599).notifications == []
    [told] = engine.tick(100.0 + 3600).notifications
    assert "Certificate shop/web" in told.facts["summary"] and "for 1h" in told.facts["summary"]

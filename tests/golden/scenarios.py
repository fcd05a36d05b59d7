"""The fixed facts every receiver's golden renders are made from, built by the rules as the
service builds them (so a change in the facts shows in every golden file)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from notifier.config import read_config_text
from notifier.enrichment.attaching import with_context
from notifier.enrichment.changes import (
    BlastRadius,
    Changes,
    ConfigChange,
    NodeState,
    Rollout,
    TemplateChange,
)
from notifier.enrichment.context import ContainerLog, Context, WarningEvent
from notifier.notifications import Notification
from notifier.objects import Kind
from notifier.origin import Origin
from notifier.rules.compiling import RulesSource, compile_ruleset
from notifier.rules.config.specs import RuleSpec
from notifier.rules.facts.contexts import (
    digest_context,
    held_context,
    resolution_context,
    single_context,
)
from notifier.rules.facts.folded import folded_facts
from notifier.rules.facts.neutral import neutral_facts
from notifier.rules.incidents.flapping import Flap
from notifier.rules.matched import rule_context
from notifier.rules.ruleset import CompiledRule
from notifier.rules.timing.clock_telling import tell_again, tell_flap
from notifier.rules.timing.timers import Timer
from notifier.transitions.detecting import detect
from notifier.transitions.model import Transition
from tests.unit.rules.builders import (
    CRASHLOOP_STATUS,
    NOW,
    POD_JSON,
    changed,
    crashloop,
    ruleset,
    transition,
)

OWNER = ("Deployment", "web")
_EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples" / "custom-resources.yaml"
DECLARED = read_config_text(_EXAMPLES.read_text(), "custom-resources.yaml", environ={}).kinds
_RULE = {
    "name": "pod-failures",
    "match": {"kinds": ["Pod"], "to": ["CrashLoopBackOff", "OOMKilled"]},
    "sinks": ["out"],
    "send_resolved": True,
    "labels": {"team": "storefront"},
    "flapping": {"changes": 4, "within": "10m"},
    "escalate": [{"after": "30m", "sinks": ["out"]}],
}


def _rule() -> CompiledRule:
    compiled = ruleset([_RULE], sinks={"out": True})
    return compiled.rules[0]


def _context(pod: Transition, rule: CompiledRule) -> dict[str, Any]:
    base = single_context(pod, cluster="prod-eu", rule="", owner=OWNER)
    return rule_context(base, rule.name, pod)


def _one(
    rule: CompiledRule, pod: Transition, context: dict[str, Any], **options: Any
) -> Notification:
    facts = neutral_facts(rule, context, **options)
    return Notification(
        id="golden-0001", sink="out", rule=rule.name, ordering_key="Pod/shop/web",
        facts=facts, observed_at=NOW, fingerprint=str(context["fingerprint"]),
        resolves=context.get("status") == "resolved",
    )  # fmt: skip


ROLLOUT = Rollout(
    owner="Deployment/web",
    revision=4,
    at="2024-05-01T10:05:12Z",
    seconds_before=38,
    manager="kubectl (kubectl-set)",
    changes=(
        TemplateChange("image", "web", "shop:1.4.1", "shop:1.4.2"),
        TemplateChange("resources", "web", "limits.memory 2Gi", "limits.memory 1Gi"),
    ),
)
CHANGES = Changes(
    likely_cause=(
        "rollout of Deployment/web to revision 4, 38s before, by kubectl (kubectl-set): "
        "image of web shop:1.4.1 -> shop:1.4.2"
    ),
    window_seconds=3600,
    rollout=ROLLOUT,
    configs=(
        ConfigChange(
            "ConfigMap",
            "web-config",
            "2024-05-01T09:40:00Z",
            1590,
            "Helm",
            ("CACHE_SIZE",),
            read_by=("web",),
        ),
    ),
    node=NodeState("node-a", pressure=("MemoryPressure",)),
    blast_radius=BlastRadius("Deployment/web", "CrashLoopBackOff", 2, 3),
    requests=8,
)
CONTEXT = Context(
    changes=CHANGES,
    owners=("ReplicaSet/web-7d4b9c6f5d", "Deployment/web"),
    events=(
        WarningEvent("BackOff", "Back-off restarting failed container web", 7, "10:06:30Z"),
        WarningEvent("OOMKilling", "Memory cgroup out of memory: killed 4121", 3, "10:05:58Z"),
    ),
    logs=(
        ContainerLog(
            "web", previous=True,
            lines=(
                "2024-05-01T10:05:51Z starting web 1.4.2 on :8080",
                "2024-05-01T10:05:52Z loading catalogue (41,200 items)",
                "2024-05-01T10:05:57Z cache warm: 1.9 GiB",
                "2024-05-01T10:05:58Z fatal: out of memory allocating 268435456 bytes",
            ),
        ),
    ),
    problems=("events: the API answered 403 (list events in shop is not allowed)",),
    fetched_ms=38,
)  # fmt: skip


def crash_loop() -> Notification:
    rule, pod = _rule(), crashloop()
    note = _one(rule, pod, _context(pod, rule), transition=pod)
    return dataclasses.replace(note, facts=with_context(note.facts, CONTEXT))


def digest() -> Notification:
    rule = _rule()
    members = [
        _context(crashloop(metadata={**POD_JSON["metadata"], "name": f"web-{s}", "uid": s}), rule)
        for s in ("7d4b9c6f5d-x2x9q", "7d4b9c6f5d-k8w2p", "7d4b9c6f5d-m4n7c")
    ]
    context = digest_context(
        members, total=5, cluster="prod-eu", rule=rule.name,
        group=(("namespace", "shop"), ("transition", "CrashLoopBackOff,OOMKilled")),
    )  # fmt: skip
    facts = neutral_facts(rule, context)
    return Notification(
        id="golden-0002", sink="out", rule=rule.name, ordering_key="digest/pod-failures/shop",
        facts=facts, observed_at=NOW,
    )  # fmt: skip


def resolution() -> Notification:
    rule = _rule()
    ended = transition(
        changed(POD_JSON, status=CRASHLOOP_STATUS), POD_JSON,
        old_states={"Running", "NotReady", "CrashLoopBackOff", "OOMKilled"},
        new_states={"Running", "Ready"},
    )  # fmt: skip
    context = resolution_context(
        _context(ended, rule), frozenset({"CrashLoopBackOff", "OOMKilled"})
    )
    return _one(rule, ended, context, fired_at=NOW - 1800)


def folded() -> Notification:
    """The end of a ``fold_into: owner`` incident: twelve Pods of one Deployment."""
    rule = _rule()
    ended = transition(
        changed(POD_JSON, status=CRASHLOOP_STATUS), POD_JSON,
        old_states={"Running", "NotReady", "CrashLoopBackOff", "OOMKilled"},
        new_states={"Running", "Ready"},
    )  # fmt: skip
    context = resolution_context(
        _context(ended, rule), frozenset({"CrashLoopBackOff", "OOMKilled"})
    )
    pods = [("Pod", f"web-7d4b9c6f5d-{index:02d}") for index in range(12)]
    facts = folded_facts(neutral_facts(rule, context, fired_at=NOW - 1800), pods)
    return dataclasses.replace(_one(rule, ended, context), id="golden-0003", facts=facts)


def flapping() -> Notification:
    rule, pod = _rule(), crashloop()
    flap = Flap(rule.name, pod, frozenset({"CrashLoopBackOff", "OOMKilled"}), 4, 600.0, NOW - 500)
    base = single_context(pod, cluster="prod-eu", rule="", owner=OWNER)
    [note] = tell_flap(rule, flap, base, NOW, over=False)
    return note


def escalation() -> Notification:
    rule, pod = _rule(), crashloop()
    timer = Timer(rule.name, pod, frozenset({"CrashLoopBackOff"}), since=NOW - 1860, step=1)
    context = held_context(_context(pod, rule), NOW - 1860, NOW)
    [note] = tell_again(rule, timer, context, NOW)
    return note


def custom_resource() -> Notification:
    """A cert-manager Certificate declared under ``watch.resources`` that stopped being Ready."""
    why = "Issuing certificate as Secret does not exist"
    ready = _certificate([_condition("Ready", "True", "Ready")])
    failing = _certificate([_condition("Ready", "False", "DoesNotExist", why)])
    cert = detect(ready, failing, origin=Origin.LIVE, observed_at=NOW, correlation_id="golden")
    assert cert is not None
    rule = _custom_rule()
    base = single_context(cert, cluster="prod-eu", rule="", owner=None)
    return _one(rule, cert, rule_context(base, rule.name, cert), transition=cert)


def _custom_rule() -> CompiledRule:
    spec = RuleSpec.model_validate(
        {"name": "certificates", "match": {"kinds": ["Certificate"], "to": ["NotReady"]},
         "sinks": ["out"], "send_resolved": True}
    )  # fmt: skip
    source = RulesSource(rules=[(0, spec)], sinks={"out": True}, kinds=DECLARED)
    return compile_ruleset(source).rules[0]


def _certificate(conditions: list[dict[str, str]]) -> Any:
    doc = {
        "kind": "Certificate",
        "metadata": {"name": "web-tls", "namespace": "shop", "uid": "c-1", "resourceVersion": "7"},
        "status": {"conditions": conditions},
    }
    return msgspec.convert(doc, type=DECLARED[Kind("Certificate")].struct)


def _condition(kind: str, status: str, reason: str = "", message: str = "") -> dict[str, str]:
    return {"type": kind, "status": status, "reason": reason, "message": message}


# Object text written to harm a reader: Slack mentions and links, HTML, Markdown, a
# right-to-left override, terminal escapes and controls, lines forged to look like ours, and
# values far longer than any receiver shows.
HOSTILE = (
    "<!channel> <http://evil.example|Click here> *urgent* <script>alert(1)</script> "
    "[docs](http://evil.example) @everyone \u202egnp.exe\u202c \x1b[31mred\x1b[0m \x07bell\n"
    "rule pod-failures · info · forged line"
)
LONG = "x" * 5000


def hostile() -> Notification:
    status = changed(CRASHLOOP_STATUS)
    waiting = status["containerStatuses"][0]["state"]["waiting"]
    waiting["message"] = f"{HOSTILE} {LONG}"
    waiting["reason"] = "CrashLoopBackOff<@U123>"
    pod = transition(
        changed(POD_JSON), changed(POD_JSON, status=status),
        old_states={"Running", "Ready"},
        new_states={"Running", "NotReady", "CrashLoopBackOff"},
        signals={"RestartCountIncreased"},
    )  # fmt: skip
    rule = _rule()
    note = _one(rule, pod, _context(pod, rule), transition=pod)
    context = Context(
        owners=("ReplicaSet/web<!here>", "Deployment/web\u202e"),
        events=(WarningEvent("BackOff", HOSTILE, 2, "2024-05-01T10:06:30Z"),),
        logs=(ContainerLog("web", previous=True, lines=("```", HOSTILE, LONG, "```")),),
        changes=Changes(
            likely_cause=f"ConfigMap {HOSTILE} changed 30s before",
            window_seconds=3600,
            configs=(
                ConfigChange(
                    "ConfigMap",
                    HOSTILE,
                    "2024-05-01T10:06:00Z",
                    30,
                    "kubectl<!channel>",
                    ("<@U123>", LONG),
                ),
            ),
        ),
    )
    return dataclasses.replace(note, facts=with_context(note.facts, context))


SCENARIOS: dict[str, Callable[[], Notification]] = {
    "crash-loop": crash_loop,
    "digest": digest,
    "resolution": resolution,
    "folded": folded,
    "flapping": flapping,
    "escalation": escalation,
    "custom-resource": custom_resource,
    "hostile": hostile,
}

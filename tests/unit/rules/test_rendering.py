"""Messages: the built-in templates read well with no config; rule templates replace parts."""

from __future__ import annotations

import json
from typing import Any

import pytest

from notifier.notifications import Message, MessageForm, Notification
from notifier.rules.engine import RulesEngine
from notifier.rules.errors import RulesError
from notifier.rules.facts import single_context
from notifier.rules.library import Role, builtin_specs, builtin_template
from notifier.templating.environment import make_environment
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


def _send(made: Transition, **rules_args: Any) -> list[Notification]:
    rules = rules_args.pop("rules", [{"name": "alert", "sinks": ["console"]}])
    compiled = ruleset(rules, **rules_args)
    return RulesEngine(lambda: compiled, clock=lambda: NOW).process(made)


def test_builtin_templates_compile() -> None:
    assert builtin_template(Role.SINGLE).name == "default"
    assert builtin_template(Role.DIGEST).name == "digest"


def test_pod_crashloop_text_tells_the_story() -> None:
    [notification] = _send(crashloop())
    text = notification.message.text
    first_line = text.splitlines()[0]
    assert first_line == (
        "[prod-eu] Pod shop/web-7d4b9c6f5d-x2x9q: "
        "Ready -> OOMKilled, CrashLoopBackOff, NotReady, RestartCountIncreased"
    )
    for fragment in (
        "Reason: CrashLoopBackOff: back-off 40s restarting failed container=web",
        "Container: web, exit code 137, 3 restarts, last terminated: OOMKilled",
        "Owner: created by Deployment web",
        "Age: 6m40s",
        "Changed: status.containerStatuses[web].restartCount: 2 -> 3",
    ):
        assert fragment in text


def test_deployment_stuck_text() -> None:
    made = transition(
        DEPLOYMENT_JSON,
        DEPLOYMENT_JSON,
        old_states={"Progressing", "Available"},
        new_states={"Stuck", "Available"},
    )
    [notification] = _send(made)
    text = notification.message.text
    assert "Deployment shop/web: Progressing -> Stuck" in text
    assert (
        'Reason: ProgressDeadlineExceeded: ReplicaSet "web-5f7" has timed out progressing.' in text
    )
    assert "Replicas: 2/3 ready" in text
    assert "Age: 1d6m" in text


def test_service_change_text() -> None:
    made = transition(
        SERVICE_JSON,
        changed(SERVICE_JSON, spec={"type": "ClusterIP"}),
        signals={"TypeChanged"},
        changes=(Change("spec.type", "LoadBalancer", "ClusterIP"),),
    )
    [notification] = _send(made)
    assert "Service shop/web: updated -> TypeChanged" in notification.message.text
    assert "Changed: spec.type: LoadBalancer -> ClusterIP" in notification.message.text


def test_blocks_are_slack_block_kit() -> None:
    [notification] = _send(crashloop())
    blocks = notification.message.blocks
    assert [block["type"] for block in blocks] == ["header", "section", "section", "context"]
    assert blocks[0]["text"] == {"type": "plain_text", "text": "Pod shop/web-7d4b9c6f5d-x2x9q"}
    fields = blocks[2]["fields"]
    assert {"type": "mrkdwn", "text": "*Owner*\ncreated by Deployment web"} in fields
    json.dumps(blocks)  # serializable as is


def test_optional_block_left_out_when_empty() -> None:
    made = transition(
        None, changed(POD_JSON, metadata={"creationTimestamp": None}), signals={"Created"}
    )
    [notification] = _send(made, rules=[{"name": "r", "sinks": ["console"]}])
    section_fields = [b for b in notification.message.blocks if "fields" in b]
    assert len(section_fields) == 1  # the owner is still known
    bare = transition(
        None, {"kind": "Service", "metadata": {"name": "s", "namespace": "n"}}, signals={"Created"}
    )
    [notification] = _send(bare)
    assert [b["type"] for b in notification.message.blocks] == ["header", "section", "context"]


def test_payload_schema() -> None:
    [notification] = _send(crashloop())
    payload = notification.message.payload
    assert payload["schema"] == "kube-notifier/v1"
    assert payload["type"] == "transition"
    assert payload["object"]["kind"] == "Pod"
    assert payload["object"]["uid"] == "0f6c2a51-8a7e-4c1e-9e35-1f3c0c9d2b11"
    assert payload["transition"]["entered"] == ["OOMKilled", "CrashLoopBackOff", "NotReady"]
    assert payload["container"]["exit_code"] == 137
    assert payload["restart_count"] == 3
    assert payload["owner"] == {"kind": "Deployment", "name": "web"}
    assert payload["severity"] == "critical"
    assert payload["observed_at"] == "2024-05-01T10:06:40Z"
    assert json.loads(json.dumps(payload)) == payload


def test_rule_template_replaces_text_only() -> None:
    templates = {"short": {"text": "{{ kind }} {{ key }} is {{ state }} ({{ rule }})"}}
    rules = [{"name": "r", "sinks": ["console"], "template": "short"}]
    [notification] = _send(crashloop(), rules=rules, templates=templates)
    assert notification.message.text == "Pod shop/web-7d4b9c6f5d-x2x9q is OOMKilled (r)"
    assert notification.message.payload["type"] == "transition"  # from the built-in


def test_inline_template_with_native_values() -> None:
    rules = [
        {
            "name": "r",
            "sinks": ["console"],
            "template": {
                "payload": {
                    "restarts": "{{ restart_count }}",
                    "states": "{{ new_states }}",
                    "line": "{{ name }} restarted {{ restart_count }} times",
                    "fixed": 7,
                }
            },
        }
    ]
    [notification] = _send(crashloop(), rules=rules)
    assert notification.message.payload == {
        "restarts": 3,
        "states": ["OOMKilled", "CrashLoopBackOff", "NotReady", "Running"],
        "line": "web-7d4b9c6f5d-x2x9q restarted 3 times",
        "fixed": 7,
    }


def test_redefined_default_is_used_by_every_rule() -> None:
    templates = {"default": {"text": "custom {{ key }}"}}
    [notification] = _send(crashloop(), templates=templates)
    assert notification.message.text == "custom shop/web-7d4b9c6f5d-x2x9q"
    assert notification.message.blocks[0]["type"] == "header"


def test_render_failure_falls_back_to_builtin() -> None:
    templates = {
        "fragile": {
            "text": "{{ container.name.missing }}",
            "payload": {"x": "{{ obj.metadata.__class__ }}"},
        }
    }
    rules = [{"name": "r", "sinks": ["console"], "template": "fragile"}]
    [notification] = _send(crashloop(), rules=rules, templates=templates)
    assert notification.message.text.startswith("[prod-eu] Pod shop/web-7d4b9c6f5d-x2x9q")
    assert notification.message.payload["schema"] == "kube-notifier/v1"


def test_sandbox_blocks_unsafe_attributes() -> None:
    templates = {"evil": {"text": "{{ obj.__class__.__mro__ }}"}}
    rules = [{"name": "r", "sinks": ["console"], "template": "evil"}]
    [notification] = _send(crashloop(), rules=rules, templates=templates)
    assert "mro" not in notification.message.text
    assert notification.message.text.startswith("[prod-eu] Pod")


@pytest.mark.parametrize(
    ("template", "fragment"),
    [
        ({"text": "{{ contianer }}"}, "unknown variable 'contianer' (did you mean 'container'?)"),
        ({"text": "{% if %}"}, "template does not compile: line 1"),
        ({"payload": {"a": ["{{ kind "]}}, "template does not compile"),
        ({"blocks": [{"text": "{{ members }}"}]}, "unknown variable 'members'"),
    ],
)
def test_template_problems_are_found_at_compile(template: dict[str, Any], fragment: str) -> None:
    rules = [{"name": "r", "sinks": ["console"], "template": "t"}]
    with pytest.raises(RulesError) as caught:
        ruleset(rules, templates={"t": template})
    assert fragment in str(caught.value)
    assert caught.value.problems[0].path[:2] == ("templates", "t")


def test_unused_template_is_still_checked() -> None:
    with pytest.raises(RulesError, match="unknown variable 'nope'"):
        ruleset([], templates={"spare": {"text": "{{ nope }}"}})


def test_digest_variables_allowed_in_unused_template() -> None:
    ruleset([], templates={"spare": {"text": "{{ count }} {{ kind }}"}})


def test_every_template_variable_is_documented() -> None:
    from pathlib import Path

    from notifier.rules.facts import DIGEST_NAMES, SINGLE_NAMES

    docs = (Path(__file__).parents[3] / "docs" / "rules.md").read_text()
    missing = sorted(name for name in SINGLE_NAMES | DIGEST_NAMES if f"`{name}`" not in docs)
    assert missing == []


def test_a_rule_renders_only_the_forms_its_sinks_send() -> None:
    forms: dict[str, frozenset[MessageForm]] = {
        "hook": frozenset({"text", "payload"}),
        "chat": frozenset({"text", "blocks"}),
    }
    sinks = {"hook": True, "chat": True}

    def message_for(rule_sinks: list[str]) -> Message:
        rules = [{"name": "r", "sinks": rule_sinks}]
        compiled = ruleset(rules, sinks=sinks, sink_forms=forms)
        notifications = RulesEngine(lambda: compiled, clock=lambda: NOW).process(crashloop())
        return notifications[0].message

    hook_only = message_for(["hook"])
    assert hook_only.payload["type"] == "transition" and hook_only.blocks == ()
    chat_only = message_for(["chat"])
    assert chat_only.blocks[0]["type"] == "header" and chat_only.payload == {}
    both = message_for(["hook", "chat"])
    assert both.payload == hook_only.payload and both.blocks == chat_only.blocks
    assert hook_only.text == chat_only.text == both.text != ""


def test_payload_fast_paths_equal_what_jinja_renders() -> None:
    """Constant strings and bare ``{{ name }}`` skip Jinja; the result must not change."""
    environment = make_environment()
    context = single_context(crashloop(), cluster="prod-eu", rule="r", owner=("Deployment", "web"))

    def by_jinja(spec: Any) -> Any:
        if isinstance(spec, dict):
            return {key: by_jinja(value) for key, value in spec.items()}
        if isinstance(spec, str) and "{{" in spec:
            return environment.compile_expression(spec.strip()[2:-2], False)(**context)
        return environment.from_string(spec).render() if isinstance(spec, str) else spec

    spec = builtin_specs()["default"].payload
    rendered = builtin_template(Role.SINGLE).payload(context)
    assert rendered == by_jinja(spec)
    assert rendered["schema"] == "kube-notifier/v1" and rendered["rule"] == "r"

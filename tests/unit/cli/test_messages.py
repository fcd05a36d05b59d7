"""Messages that help (issue #27, finding 3): each compared as the user sees it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from notifier.exits import Exit
from tests.unit.cli.conftest import Cli

Write = Callable[[str, str], Path]
KINDS = (
    "CronJob, DaemonSet, Deployment, Event, HorizontalPodAutoscaler, Job, Node, "
    "PersistentVolumeClaim, Pod, Service, StatefulSet"
)
CRASHING = """\
- apiVersion: v1
  kind: Pod
  metadata: {name: web-1, namespace: prod}
  status:
    phase: Running
    containerStatuses:
    - {name: web, ready: false, restartCount: 3, state: {waiting: {reason: CrashLoopBackOff}}}
"""


def errors(cli: Cli, path: Path) -> list[str]:
    run = cli("rules", "check", "--no-files", str(path))
    assert run.code == Exit.CONFIG, run.out
    return [line.removeprefix(f"{path}:") for line in run.out.splitlines()[1:]]


def test_an_unknown_sink_type_suggests_the_right_one(cli: Cli, write: Write) -> None:
    path = write("c.yaml", "sinks:\n  - name: a\n    type: Slack\n")
    assert errors(cli, path) == [
        "3:11: sinks[0].type: unknown sink type 'Slack' (did you mean 'slack'?); "
        "expected one of: slack, alertmanager, email, pagerduty, opsgenie, msteams, discord, "
        "googlechat, mattermost, telegram, webhook, console"
    ]


def test_a_kind_in_lower_case_suggests_the_kind(cli: Cli, write: Write) -> None:
    path = write("c.yaml", "watch:\n  kinds: [pods]\n")
    [line] = errors(cli, path)
    said, expected = line.split("; expected one of: ")
    assert said == (
        "2:11: watch.kinds[0]: 'pods' is not a kind's name (did you mean 'Pod'?): kinds are "
        "written as the API writes them"
    )
    # Custom kinds other tests declared may be listed too (the registry is process-wide).
    assert set(KINDS.split(", ")) <= set(
        expected.removesuffix(", or a custom resource's kind declared under watch.resources").split(
            ", "
        )
    )


def test_a_channel_read_as_a_comment_is_explained(
    cli: Cli, write: Write, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("T", "xoxb-1")
    path = write(
        "c.yaml", "sinks:\n  - name: a\n    type: slack\n    token: ${T}\n    channel: #ops\n"
    )
    assert errors(cli, path) == [
        "2:5: sinks[0]: channel is required with a bot token",
        "5:14: sinks[0].channel: YAML reads #ops as a comment, so channel is empty; quote a "
        'value that starts with #: channel: "#ops"',
    ]


def test_a_comment_after_a_key_that_may_be_empty_is_a_warning(cli: Cli, write: Write) -> None:
    path = write(
        "c.yaml",
        "sinks: [{name: o, type: console}]\n"
        "rules:\n  - name: r\n    sinks: [o]\n    match:\n      labels: #app\n",
    )
    run = cli("rules", "check", str(path))
    assert run.code == Exit.OK
    assert run.out.splitlines()[1] == (
        f"{path}:6:15: warning: rules[0].match.labels: YAML reads #app as a comment, so labels "
        'is empty; quote a value that starts with #: labels: "#app"'
    )


def test_from_lists_only_states(cli: Cli, write: Write) -> None:
    path = write(
        "c.yaml",
        "sinks: [{name: o, type: console}]\n"
        "rules: [{name: r, match: {kinds: [Service], from: [Gone]}, sinks: [o]}]\n",
    )
    assert errors(cli, path) == [
        "2:52: rules[0].match.from[0]: unknown state 'Gone' for Service; expected one of: none"
    ]


def test_one_broken_resource_does_not_cascade(cli: Cli, write: Write) -> None:
    path = write(
        "c.yaml",
        "watch:\n"
        "  kinds: [Pod]\n"
        "  resources:\n"
        "    - {kind: Certificate, group: cert-manager.io, version: v1, resource: certificates,\n"
        "       states: {Ready: {condition: Ready}}}\n"
        "    - {kind: Rollout, group: argoproj.io, version: v1alpha1, resourc: rollouts,\n"
        "       states: {Healthy: {field: status.phase, equals: Healthy}}}\n"
        "sinks: [{name: o, type: console}]\n"
        "rules:\n"
        "  - {name: certs, match: {kinds: [Certificate], to: [Ready]}, sinks: [o]}\n"
        "  - {name: rollouts, match: {kinds: [Rollout], to: [Healthy]}, sinks: [o]}\n",
    )
    found = errors(cli, path)
    assert [": ".join(line.split(": ", 2)[:2]) for line in found] == [
        "6:7: watch.resources[1].resource",
        "6:62: watch.resources[1].resourc",
    ]


def test_public_urls_are_not_secrets_but_keys_in_templates_are(cli: Cli, write: Write) -> None:
    path = write(
        "c.yaml",
        "sinks:\n"
        "  - name: pd\n"
        "    type: webhook\n"
        "    url: 'https://events.pagerduty.com/v2/enqueue'\n"
        "    template:\n"
        "      payload: {routing_key: R0123456789abcdef, event_action: trigger,\n"
        "                dedup_key: '{{ fingerprint }}'}\n"
        "rules: [{name: r, sinks: [pd]}]\n",
    )
    run = cli("rules", "check", str(path))
    assert run.code == Exit.OK
    assert run.out.splitlines()[1:] == [
        f"{path}:6:30: warning: sinks[0].template.payload.routing_key: routing_key is a secret, "
        "written inline: secrets belong in the environment (${ENV_VAR}, filled from a Secret)"
    ]


def test_the_receivers_example_has_no_false_secret_warning(cli: Cli) -> None:
    example = Path(__file__).resolve().parents[3] / "docs" / "examples" / "receivers.yaml"
    run = cli("rules", "check", "--no-files", str(example))
    assert run.code == Exit.OK
    assert "warning" not in run.out


def test_rules_test_stands_in_for_unset_variables_and_takes_a_list(
    cli: Cli, write: Write, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SLACK_TOKEN", raising=False)
    config = write(
        "c.yaml",
        "sinks: [{name: ops, type: slack, channel: '#ops', token: '${SLACK_TOKEN}'}]\n"
        "rules: [{name: crashloops, match: {kinds: [Pod], to: [CrashLoopBackOff]},"
        " sinks: [ops]}]\n",
    )
    pods = write("pods.yaml", f"apiVersion: v1\nkind: List\nitems:\n{CRASHING}")
    run = cli("rules", "test", str(config), "--new", str(pods))
    assert run.code == Exit.OK, run.out
    lines = run.out.splitlines()
    assert lines[0] == (
        f"{config}: not set here, so shown as written (nothing is sent): ${{SLACK_TOKEN}}"
    )
    assert "Matched: crashloops -> ops" in lines


def test_rules_test_refuses_a_list_of_several(cli: Cli, write: Write) -> None:
    config = write("c.yaml", "")
    pods = write("pods.yaml", f"kind: List\nitems:\n{CRASHING}{CRASHING}")
    run = cli("rules", "test", str(config), "--new", str(pods))
    assert run.code == Exit.FAILED
    assert run.out == (
        f"error: {pods}: a List of 2 objects; rules test takes one (kubectl get KIND NAME -o "
        "yaml, or keep one item)\n"
    )


def test_rules_test_names_the_file_of_broken_yaml(cli: Cli, write: Write) -> None:
    config = write("c.yaml", "")
    broken = write("pod.yaml", "kind: Pod\nmetadata: {name: [x\n")
    run = cli("rules", "test", str(config), "--new", str(broken))
    assert run.code == Exit.FAILED
    assert run.out == (
        f"error: {broken}:3:1: not YAML: expected ',' or ']', but got '<stream end>'\n"
    )

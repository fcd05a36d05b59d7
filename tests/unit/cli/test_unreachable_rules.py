"""Rules that could never fire are refused, each at its place (issue #27, finding 1)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from notifier.exits import Exit
from tests.unit.cli.conftest import Cli

Write = Callable[[str, str], Path]


def test_a_rule_for_a_kind_not_watched_is_an_error(cli: Cli, write: Write) -> None:
    path = write(
        "c.yaml",
        "sinks: [{name: ops, type: console}]\n"
        "rules:\n"
        "  - name: jobs\n"
        "    match: {kinds: [Job], to: [Failed]}\n"
        "    sinks: [ops]\n",
    )
    run = cli("rules", "check", str(path))
    assert run.code == Exit.CONFIG
    assert run.out == (
        "1 error in config\n"
        f"{path}:4:21: rules[0].match.kinds[0]: Job is not watched, so this rule can never match "
        "it: add Job to watch.kinds (watched now: Deployment, Pod, Service)\n"
    )


def test_the_same_rule_with_its_kind_watched_passes(cli: Cli, write: Write) -> None:
    path = write(
        "c.yaml",
        "watch: {kinds: [Pod, Job]}\n"
        "sinks: [{name: ops, type: console}]\n"
        "rules: [{name: jobs, match: {kinds: [Job], to: [Failed]}, sinks: [ops]}]\n",
    )
    run = cli("rules", "check", str(path))
    assert (run.code, run.out) == (0, f"{path}: OK: 1 rules, 1 sinks (1 enabled)\n")


def test_a_state_only_unwatched_kinds_have_is_an_error(cli: Cli, write: Write) -> None:
    path = write(
        "c.yaml",
        "sinks: [{name: ops, type: console}]\n"
        "rules: [{name: pressure, match: {to: [Ready, DiskPressure]}, sinks: [ops]}]\n",
    )
    run = cli("rules", "check", str(path))
    assert run.code == Exit.CONFIG
    assert run.out.splitlines()[1] == (
        f"{path}:2:46: rules[0].match.to[1]: 'DiskPressure' belongs to Node, which is not "
        "watched, so this rule can never match it: add the kind to watch.kinds "
        "(watched now: Deployment, Pod, Service)"
    )


def test_an_inhibit_rule_naming_an_unwatched_kind_is_an_error(cli: Cli, write: Write) -> None:
    path = write(
        "c.yaml",
        "inhibit_rules:\n"
        "  - {name: node-down, source: {kinds: [Node], to: [NotReady]}, target: {kinds: [Pod]},"
        " equal: [node]}\n",
    )
    run = cli("rules", "check", str(path))
    assert run.code == Exit.CONFIG
    assert "inhibit_rules[0].source.kinds[0]: Node is not watched" in run.out


def test_thread_by_on_a_slack_webhook_is_an_error(
    cli: Cli, write: Write, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOOK", "https://hooks.slack.invalid/x")
    path = write(
        "c.yaml",
        "sinks:\n"
        "  - {name: hook, type: slack, webhook_url: '${HOOK}'}\n"
        "rules:\n"
        "  - {name: threaded, thread_by: object, sinks: [hook]}\n",
    )
    run = cli("rules", "check", "--no-files", str(path))
    assert run.code == Exit.CONFIG, run.out
    assert run.out.splitlines()[1:] == [
        f"{path}:4:33: rules[0].thread_by: thread_by: object cannot be honoured: sink 'hook' "
        "posts through webhook_url, and Slack's incoming webhooks cannot thread (use a bot token "
        "and channel)"
    ]


def test_thread_by_on_a_slack_sink_with_threads_off_is_an_error(
    cli: Cli, write: Write, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("T", "xoxb-1")
    path = write(
        "c.yaml",
        "sinks: [{name: s, type: slack, token: '${T}', channel: C1, threads: false}]\n"
        "defaults: {sinks: [s]}\n"
        "rules: [{name: threaded, thread_by: object}]\n",
    )
    run = cli("rules", "check", "--no-files", str(path))
    assert run.code == Exit.CONFIG
    assert "sink 's' has threads: false (remove threads: false)" in run.out


def test_rules_test_refuses_the_unwatched_rule_too(cli: Cli, write: Write) -> None:
    config = write(
        "c.yaml",
        "sinks: [{name: ops, type: console}]\n"
        "rules: [{name: jobs, match: {kinds: [Job]}, sinks: [ops]}]\n",
    )
    job = write("job.yaml", "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j, namespace: d}\n")
    run = cli("rules", "test", str(config), "--new", str(job))
    assert run.code == Exit.CONFIG and "Matched" not in run.out
    assert "Job is not watched" in run.out

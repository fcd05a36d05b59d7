"""Loading whole files: the example, warnings, digests, and errors found together."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from notifier.config import (
    ConfigError,
    load_config,
    load_config_text,
    read_config,
    read_config_text,
)
from notifier.objects import Kind
from notifier.sinks.slack.config import SlackSinkConfig
from notifier.sinks.webhook.config import WebhookSinkConfig

EXAMPLE = Path(__file__).parents[3] / "config.example.yaml"


def test_example_loads_cleanly_without_environment() -> None:
    loaded = read_config_text(EXAMPLE.read_text(), "config.example.yaml", environ={})
    config = loaded.config
    assert loaded.warnings == ()
    assert config.cluster_name == "dev"
    assert [sink.name for sink in config.sinks] == ["console", "webhook", "slack"]
    webhook, slack = config.sinks[1], config.sinks[2]
    assert isinstance(webhook, WebhookSinkConfig) and webhook.url is not None
    assert webhook.url.get_secret_value() == "http://127.0.0.1:9000/hook"
    assert isinstance(slack, SlackSinkConfig) and not slack.enabled
    assert config.watch.kinds == [
        Kind.POD,
        Kind.DEPLOYMENT,
        Kind.STATEFULSET,
        Kind.DAEMONSET,
        Kind.SERVICE,
        Kind.JOB,
        Kind.NODE,
    ]
    assert loaded.ruleset.sinks == {"console": True, "webhook": True, "slack": False}


def test_example_turns_slack_on_with_a_token() -> None:
    environ = {"KN_SLACK_TOKEN": "xoxb-1", "KN_WEBHOOK_URL": "https://hooks.example/in"}
    config = load_config_text(EXAMPLE.read_text(), "example", environ=environ)
    assert config.sinks[2].enabled
    failures = next(
        rule
        for rule in read_config_text(EXAMPLE.read_text(), "e", environ=environ).ruleset.rules
        if rule.name == "pod-failures"
    )
    assert failures.sinks == ("slack", "webhook")


def test_load_config_reads_a_file(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("cluster_name: lab\n")
    assert load_config(path).cluster_name == "lab"


def test_empty_file_is_all_defaults() -> None:
    config = load_config_text("", "empty.yaml")
    assert config.rules == [] and config.watch.workers == 4 and config.watch.resync_seconds == 0


def test_inline_secrets_are_warned_about() -> None:
    text = """
sinks:
  - name: hook
    type: webhook
    url: https://hooks.slack.com/services/T000/B000/XXXX
  - name: public
    type: webhook
    url: https://events.pagerduty.com/v2/enqueue
  - name: slack
    type: slack
    channel: "#a"
    token: ${TOKEN}
"""
    loaded = read_config_text(text, "c.yaml", environ={"TOKEN": "xoxb"})
    [warning] = loaded.warnings
    assert str(warning) == (
        "c.yaml:5:10: warning: sinks[0].url: this url carries a secret (hooks.slack.com webhook "
        "URLs are the credential), written inline: secrets belong in the environment "
        "(${ENV_VAR}, filled from a Secret) or in url_file"
    )


def test_digest_follows_the_expanded_content() -> None:
    text = "cluster_name: ${NAME}\n"
    first = read_config_text(text, "a", environ={"NAME": "one"}).digest
    assert first == read_config_text(text + "\n# comment\n", "b", environ={"NAME": "one"}).digest
    assert first != read_config_text(text, "a", environ={"NAME": "two"}).digest


def test_valid_rules_are_checked_even_when_others_are_malformed() -> None:
    text = """
sinks:
  - {name: console, type: console}
  - {name: hook, type: webhook}
rules:
  - name: broken
    match: {kinds: [Nope]}
  - name: later
    sinks: [hook, missing]
"""
    with pytest.raises(ConfigError) as caught:
        load_config_text(text, "c.yaml")
    messages = [issue.message for issue in caught.value.issues]
    assert any("url or url_file is required" in m for m in messages)
    assert any("'Nope'" in m for m in messages)
    assert any("unknown sink 'missing' (defined: console, hook)" in m for m in messages)
    assert not any("'hook'" in m and "unknown sink" in m for m in messages)


def test_unreadable_file_is_an_os_error(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        read_config(tmp_path / "absent.yaml")


def test_issues_are_sorted_by_position() -> None:
    text = "rules:\n  - name: b\n    sinks: [x]\n  - name: a\n    sinks: [y]\n"
    with pytest.raises(ConfigError) as caught:
        load_config_text(text, "c.yaml")
    assert [issue.line for issue in caught.value.issues] == [3, 5]
    assert str(caught.value).startswith(
        "2 errors in config\nc.yaml:3:13: rules[0].sinks[0]: unknown sink 'x'"
    )


yaml_ish = st.text(
    alphabet=st.sampled_from(list("abkn :-[]{}&*!|>'\"#%@`,?\n\t$0123456789.")), max_size=200
)
config_keys = st.sampled_from(
    [
        "cluster_name",
        "watch",
        "sinks",
        "rules",
        "defaults",
        "templates",
        "mute_windows",
        "match",
        "name",
        "to",
        "kinds",
        "type",
    ]
)
json_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(allow_nan=True),
        st.text(max_size=20),
        st.just("${X:-1}"),
        st.just("{{ x }}"),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(config_keys, st.text(max_size=8)), inner, max_size=4),
    ),
    max_leaves=25,
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(yaml_ish)
def test_any_text_loads_or_raises_config_error(text: str) -> None:
    try:
        load_config_text(text, "fuzz.yaml", environ={})
    except ConfigError as exc:
        assert exc.issues


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.dictionaries(config_keys, json_values, max_size=6))
def test_any_structure_loads_or_raises_config_error(data: dict[str, object]) -> None:
    import json

    try:
        load_config_text(json.dumps(data), "fuzz.json", environ={})
    except ConfigError as exc:
        assert exc.issues


rule_keys = st.sampled_from(
    [
        "name",
        "match",
        "action",
        "until",
        "sinks",
        "continue",
        "template",
        "mute",
        "group_by",
        "dedup_window",
    ]
)
match_keys = st.sampled_from(
    [
        "kinds",
        "namespaces",
        "labels",
        "annotations",
        "from",
        "to",
        "fields",
        "owner",
        "origins",
        "events",
    ]
)
leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 2),
    st.sampled_from(
        ["Pod", "drop", "console", "CrashLoopBackOff", "~(", "app in (", "5m", "{{ x }}", "!a*"]
    ),
    st.lists(st.sampled_from(["Pod", "console", "Stuck", "~[", "shop", "live"]), max_size=3),
)
rules_strategy = st.lists(
    st.dictionaries(
        rule_keys,
        st.one_of(leaf, st.dictionaries(match_keys, leaf, max_size=4)),
        max_size=6,
    ),
    max_size=4,
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(rules_strategy)
def test_any_rules_load_or_raise_config_error(rules: list[dict[str, object]]) -> None:
    import json

    text = json.dumps({"sinks": [{"name": "console", "type": "console"}], "rules": rules})
    try:
        load_config_text(text, "fuzz.json", environ={})
    except ConfigError as exc:
        assert all(issue.line is not None for issue in exc.issues)

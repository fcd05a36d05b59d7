"""A sink's own template: the parts it names rendered from the facts, the others the
receiver's own; every notification carries facts; a bad template fails the build, located;
a rule's template is refused at load, saying where its parts go."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import TypeAdapter

from notifier.config import ConfigError, read_config_text
from notifier.notifications import FACT_NAMES
from notifier.sinks.base import Receiver
from notifier.sinks.building import build_sink
from notifier.sinks.config import SinkConfig
from notifier.sinks.secrets import SinkBuildError
from notifier.sinks.thread_roots import MemoryThreads
from tests.support.slack_server import TOKEN, SlackServer
from tests.support.webhook_server import WebhookServer
from tests.unit.sinks.told import firing_and_resolved, told_once

PAYLOAD = {
    "alert": "{{ rule }}",
    "where": "{{ namespace }}/{{ name }}",
    "labels": "{{ rule_labels }}",
}


def _build(settings: dict[str, Any]) -> Any:
    config = TypeAdapter(SinkConfig).validate_python({"name": "out", **settings})
    return build_sink(config, threads=MemoryThreads())


@pytest.fixture
def server() -> Iterator[WebhookServer]:
    with WebhookServer() as running:
        yield running


def test_a_webhook_renders_its_own_payload_from_the_facts(server: WebhookServer) -> None:
    settings = {"type": "webhook", "url": server.url, "template": {"payload": PAYLOAD}}
    firing, resolved = firing_and_resolved({**settings, "url": "http://127.0.0.1:9/"})
    sink = _build(settings)
    sink.send(firing)
    assert server.received()[0].json() == {
        "alert": "pod-crash", "where": "shop/web-7d4b9c6f5d-x2x9q", "labels": {"team": "shop"},
    }  # fmt: skip
    assert isinstance(sink, Receiver) and '"alert": "pod-crash"' in sink.preview(resolved)


def test_every_notification_carries_the_facts_and_no_receiver_format() -> None:
    [plain] = told_once({"type": "webhook", "url": "http://127.0.0.1:9/"})
    assert plain.facts["summary"].startswith("[prod-eu] Pod shop/")
    assert not hasattr(plain, "message")


def test_without_a_template_the_webhook_sends_the_v1_payload(server: WebhookServer) -> None:
    [firing] = told_once({"type": "webhook", "url": server.url})
    _build({"type": "webhook", "url": server.url}).send(firing)
    body = server.received()[0].json()
    assert (body["schema"], body["type"], body["rule"]) == (
        "kube-notifier/v1",
        "transition",
        "pod-crash",
    )
    assert body["object"]["name"] == "web-7d4b9c6f5d-x2x9q" and body["status"] == "firing"


def test_a_part_that_fails_to_render_is_the_receivers_own(server: WebhookServer) -> None:
    template = {"payload": {"x": "{{ summary.__class__.__mro__ }}"}}
    [firing] = told_once({"type": "webhook", "url": server.url})
    _build({"type": "webhook", "url": server.url, "template": template}).send(firing)
    assert server.received()[0].json()["schema"] == "kube-notifier/v1"


@pytest.mark.parametrize(
    ("settings", "fragment"),
    [
        ({"type": "webhook", "template": {"text": "{{ summary }}"}},
         "sinks[0].template: unknown part 'text': this receiver's are payload; a rule's template"),
        ({"type": "slack", "template": {"payload": {}}},
         "sinks[0].template: unknown part 'payload': this receiver's are text, blocks"),
        ({"type": "console", "template": {"blocks": "{{ summary }}"}},
         "sinks[0].template: unknown part 'blocks': this receiver's are text"),
    ],
)  # fmt: skip
def test_a_part_the_receiver_has_not_is_refused_at_load_where_it_is(
    settings: dict[str, Any], fragment: str
) -> None:
    where = {"url": "http://127.0.0.1:9/"} if settings["type"] == "webhook" else {}
    if settings["type"] == "slack":
        where = {"webhook_url": "http://127.0.0.1:9/"}
    text = yaml.safe_dump({"sinks": [{"name": "out", **settings, **where}]})
    with pytest.raises(ConfigError) as caught:
        read_config_text(text, "c.yaml", environ={})
    assert fragment in str(caught.value) and "c.yaml:" in str(caught.value)


RULE_TEMPLATES = """\
sinks: [{name: out, type: console}]
templates:
  short: {text: "{{ summary }}"}
rules:
  - name: r
    sinks: [out]
    template: short
    digest_template: {text: "{{ count }}"}
"""


def test_a_rules_template_is_refused_at_load_saying_where_its_parts_go() -> None:
    with pytest.raises(ConfigError) as caught:
        read_config_text(RULE_TEMPLATES, "c.yaml", environ={})
    said = str(caught.value)
    for where in ("c.yaml:3:", "c.yaml:7:", "c.yaml:8:"):
        assert where in said
    for path in ("templates.short", "rules[0].template", "rules[0].digest_template"):
        assert f"{path}: rules render no message now" in said
    assert "'blocks' to the slack sink's template.blocks" in said


def test_a_slack_sink_renders_its_blocks_escaped_and_keeps_its_own_text() -> None:
    blocks = [{"type": "section", "text": {"type": "mrkdwn", "text": "*{{ summary }}*"}}]
    with SlackServer() as slack:
        settings = {"type": "slack", "token": TOKEN, "channel": "#ops", "base_url": slack.api_url,
                    "template": {"blocks": blocks}}  # fmt: skip
        firing, _ = firing_and_resolved({**settings, "base_url": "http://127.0.0.1:9/"})
        hostile = dataclasses.replace(
            firing, facts={**(firing.facts or {}), "summary": "<!channel> & co"}
        )
        _build(settings).send(hostile)
        [message] = slack.messages()
    assert message.blocks == [
        {"type": "section", "text": {"type": "mrkdwn", "text": "*&lt;!channel&gt; &amp; co*"}}
    ]
    assert message.text.startswith("&lt;!channel&gt; &amp; co\nReason: ")  # its own, escaped


def test_a_template_with_an_unknown_variable_fails_the_build_located() -> None:
    settings = {"type": "webhook", "url": "http://127.0.0.1:9/",
                "template": {"payload": {"who": "{{ nmae }}"}}}  # fmt: skip
    with pytest.raises(SinkBuildError, match=r"sink 'out': template.payload.who: .*'nmae'"):
        _build(settings)


def test_every_variable_a_template_may_use_is_documented() -> None:
    docs = (Path(__file__).parents[3] / "docs" / "rules.md").read_text()
    receivers = (Path(__file__).parents[3] / "docs" / "receivers.md").read_text()
    missing = sorted(name for name in FACT_NAMES if f"`{name}`" not in docs + receivers)
    assert missing == []

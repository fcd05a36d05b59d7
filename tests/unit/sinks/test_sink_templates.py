"""A Slack or webhook sink's own template: its message from the facts, parts it leaves out the
rule's; facts are attached only for sinks that render; a bad one fails the build, located."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import TypeAdapter

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


def test_facts_are_attached_only_for_sinks_that_render_them() -> None:
    [plain] = told_once({"type": "webhook", "url": "http://127.0.0.1:9/"})
    [own] = told_once({"type": "webhook", "url": "http://127.0.0.1:9/", "template": {"text": "x"}})
    assert plain.facts is None and own.facts is not None


def test_a_slack_sink_renders_its_blocks_escaped_and_keeps_the_rules_text() -> None:
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
    assert message.text.startswith("[prod-eu] Pod shop/web-7d4b9c6f5d-x2x9q")  # the rule's


def test_a_template_with_an_unknown_variable_fails_the_build_located() -> None:
    settings = {"type": "webhook", "url": "http://127.0.0.1:9/",
                "template": {"payload": {"who": "{{ nmae }}"}}}  # fmt: skip
    with pytest.raises(SinkBuildError, match=r"sink 'out': template.payload.who: .*'nmae'"):
        _build(settings)

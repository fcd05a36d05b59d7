"""Object content reaches Slack escaped and terminals without control characters."""

from __future__ import annotations

import copy
import io
import json
from collections.abc import Iterator
from typing import Any

import pytest

from notifier.rules.engine import RulesEngine
from notifier.sinks.console.sink import ConsoleSink
from notifier.sinks.rendering import ReceiverTemplate
from notifier.sinks.slack.blocks import PARTS
from notifier.sinks.slack.posting import ApiPoster
from notifier.sinks.slack.sink import SlackSink
from tests.support.slack_server import TOKEN, SlackServer
from tests.unit.rules.builders import CRASHLOOP_STATUS, NOW, POD_JSON, ruleset, transition

HOSTILE = "<!channel> <@U123> <http://evil.example|Click> & \x1b[31mred\x1b[0m\x07\x00"


def _hostile_crashloop() -> Any:
    status = copy.deepcopy(CRASHLOOP_STATUS)
    status["containerStatuses"][0]["state"]["waiting"]["message"] = HOSTILE
    new = {**POD_JSON, "status": status}
    new["metadata"] = {**POD_JSON["metadata"], "annotations": {"note": HOSTILE}}
    return transition(
        POD_JSON,
        new,
        old_states={"Running", "Ready"},
        new_states={"Running", "NotReady", "CrashLoopBackOff"},
    )


def _notification() -> Any:
    compiled = ruleset([{"name": "r", "sinks": ["slack"]}])
    [note] = RulesEngine(lambda: compiled, clock=lambda: NOW).process(_hostile_crashloop())
    return note


@pytest.fixture
def slack() -> Iterator[SlackServer]:
    with SlackServer() as server:
        yield server


def _blocks(template: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    slack = ReceiverTemplate("slack", PARTS, template or {})
    found: list[dict[str, Any]] = slack.render("blocks", _notification().facts)
    return found


def test_object_text_in_blocks_is_escaped_and_the_receivers_markup_is_kept() -> None:
    blocks = json.dumps(_blocks(), ensure_ascii=False)
    assert "<!channel>" not in blocks and "<@U123>" not in blocks and "<http://evil" not in blocks
    assert "&lt;!channel&gt; &lt;@U123&gt; &lt;http://evil.example|Click&gt; &amp;" in blocks
    assert "\x1b" not in blocks and "\x07" not in blocks and "\x00" not in blocks
    assert "rule `r`" in blocks  # Slack's own markup (code) is kept


def test_a_users_blocks_keep_their_links_while_the_values_they_show_are_escaped() -> None:
    section = {
        "type": "section",
        "text": {"type": "mrkdwn", "text": "<https://runbook.example|Runbook>: {{ message }}"},
    }
    [block] = _blocks({"blocks": [section]})
    assert block["text"]["text"].startswith("<https://runbook.example|Runbook>: &lt;!channel&gt;")


def test_the_slack_text_fallback_is_escaped_on_the_wire(slack: SlackServer) -> None:
    poster = ApiPoster(token=TOKEN, channel="#ops", base_url=slack.api_url, timeout=5.0)
    sink = SlackSink("slack", poster, threads=None, thread_scope="slack@#ops")
    sink.send(_notification())
    [message] = slack.messages()
    assert "<!channel>" not in message.text and "&lt;!channel&gt;" in message.text
    assert "\x1b" not in message.text


def test_console_lines_carry_no_control_characters() -> None:
    stream = io.StringIO()
    ConsoleSink("console", max_lines=50, stream=stream).send(_notification())
    printed = stream.getvalue()
    assert "\x1b" not in printed and "\x07" not in printed and "\x00" not in printed
    assert "<!channel>" in printed  # plain text: nothing to escape on a terminal

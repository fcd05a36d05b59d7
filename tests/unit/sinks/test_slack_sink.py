from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from notifier.sinks.base import SendError
from notifier.sinks.rendering import ReceiverTemplate
from notifier.sinks.slack.blocks import PARTS, blocks_of
from notifier.sinks.slack.limits import MAX_BLOCKS, MAX_TEXT
from notifier.sinks.slack.posting import ApiPoster, IncomingWebhookPoster
from notifier.sinks.slack.sink import SlackSink
from notifier.sinks.thread_roots import MemoryThreads, ThreadStore
from tests.support.slack_server import TOKEN, SlackServer
from tests.unit.sinks.factories import notification

CHANNEL = "#alerts"


@pytest.fixture
def slack() -> Iterator[SlackServer]:
    with SlackServer() as server:
        yield server


def bot_sink(
    slack: SlackServer,
    *,
    threads: ThreadStore | None = None,
    token: str = TOKEN,
    timeout: float = 5.0,
    blocks: list[dict[str, object]] | None = None,
) -> SlackSink:
    poster = ApiPoster(token=token, channel=CHANNEL, base_url=slack.api_url, timeout=timeout)
    return SlackSink(
        "slack", poster, threads=threads, thread_scope=f"slack@{CHANNEL}", template=_own(blocks)
    )


def webhook_sink(
    slack: SlackServer, timeout: float = 5.0, blocks: list[dict[str, object]] | None = None
) -> SlackSink:
    poster = IncomingWebhookPoster(url=slack.webhook_url, timeout=timeout)
    return SlackSink(
        "slack", poster, threads=MemoryThreads(), thread_scope="slack@", template=_own(blocks)
    )


def _own(blocks: list[dict[str, object]] | None) -> ReceiverTemplate:
    """Slack's parts, with ``blocks`` as the sink's own template when given."""
    return ReceiverTemplate("slack", PARTS, {} if blocks is None else {"blocks": blocks})


def send_error(sink: SlackSink) -> SendError:
    with pytest.raises(SendError) as raised:
        sink.send(notification("slack"))
    return raised.value


def section(text: str) -> dict[str, object]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


def test_posts_blocks_with_the_text_fallback_to_the_channel(slack: SlackServer) -> None:
    sent = notification("slack", text="web-1 crashed")
    bot_sink(slack).send(sent)

    (message,) = slack.messages()
    assert message.channel == CHANNEL
    assert message.text == "web-1 crashed"
    assert message.blocks == blocks_of(sent.facts)
    assert message.blocks[0] == {
        "type": "header", "text": {"type": "plain_text", "text": "Pod default/web-1"}
    }  # fmt: skip
    assert message.thread_ts is None


def test_messages_are_fitted_to_slack_limits(slack: SlackServer) -> None:
    blocks = [section(str(n)) for n in range(80)]

    bot_sink(slack, blocks=blocks).send(notification("slack", text="t" * 10_000))

    (message,) = slack.messages()
    assert message.blocks is not None and len(message.blocks) == MAX_BLOCKS
    assert len(message.text) == MAX_TEXT
    assert message.text.endswith(f"({10_000 - message.text.index('…')} more characters)")


def test_same_thread_key_replies_in_the_first_messages_thread(slack: SlackServer) -> None:
    sink = bot_sink(slack, threads=MemoryThreads())

    sink.send(notification("slack", thread_key="Pod/default/web-1"))
    sink.send(notification("slack", thread_key="Pod/default/web-1"))
    sink.send(notification("slack", thread_key="Pod/default/other"))
    sink.send(notification("slack", thread_key="Pod/default/web-1"))

    first, reply, other, second_reply = slack.messages()
    assert first.thread_ts is None and first.ts is not None
    assert reply.thread_ts == first.ts
    assert other.thread_ts is None
    assert second_reply.thread_ts == first.ts


def test_a_resolution_replies_in_the_thread_and_marks_its_first_message(
    slack: SlackServer,
) -> None:
    sink = bot_sink(slack, threads=MemoryThreads())
    sink.send(notification("slack", thread_key="fp-1", text="web-1 is CrashLoopBackOff"))
    sink.send(notification("slack", thread_key="fp-1", text="resolved", resolves=True,
                           closes_thread=True))  # fmt: skip

    root, reply = slack.messages()
    assert reply.thread_ts == root.ts
    assert slack.updates() == [(root.ts, "resolved")]


def test_in_a_thread_per_group_a_resolution_only_replies(slack: SlackServer) -> None:
    sink = bot_sink(slack, threads=MemoryThreads())
    sink.send(notification("slack", thread_key="group:r|namespace=shop", text="3 Pods crashed"))
    sink.send(notification("slack", thread_key="group:r|namespace=shop", text="web-1 resolved",
                           resolves=True))  # fmt: skip
    root, reply = slack.messages()
    assert reply.thread_ts == root.ts and slack.updates() == []


def test_a_root_that_cannot_be_marked_leaves_the_resolution_sent(slack: SlackServer) -> None:
    threads = MemoryThreads()
    sink = bot_sink(slack, threads=threads)
    threads.remember_thread("slack@#alerts", "fp-2", "1.000001")  # a ts Slack never gave
    sink.send(notification("slack", thread_key="fp-2", text="resolved", resolves=True,
                           closes_thread=True))  # fmt: skip
    assert [m.text for m in slack.messages()] == ["resolved"] and slack.updates() == []


def test_without_a_thread_store_nothing_is_threaded(slack: SlackServer) -> None:
    sink = bot_sink(slack, threads=None)

    sink.send(notification("slack", thread_key="k"))
    sink.send(notification("slack", thread_key="k"))

    assert [m.thread_ts for m in slack.messages()] == [None, None]


def test_rate_limited_is_retryable_after_the_given_seconds(slack: SlackServer) -> None:
    slack.rate_limit(retry_after=3)

    error = send_error(bot_sink(slack))

    assert (error.reason, error.retryable, error.retry_after) == ("rate_limited", True, 3.0)
    assert len(slack.received()) == 1, "slack_sdk must not retry on its own"


@pytest.mark.parametrize("code", ["channel_not_found", "not_in_channel", "is_archived"])
def test_slack_errors_about_the_channel_are_permanent(slack: SlackServer, code: str) -> None:
    slack.fail(code)

    error = send_error(bot_sink(slack))

    assert (error.reason, error.retryable) == (code, False)


def test_a_wrong_token_is_permanent(slack: SlackServer) -> None:
    error = send_error(bot_sink(slack, token="xoxb-wrong"))

    assert (error.reason, error.retryable) == ("invalid_auth", False)


@pytest.mark.parametrize("status", [500, 503])
def test_server_errors_are_retryable_and_not_retried_by_the_sdk(
    slack: SlackServer, status: int
) -> None:
    slack.server_error(status)

    error = send_error(bot_sink(slack))

    assert (error.reason, error.retryable) == (f"http_{status}", True)
    assert len(slack.received()) == 1


def test_a_hanging_slack_times_out(slack: SlackServer) -> None:
    slack.hang()

    started = time.monotonic()
    error = send_error(bot_sink(slack, timeout=1.0))

    assert (error.reason, error.retryable) == ("timeout", True)
    assert time.monotonic() - started < 3.0


@pytest.mark.parametrize("incoming_webhook", [False, True], ids=["web-api", "incoming-webhook"])
def test_a_trickled_answer_ends_by_the_deadline(slack: SlackServer, incoming_webhook: bool) -> None:
    """slack_sdk's urllib bounds each read only: one byte every 0.2 s never timed out."""
    slack.trickle()
    sink = webhook_sink(slack, timeout=1.0) if incoming_webhook else bot_sink(slack, timeout=1.0)

    started = time.monotonic()
    error = send_error(sink)

    assert (error.reason, error.retryable) == ("deadline", True)
    assert time.monotonic() - started < 4.0


def test_slack_unreachable_is_a_retryable_connection_error(slack: SlackServer) -> None:
    sink = bot_sink(slack)
    slack.go_down()

    error = send_error(sink)

    assert (error.reason, error.retryable) == ("connection_error", True)


def test_incoming_webhook_posts_text_and_blocks(slack: SlackServer) -> None:
    webhook_sink(slack, blocks=[section("b")]).send(notification("slack", text="hi"))

    (message,) = slack.messages()
    assert (message.text, message.blocks, message.channel) == ("hi", [section("b")], None)


def test_incoming_webhook_errors_are_classified(slack: SlackServer) -> None:
    sink = webhook_sink(slack)
    slack.fail("channel_not_found")
    slack.rate_limit(retry_after=2)

    not_found = send_error(sink)
    limited = send_error(sink)

    assert (not_found.reason, not_found.retryable) == ("channel_not_found", False)
    assert (limited.reason, limited.retryable, limited.retry_after) == ("rate_limited", True, 2.0)

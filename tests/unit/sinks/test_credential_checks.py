"""Credentials checked at start without sending: Slack's token (auth.test) and channel, found
by name or ID; a refusal is said once in the log, in a metric and in /readyz's detail, and a
Slack that cannot be reached fails nothing."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from prometheus_client import REGISTRY

from notifier.delivery.credentials import CredentialChecks
from notifier.service.health import _credentials
from notifier.sinks.base import Verdict
from notifier.sinks.slack.posting import ApiPoster
from notifier.sinks.slack.sink import SlackSink
from tests.controlplane.processes import free_port
from tests.support.slack_server import CHANNEL_ID, TOKEN, SlackServer


@pytest.fixture
def slack() -> Iterator[SlackServer]:
    with SlackServer() as server:
        yield server


def _sink(base_url: str, *, token: str = TOKEN, channel: str = "#ops") -> SlackSink:
    poster = ApiPoster(token=token, channel=channel, base_url=base_url, timeout=5)
    return SlackSink("slack-ops", poster, threads=None, thread_scope="s")


@pytest.mark.parametrize("channel", ["#ops", "ops", CHANNEL_ID])
def test_a_good_token_and_an_existing_channel_pass(slack: SlackServer, channel: str) -> None:
    verdict = _sink(slack.api_url, channel=channel).check_credentials()
    assert verdict.ok is True and "found" in verdict.detail
    assert slack.messages() == []  # nothing posted


@pytest.mark.parametrize(
    ("token", "channel", "said"),
    [("xoxb-wrong", "#ops", "invalid_auth"), (TOKEN, "#nope", "channel_not_found"),
     (TOKEN, "C0MISSING1", "channel_not_found")],
)  # fmt: skip
def test_a_bad_token_or_a_missing_channel_is_refused(
    slack: SlackServer, token: str, channel: str, said: str
) -> None:
    verdict = _sink(slack.api_url, token=token, channel=channel).check_credentials()
    assert verdict.ok is False and verdict.detail.startswith(said)
    assert "xoxb" not in verdict.detail


def test_slack_out_of_reach_cannot_tell() -> None:
    verdict = _sink(f"http://127.0.0.1:{free_port()}/api/").check_credentials()
    assert verdict.ok is None


def test_a_refusal_shows_in_the_log_the_metric_and_readyz(
    slack: SlackServer, caplog: pytest.LogCaptureFixture
) -> None:
    checks = CredentialChecks()
    with caplog.at_level(logging.INFO, logger="notifier.delivery"):
        checks.run([_sink(slack.api_url, token="xoxb-wrong")])
        assert checks.wait(10)
    assert checks.refused() == {"slack-ops": "invalid_auth"}
    [line] = [r.getMessage() for r in caplog.records if "credentials" in r.getMessage()]
    assert line == "sink slack-ops: credentials refused: invalid_auth"
    labels = {"integration": "slack", "sink": "slack-ops"}
    assert REGISTRY.get_sample_value("kube_notifier_sink_credentials_ok", labels) == 0
    result = _credentials(checks.refused())
    assert (result.ok, result.detail) == (False, "slack-ops: invalid_auth")


def test_an_incoming_webhook_is_not_checked(slack: SlackServer) -> None:
    from notifier.sinks.slack.posting import IncomingWebhookPoster

    poster = IncomingWebhookPoster(url=slack.webhook_url, timeout=5)
    sink = SlackSink("hook", poster, threads=None, thread_scope="s")
    assert sink.check_credentials() == Verdict(
        None, "an incoming webhook cannot be checked without posting"
    )

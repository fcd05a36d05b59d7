from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from notifier.sinks.building import build_sink
from notifier.sinks.config import SinkConfig
from notifier.sinks.secrets import SinkBuildError, redact_url
from notifier.sinks.slack.config import SlackSinkConfig
from notifier.sinks.slack.sink import SlackSink
from notifier.sinks.thread_roots import MemoryThreads
from notifier.sinks.webhook.config import WebhookSinkConfig
from notifier.sinks.webhook.sink import WebhookSink
from tests.support.webhook_server import WebhookServer
from tests.unit.sinks.factories import notification

sink_config: TypeAdapter[Any] = TypeAdapter(SinkConfig)


def parse(**fields: Any) -> Any:
    return sink_config.validate_python(fields)


@pytest.mark.parametrize(
    ("fields", "complaint"),
    [
        ({"type": "webhook", "name": "h"}, "url or url_file is required"),
        ({"type": "webhook", "name": "h", "url": "http://x", "url_file": "/f"}, "not both"),
        ({"type": "webhook", "name": "h", "url": "http://x", "retries": 3}, "Extra inputs"),
        ({"type": "slack", "name": "s", "token": "t"}, "channel is required"),
        (
            {"type": "slack", "name": "s", "token": "t", "channel": "#c", "webhook_url": "u"},
            "exactly one",
        ),
        ({"type": "slack", "name": "s"}, "exactly one"),
        ({"type": "console", "name": "c", "delivery": {"concurrency": 0}}, "greater than"),
    ],
)
def test_bad_sink_configs_fail_with_a_reason(fields: dict[str, Any], complaint: str) -> None:
    with pytest.raises(ValidationError, match=complaint):
        parse(**fields)


def test_secrets_do_not_show_in_reprs() -> None:
    config = parse(type="webhook", name="h", url="https://x/?token=abc", hmac_secret="k3y")

    assert "abc" not in repr(config) and "k3y" not in repr(config)


def test_a_partial_delivery_block_keeps_the_type_defaults() -> None:
    slack = parse(type="slack", name="s", token="t", channel="#c", delivery={"queue_size": 5})

    assert isinstance(slack, SlackSinkConfig)
    assert slack.delivery.queue_size == 5
    assert slack.delivery.min_interval_seconds == 1.0
    assert slack.pacing_group == "slack:#c"


def test_secret_files_are_read_at_build_time(tmp_path: Path) -> None:
    with WebhookServer() as server:
        (tmp_path / "url").write_text(server.url + "\n")
        (tmp_path / "key").write_text("k3y\n")
        config = parse(
            type="webhook",
            name="h",
            url_file=str(tmp_path / "url"),
            hmac_secret_file=str(tmp_path / "key"),
        )

        sink = build_sink(config, threads=MemoryThreads())
        sink.send(notification())

    assert isinstance(sink, WebhookSink)
    assert server.received()[0].header("X-Kube-Notifier-Signature") is not None


def test_an_unreadable_secret_file_names_the_sink_and_field(tmp_path: Path) -> None:
    config = parse(type="slack", name="ops", token_file=str(tmp_path / "missing"), channel="#c")

    with pytest.raises(SinkBuildError, match=r"sink 'ops': cannot read token_file .*missing"):
        build_sink(config, threads=MemoryThreads())


def test_a_bad_url_is_refused_without_showing_it() -> None:
    config = WebhookSinkConfig.model_validate({"type": "webhook", "name": "h", "url": "ftp:tok3n"})

    with pytest.raises(SinkBuildError) as raised:
        build_sink(config, threads=MemoryThreads())

    assert "tok3n" not in str(raised.value)


def test_slack_configs_build_slack_sinks() -> None:
    bot = parse(type="slack", name="s", token="xoxb-1", channel="#c")
    hook = parse(type="slack", name="w", webhook_url="https://hooks.slack.com/services/T/B/x")

    assert isinstance(build_sink(bot, threads=MemoryThreads()), SlackSink)
    assert isinstance(build_sink(hook, threads=MemoryThreads()), SlackSink)


def test_redact_url_keeps_only_scheme_host_and_port() -> None:
    assert redact_url("https://hooks.slack.com/services/T/B/x?y=1") == "https://hooks.slack.com/…"
    assert redact_url("http://user:pw@10.0.0.1:8080/p") == "http://10.0.0.1:8080/…"


@pytest.mark.parametrize(
    ("resolved_url", "complaint"),
    [
        ("https://other.example/v2/alerts/{fingerprint}/close", "on url's scheme, host and port"),
        ("http://api.example/v2/alerts/{fingerprint}/close", "on url's scheme, host and port"),
        ("https://api.example/v2/{alias}/close", "may hold {fingerprint}, nothing else"),
        ("not a url", "resolved_url must be an http(s) URL"),
    ],
)
def test_a_resolved_url_off_the_sinks_host_or_with_other_fields_is_refused(
    resolved_url: str, complaint: str
) -> None:
    config = WebhookSinkConfig.model_validate({
        "name": "og", "type": "webhook", "url": "https://api.example/v2/alerts",
        "resolved_url": resolved_url,
    })  # fmt: skip
    with pytest.raises(SinkBuildError, match=re.escape(complaint)):
        build_sink(config, threads=MemoryThreads())


def test_firings_go_to_url_and_resolutions_to_resolved_url_with_their_fingerprint() -> None:
    with WebhookServer() as server:
        config = WebhookSinkConfig.model_validate({
            "name": "og", "type": "webhook", "url": f"{server.base_url}/v2/alerts",
            "resolved_url": f"{server.base_url}/v2/alerts/{{fingerprint}}/close?by=alias",
        })  # fmt: skip
        sink = build_sink(config, threads=MemoryThreads())
        try:
            sink.send(dataclasses.replace(notification("og"), fingerprint="f/1"))
            sink.send(dataclasses.replace(notification("og"), fingerprint="f/1", resolves=True))
        finally:
            sink.close()
        paths = [request.path for request in server.received()]
    assert paths == ["/v2/alerts", "/v2/alerts/f%2F1/close?by=alias"]

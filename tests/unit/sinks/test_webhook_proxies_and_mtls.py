"""Webhooks go through the proxy the environment or the sink names, not when NO_PROXY says;
and present a client certificate to a receiver that requires one."""

from __future__ import annotations

import ssl
from collections.abc import Iterator
from pathlib import Path

import pytest

from notifier.sinks.proxies import bypassed, proxy_auth
from notifier.sinks.slack.posting import ApiPoster, IncomingWebhookPoster, Poster
from notifier.sinks.webhook.sink import WebhookSink, WebhookTarget
from tests.support.http_proxy import HttpProxy
from tests.support.slack_server import TOKEN, SlackServer
from tests.support.webhook_server import WebhookServer
from tests.unit.sinks.certificates import write_self_signed
from tests.unit.sinks.factories import notification

PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy")


@pytest.fixture
def proxy(monkeypatch: pytest.MonkeyPatch) -> Iterator[HttpProxy]:
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    running = HttpProxy()
    yield running
    running.close()


def _post(url: str, **target: object) -> None:
    sink = WebhookSink("hook", WebhookTarget(url=url, **target))  # type: ignore[arg-type]
    try:
        sink.send(notification("hook"))
    finally:
        sink.close()


def test_http_proxy_from_the_environment_is_used(
    proxy: HttpProxy, server: WebhookServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    _post(server.url)
    assert proxy.seen == [f"POST {server.url}"]
    assert len(server.received()) == 1


def test_no_proxy_sends_direct(
    proxy: HttpProxy, server: WebhookServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    _post(server.url)
    assert proxy.seen == []
    assert len(server.received()) == 1


def test_the_sinks_own_proxy_wins_and_direct_ignores_the_environment(
    proxy: HttpProxy, server: WebhookServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    _post(server.url, proxy=proxy.url)
    assert proxy.seen == [f"POST {server.url}"]
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    _post(server.url, proxy="direct")
    assert len(proxy.seen) == 1 and len(server.received()) == 2


def test_https_goes_through_a_connect_tunnel(
    proxy: HttpProxy, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cert, key = write_self_signed(tmp_path)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    monkeypatch.setenv("HTTPS_PROXY", proxy.url)
    with WebhookServer(tls=context) as tls_server:
        url = tls_server.url.replace("http://", "https://")
        _post(url, ca_file=str(cert))
        assert len(tls_server.received()) == 1
    assert proxy.seen == [f"CONNECT 127.0.0.1:{tls_server.port}"]


def test_a_client_certificate_is_presented_to_a_receiver_that_requires_one(
    tmp_path: Path,
) -> None:
    server_dir, client_dir = tmp_path / "server", tmp_path / "client"
    server_dir.mkdir()
    client_dir.mkdir()
    cert, key = write_self_signed(server_dir)
    client_cert, client_key = write_self_signed(client_dir)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    context.verify_mode = ssl.CERT_REQUIRED
    context.load_verify_locations(client_cert)  # self-signed: it is its own CA
    with WebhookServer(tls=context) as tls_server:
        url = tls_server.url.replace("http://", "https://")
        with pytest.raises(Exception):  # noqa: B017 - without one the handshake fails
            _post(url, ca_file=str(cert))
        _post(
            url,
            ca_file=str(cert),
            client_cert_file=str(client_cert),
            client_key_file=str(client_key),
        )
        assert len(tls_server.received()) == 1


@pytest.mark.parametrize(
    ("host", "entries", "bypass"),
    [
        ("10.1.2.3", ["10.0.0.0/8"], True),
        ("10.1.2.3", ["192.168.0.0/16"], False),
        ("api.example.com", ["example.com"], True),
        ("api.example.com", [".example.com"], True),
        ("example.org", ["example.com"], False),
        ("anything", ["*"], True),
        ("127.0.0.1", ["127.0.0.1"], True),
    ],
)
def test_no_proxy_names_hosts_domains_addresses_and_networks(
    host: str, entries: list[str], bypass: bool
) -> None:
    assert bypassed(host, entries) is bypass


def test_proxy_credentials_go_in_a_header_not_the_url() -> None:
    url, headers = proxy_auth("http://user:p%40ss@proxy.example:3128")
    assert url == "http://proxy.example:3128"
    assert headers == {"Proxy-Authorization": "Basic dXNlcjpwQHNz"}  # user:p@ss
    assert proxy_auth("http://proxy.example:3128") == ("http://proxy.example:3128", {})


@pytest.mark.parametrize("incoming_webhook", [False, True], ids=["web-api", "incoming-webhook"])
def test_slack_goes_through_the_proxy_unless_no_proxy_names_it(
    proxy: HttpProxy, monkeypatch: pytest.MonkeyPatch, incoming_webhook: bool
) -> None:
    """Slack's clients send through the same transport: the same proxy rules as webhooks."""
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    with SlackServer() as slack:
        url = slack.webhook_url if incoming_webhook else f"{slack.api_url}chat.postMessage"
        _slack_post(slack, incoming_webhook)
        assert proxy.seen == [f"POST {url}"]
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        _slack_post(slack, incoming_webhook)
        assert len(proxy.seen) == 1 and len(slack.messages()) == 2


def _slack_post(slack: SlackServer, incoming_webhook: bool) -> None:
    poster: Poster = (
        IncomingWebhookPoster(url=slack.webhook_url, timeout=5.0)
        if incoming_webhook
        else ApiPoster(token=TOKEN, channel="#c", base_url=slack.api_url, timeout=5.0)
    )
    poster.post("hello", [], None)

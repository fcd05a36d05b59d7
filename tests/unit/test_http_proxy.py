"""The test HTTP proxy itself: a plain request is forwarded, an https:// one tunnelled."""

from __future__ import annotations

import http.client

import urllib3

from tests.support.http_proxy import HttpProxy
from tests.support.webhook_server import WebhookServer


def test_a_plain_http_request_is_forwarded_and_answered() -> None:
    with WebhookServer() as receiver, HttpProxy() as proxy:
        receiver.answer(201)
        client = urllib3.ProxyManager(proxy.url, retries=False)

        answer = client.request("POST", f"{receiver.url}?x=1", body=b"{}", timeout=10)

        assert answer.status == 201
        assert proxy.forwarded == [f"POST {receiver.url}?x=1"] and not proxy.tunnels
        [request] = receiver.received()
        assert request.body == b"{}"


def test_a_connect_opens_a_tunnel_to_the_target() -> None:
    with WebhookServer() as receiver, HttpProxy() as proxy:
        connection = http.client.HTTPConnection("127.0.0.1", proxy.port, timeout=10)
        connection.set_tunnel("127.0.0.1", receiver.port)  # CONNECT, then HTTP inside

        connection.request("POST", "/hook", body=b"{}")

        assert connection.getresponse().status == 200
        assert proxy.tunnels == [f"127.0.0.1:{receiver.port}"] and not proxy.forwarded
        connection.close()

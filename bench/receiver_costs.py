"""CPU per notification of each receiver: its body rendered, encoded and sent, on our side.

Each receiver's sink, built from its config, sends a crash loop's notification
(made by the rules, facts included) to a local server in its own process: the
webhook receiver (``tests.support.webhook_server``, answering 200 to any path)
for the HTTP receivers, an SMTP server (``tests.support.smtp_server``) for
email. Only this process's CPU is counted. Part of ``bench.notification_bench``.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

import yaml
from pydantic import TypeAdapter

from bench.rules_bench import crashloop_in
from notifier.config import read_config_text
from notifier.notifications import Notification
from notifier.rules.engine import RulesEngine
from notifier.sinks.building import build_sink
from notifier.sinks.config import SinkConfig
from notifier.sinks.thread_roots import MemoryThreads


def settings(kind: str, base: str, smtp_port: int) -> dict[str, Any]:
    every: dict[str, dict[str, Any]] = {
        "webhook": {"url": f"{base}/hook"},
        "slack": {"webhook_url": f"{base}/services/T/B/x"},
        "alertmanager": {"urls": [base]},
        "email": {"host": "127.0.0.1", "port": smtp_port, "security": "none",
                  "from": "kn@example.org", "to": ["oncall@example.org"]},
        "pagerduty": {"routing_key": "k" * 32, "url": f"{base}/v2/enqueue"},
        "opsgenie": {"api_key": "key", "api_url": base},
        "msteams": {"url": f"{base}/workflows"},
        "discord": {"url": f"{base}/api/webhooks/1/x"},
        "googlechat": {"url": f"{base}/v1/spaces/S/messages?key=K"},
        "mattermost": {"url": f"{base}/hooks/x"},
        "telegram": {"bot_token": "1:x", "chat_id": "-1", "api_url": base},
    }  # fmt: skip
    return every[kind]


KINDS = ("webhook", "slack", "alertmanager", "email", "pagerduty", "opsgenie", "msteams",
         "discord", "googlechat", "mattermost", "telegram")  # fmt: skip


def notification(sink: dict[str, Any]) -> Notification:
    config = {
        "cluster_name": "bench",
        "sinks": [{"name": "out", **sink}],
        "rules": [{"name": "crashes", "match": {"kinds": ["Pod"]}, "sinks": ["out"],
                   "send_resolved": True}],
    }  # fmt: skip
    loaded = read_config_text(yaml.safe_dump(config), "bench.yaml", environ={})
    [note] = RulesEngine(lambda: loaded.ruleset).process(crashloop_in("shop"))
    return note


def receiver_rows(
    url: str, cpu_per_call: Callable[[Callable[[], object]], float]
) -> dict[str, float]:
    base = url.rsplit("/", 1)[0]
    rows = {}
    with smtp_server() as port:
        for kind in KINDS:
            sink_settings = {"type": kind, **settings(kind, base, port)}
            note = notification(sink_settings)
            config = TypeAdapter(SinkConfig).validate_python({"name": "out", **sink_settings})
            sink = build_sink(config, threads=MemoryThreads())
            try:
                rows[kind] = cpu_per_call(partial(sink.send, note))
            finally:
                sink.close()
    return rows


@contextmanager
def smtp_server() -> Iterator[int]:
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.support.smtp_server"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert child.stdout is not None
        yield int(child.stdout.readline().strip())
    finally:
        child.kill()
        child.wait()

"""CPU per notification of each receiver: its body rendered, encoded and sent, on our side.

Each receiver of the registry but the console (its sink built from its golden
settings, ``tests/golden/<type>/settings.json``) sends a crash loop's notification
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
from notifier.sinks.registry import RECEIVERS
from notifier.sinks.thread_roots import MemoryThreads
from tests.golden.receivers import settings as golden_settings


def settings(kind: str, base: str, smtp_port: int) -> dict[str, Any]:
    """The receiver's golden settings (tests/golden/<kind>/settings.json) on the local servers."""
    found = golden_settings(kind, base)
    return {**found, "host": "127.0.0.1", "port": smtp_port} if "host" in found else found


# Every receiver of the registry but the console (it writes to this process's stdout).
KINDS = tuple(receiver.name for receiver in RECEIVERS if receiver.name != "console")


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

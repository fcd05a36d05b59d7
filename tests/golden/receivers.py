"""Each receiver's golden renders: the body it would send for each scenario, as a person reads it.

``render(receiver, scenario)`` builds a sink of that type as ``run`` does (the
settings below: nothing is sent) and returns its ``preview``: the JSON body
(multi-line text a line at a time), the mail's headers and parts, the
console's lines. The files are ``tests/golden/<receiver>/<scenario>.txt``;
``python -m tests.golden.rewrite`` writes them again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from notifier.sinks.base import Receiver
from notifier.sinks.building import BUILDERS, build_sink
from notifier.sinks.config import SinkConfig
from notifier.sinks.thread_roots import MemoryThreads
from tests.golden.scenarios import SCENARIOS

FOLDER = Path(__file__).resolve().parent
_BASE = "https://receiver.example"
SETTINGS: dict[str, dict[str, Any]] = {
    "console": {},
    "webhook": {"url": f"{_BASE}/hook"},
    "slack": {"webhook_url": f"{_BASE}/services/T/B/x"},
    "alertmanager": {"urls": [_BASE]},
    "email": {"host": "smtp.example", "port": 25, "security": "none",
              "from": "kube-notifier@example.org", "to": ["oncall@example.org"]},
    "pagerduty": {"routing_key": "k" * 32},
    "opsgenie": {"api_key": "key"},
    "msteams": {"url": f"{_BASE}/workflows"},
    "discord": {"url": f"{_BASE}/api/webhooks/1/x"},
    "googlechat": {"url": f"{_BASE}/v1/spaces/S/messages?key=K"},
    "mattermost": {"url": f"{_BASE}/hooks/x"},
    "telegram": {"bot_token": "1:x", "chat_id": "-100123"},
}  # fmt: skip


def receivers() -> list[str]:
    """Every receiver type the registry builds (``sinks.building.BUILDERS``)."""
    return sorted(config.model_fields["type"].annotation.__args__[0] for config in BUILDERS)


def path_of(receiver: str, scenario: str) -> Path:
    return FOLDER / receiver / f"{scenario}.txt"


def render(receiver: str, scenario: str) -> str:
    config = TypeAdapter(SinkConfig).validate_python(
        {"name": "out", "type": receiver, **SETTINGS[receiver]}
    )
    sink = build_sink(config, threads=MemoryThreads())
    try:
        assert isinstance(sink, Receiver), f"{receiver} cannot show its body"
        shown = sink.preview(SCENARIOS[scenario]())
    finally:
        sink.close()
    return shown if shown.endswith("\n") else shown + "\n"

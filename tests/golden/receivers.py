"""Each receiver's golden renders: the body it would send for each scenario, as a person reads it.

The receivers are those of the registry (``notifier.sinks.registry.RECEIVERS``).
``render(receiver, scenario)`` builds a sink of that type as ``run`` does, from
its ``tests/golden/<receiver>/settings.json`` (``{base}`` there is a URL that
is never called: nothing is sent), and returns its ``preview``: the JSON body
(multi-line text a line at a time), the mail's headers and parts, the
console's lines. The files are ``tests/golden/<receiver>/<scenario>.txt``;
``python -m tests.golden.rewrite`` writes them again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from notifier.sinks.base import Receiver
from notifier.sinks.building import build_sink
from notifier.sinks.config import SinkConfig
from notifier.sinks.registry import RECEIVERS
from notifier.sinks.thread_roots import MemoryThreads
from tests.golden.scenarios import SCENARIOS

FOLDER = Path(__file__).resolve().parent
BASE = "https://receiver.example"


def receivers() -> list[str]:
    """Every receiver type of the registry."""
    return sorted(receiver.name for receiver in RECEIVERS)


def settings_path(receiver: str) -> Path:
    return FOLDER / receiver / "settings.json"


def settings(receiver: str, base: str = BASE) -> dict[str, Any]:
    """A sink of ``receiver``'s settings beyond its name and type, ``{base}`` made ``base``."""
    text = settings_path(receiver).read_text(encoding="utf-8").replace("{base}", base)
    found: dict[str, Any] = json.loads(text)
    return found


def path_of(receiver: str, scenario: str) -> Path:
    return FOLDER / receiver / f"{scenario}.txt"


def render(receiver: str, scenario: str) -> str:
    config = TypeAdapter(SinkConfig).validate_python(
        {"name": "out", "type": receiver, **settings(receiver)}
    )
    sink = build_sink(config, threads=MemoryThreads())
    try:
        assert isinstance(sink, Receiver), f"{receiver} cannot show its body"
        shown = sink.preview(SCENARIOS[scenario]())
    finally:
        sink.close()
    return shown if shown.endswith("\n") else shown + "\n"

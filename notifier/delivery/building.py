"""Wiring delivery from the config: sinks built, options and pacing groups attached."""

from __future__ import annotations

from collections.abc import Iterable

from notifier.delivery.delivery import Delivery
from notifier.delivery.runner import DeliveryTarget
from notifier.sinks.building import build_sink
from notifier.sinks.config import SinkConfig
from notifier.sinks.threads import MemoryThreads, ThreadStore
from notifier.state import StateStore


def build_delivery(configs: Iterable[SinkConfig], *, state: StateStore | None) -> Delivery:
    """A ``Delivery`` over the enabled sinks; raises ``SinkBuildError`` for a bad sink.

    With a state store, notifications go through its outbox and Slack
    thread roots are kept in it; without, both live in memory only.
    """
    threads: ThreadStore = state.threads if state is not None else MemoryThreads()
    targets = [
        DeliveryTarget(build_sink(config, threads=threads), config.delivery, config.pacing_group)
        for config in configs
        if config.enabled
    ]
    return Delivery(targets, outbox=state.outbox if state is not None else None)

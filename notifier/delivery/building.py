"""Wiring delivery from the config: sinks built, options and pacing groups attached.

``build_delivery`` at start; ``plan_sinks`` when a reload changes the sinks:
it builds what is new or changed (a bad one raises ``SinkBuildError``
before anything is touched) and says what to apply with ``Delivery.apply``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from notifier.delivery.delivery import Delivery, SinkChanges
from notifier.delivery.runner import DeliveryTarget
from notifier.sinks.alertmanager.open_alerts import AlertStore
from notifier.sinks.building import build_sink
from notifier.sinks.config import SinkConfig
from notifier.sinks.thread_roots import ThreadStore
from notifier.state import Outbox


def build_delivery(
    configs: Iterable[SinkConfig],
    *,
    outbox: Outbox | None,
    threads: ThreadStore,
    alerts: AlertStore | None = None,
) -> Delivery:
    """A ``Delivery`` over the enabled sinks; raises ``SinkBuildError`` for a bad sink.

    With an outbox, notifications are durable until delivered; ``threads``
    keeps Slack thread roots (the state store's, or one in memory).
    """
    targets = [target_for(config, threads, alerts) for config in configs if config.enabled]
    return Delivery(targets, outbox=outbox)


def target_for(
    config: SinkConfig, threads: ThreadStore, alerts: AlertStore | None = None
) -> DeliveryTarget:
    sink = build_sink(config, threads=threads, alerts=alerts)
    return DeliveryTarget(sink, config.delivery, config.pacing_group)


def plan_sinks(
    previous: Sequence[SinkConfig],
    candidate: Sequence[SinkConfig],
    threads: ThreadStore,
    alerts: AlertStore | None = None,
) -> tuple[SinkChanges, tuple[str, ...]]:
    """The changes that take ``previous`` to ``candidate``, and what waits for a restart.

    Sinks are matched by name; a disabled sink counts as absent. A changed
    ``delivery.concurrency`` (the number of worker threads) waits for a restart.
    """
    old = {config.name: config for config in previous if config.enabled}
    new = {config.name: config for config in candidate if config.enabled}
    changed = [config for name, config in new.items() if name in old and old[name] != config]
    changes = SinkChanges(
        added=tuple(target_for(new[name], threads, alerts) for name in new if name not in old),
        changed=tuple(target_for(config, threads, alerts) for config in changed),
        removed=tuple(name for name in old if name not in new),
    )
    later = tuple(
        f"sinks.{config.name}.delivery.concurrency"
        for config in changed
        if config.delivery.concurrency != old[config.name].delivery.concurrency
    )
    return changes, later

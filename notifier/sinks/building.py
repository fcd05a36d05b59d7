"""Building sinks from their config: each receiver type's ``build`` (``notifier.sinks.registry``).

A type's ``build`` is the one place that reads its ``*_file`` secrets: it
raises ``SinkBuildError`` naming the sink and the field when a secret file
cannot be read or a URL is unusable, so a bad config fails at start, not at
the first notification.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable

from notifier.sinks.alertmanager.open_alerts import AlertStore, MemoryAlerts
from notifier.sinks.base import Sink
from notifier.sinks.config import SinkConfig
from notifier.sinks.registry import receiver_of
from notifier.sinks.secrets import SinkBuildError, files_unread
from notifier.sinks.thread_roots import MemoryThreads, ThreadStore


def sink_problems(
    configs: Iterable[SinkConfig], *, read_files: bool = True
) -> list[tuple[str, SinkBuildError]]:
    """Why ``run`` could not build the enabled sinks: (sink name, error) each (none: they build).

    ``rules check`` calls this, so it accepts exactly what ``run`` starts with:
    every secret file read, every URL and CA bundle checked the same way. With
    ``read_files`` off, files stand in for themselves (they are only in the pod).
    """
    problems = []
    with contextlib.nullcontext() if read_files else files_unread():
        for config in configs:
            if config.enabled:
                try:
                    build_sink(config, threads=MemoryThreads()).close()
                except SinkBuildError as err:
                    problems.append((config.name, err))
    return problems


def build_sink(
    config: SinkConfig, *, threads: ThreadStore, alerts: AlertStore | None = None
) -> Sink:
    """The sink ``config`` describes; ``threads`` keeps the roots of the receivers that thread,
    ``alerts`` what an Alertmanager sink still re-sends (in memory when not given)."""
    return receiver_of(config).build(config, threads, alerts or MemoryAlerts())

"""Sinks follow the config on reload: the stager the rules holder calls before a swap."""

from __future__ import annotations

from functools import partial

from notifier.config.errors import ConfigError, ConfigIssue
from notifier.config.loading import LoadedConfig
from notifier.delivery import Delivery
from notifier.delivery.building import plan_sinks
from notifier.reload.holder import Staged, Stager
from notifier.sinks.alertmanager.open_alerts import AlertStore
from notifier.sinks.secrets import SinkBuildError
from notifier.sinks.thread_roots import ThreadStore


def sink_stager(
    delivery: Delivery, threads: ThreadStore, alerts: AlertStore | None = None
) -> Stager:
    """Builds the reloaded config's new and changed sinks; a bad one rejects the reload."""

    def stage(previous: LoadedConfig, candidate: LoadedConfig) -> Staged:
        try:
            changes, later = plan_sinks(
                previous.config.sinks, candidate.config.sinks, threads, alerts
            )
        except SinkBuildError as err:
            issue = ConfigIssue(candidate.source, None, None, "sinks", str(err))
            raise ConfigError([issue]) from None
        return Staged(apply=partial(delivery.apply, changes), restart_needed=later)

    return stage

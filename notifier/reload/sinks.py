"""Sinks follow the config on reload: the stager the rules holder calls before a swap.

A new or changed sink that cannot be built rejects the reload with the same
located error ``run`` and ``rules check`` give (``config/sink_errors.py``):
each sink it is about, file (or ConfigMap), line and key.
"""

from __future__ import annotations

from functools import partial

from notifier.config.errors import ConfigError, ConfigIssue
from notifier.config.loading import LoadedConfig
from notifier.config.sink_errors import sink_build_error
from notifier.delivery import Delivery
from notifier.delivery.building import plan_sinks
from notifier.reload.holder import Staged, Stager
from notifier.sinks.alertmanager.open_alerts import AlertStore
from notifier.sinks.building import sink_problems
from notifier.sinks.secrets import SinkBuildError
from notifier.sinks.thread_roots import ThreadStore


def sink_stager(
    delivery: Delivery, threads: ThreadStore, alerts: AlertStore | None = None
) -> Stager:
    """Builds the reloaded config's new and changed sinks; a bad one rejects the reload."""

    def stage(previous: LoadedConfig, candidate: LoadedConfig) -> Staged:
        unbuildable(previous, candidate)
        try:
            changes, later = plan_sinks(
                previous.config.sinks, candidate.config.sinks, threads, alerts
            )
        except SinkBuildError as err:  # it built a moment ago: a file changed since
            issue = ConfigIssue(candidate.source, None, None, "sinks", str(err))
            raise ConfigError([issue]) from None
        return Staged(apply=partial(delivery.apply, changes), restart_needed=later)

    return stage


def unbuildable(previous: LoadedConfig, candidate: LoadedConfig) -> None:
    """Raise the located ``ConfigError`` for the candidate's new or changed sinks that cannot
    be built (each is built and closed again; the sinks in use are not touched)."""
    kept = previous.config.sinks
    problems = sink_problems([sink for sink in candidate.config.sinks if sink not in kept])
    if problems:
        raise sink_build_error(candidate.source, candidate.config, problems, text=candidate.text)

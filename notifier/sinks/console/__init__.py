"""The console sink: a notification's text on stdout, for local runs and demos.

Its text (``text``, replaceable by the sink's ``template:``) is the facts'
headline, then the details, a digest's members and the enriched context
(``lines``). Each notification becomes at most ``max_lines`` lines prefixed
with the sink name (blank lines skipped); longer text ends with a count of
the lines left out. Lines from concurrent sends never interleave.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from notifier.sinks.console.config import ConsoleSinkConfig
from notifier.sinks.receiver_types import ReceiverType

if TYPE_CHECKING:
    from notifier.sinks.alertmanager.open_alerts import AlertStore
    from notifier.sinks.base import Sink
    from notifier.sinks.thread_roots import ThreadStore


def _build(config: ConsoleSinkConfig, _threads: ThreadStore, _alerts: AlertStore) -> Sink:
    from notifier.sinks.console.building import build_console  # noqa: PLC0415 (its sender, when built)

    return build_console(config)


RECEIVER = ReceiverType(ConsoleSinkConfig, _build, title="the pod log")

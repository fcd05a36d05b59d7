"""``type: opsgenie``: the Alert API; a firing creates an alert, its resolution closes it.

Create: ``POST {api_url}/v2/alerts`` with ``message`` (at most 130),
``alias`` = the fingerprint, ``description``, ``priority`` (P1-P5),
``source``, ``entity``, ``tags`` and ``details``. Close: ``POST
{api_url}/v2/alerts/{alias}/close?identifierType=alias`` with ``user``,
``source`` and ``note``. The key goes in ``Authorization: GenieKey ...``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from notifier.sinks.opsgenie.config import OpsgenieSinkConfig
from notifier.sinks.receiver_types import ReceiverType

if TYPE_CHECKING:
    from notifier.sinks.alertmanager.open_alerts import AlertStore
    from notifier.sinks.base import Sink
    from notifier.sinks.thread_roots import ThreadStore


def _build(config: OpsgenieSinkConfig, _threads: ThreadStore, _alerts: AlertStore) -> Sink:
    from notifier.sinks.opsgenie.sink import build_opsgenie  # noqa: PLC0415 (its sender, when built)

    return build_opsgenie(config)


RECEIVER = ReceiverType(OpsgenieSinkConfig, _build, title="Opsgenie")

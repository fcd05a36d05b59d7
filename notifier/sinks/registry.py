"""Every receiver type: the one list the config, the builder and the docs follow.

Adding a receiver is its package under ``notifier/sinks/`` (``__init__``
declaring ``RECEIVER``, a ``notifier.sinks.receiver_types.ReceiverType``), its
golden renders under ``tests/golden/<type>/`` and one line in ``PACKAGES``
below. The config's union (``sinks.config.SinkConfig``), ``build_sink``, the
golden renders, the benchmark, docs/rules.md's and the chart's lists of
receivers all read ``RECEIVERS``. Importing it imports the settings models
only (no sender: a type's ``build`` imports its own).
"""

from __future__ import annotations

import importlib
from typing import Any

from notifier.sinks.receiver_types import ReceiverType
from notifier.sinks.settings import SinkConfigBase

# The receiver packages, in the order prose names them (the pod log last).
PACKAGES = (
    "slack",
    "alertmanager",
    "email",
    "pagerduty",
    "opsgenie",
    "msteams",
    "discord",
    "googlechat",
    "mattermost",
    "telegram",
    "webhook",
    "console",
)


def _declared(package: str) -> ReceiverType[Any]:
    declared = getattr(importlib.import_module(f"notifier.sinks.{package}"), "RECEIVER", None)
    if not isinstance(declared, ReceiverType) or declared.name != package:
        raise TypeError(f"notifier.sinks.{package} declares no RECEIVER of type {package!r}")
    return declared


RECEIVERS: tuple[ReceiverType[Any], ...] = tuple(_declared(package) for package in PACKAGES)
_BY_CONFIG = {receiver.config: receiver for receiver in RECEIVERS}


def receiver_of(config: SinkConfigBase) -> ReceiverType[Any]:
    """The receiver type ``config`` is the settings of."""
    return _BY_CONFIG[type(config)]

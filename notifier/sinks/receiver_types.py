"""What each receiver type declares: its settings model, how it is built, how prose names it.

Each receiver package's ``__init__`` holds one ``ReceiverType`` as ``RECEIVER``;
``notifier.sinks.registry`` lists the packages. ``build`` imports the receiver's
sender when it is called, so the config side (``rules check``) loads no sender.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar, get_args

from notifier.sinks.settings import SinkConfigBase

if TYPE_CHECKING:
    from notifier.sinks.alertmanager.open_alerts import AlertStore
    from notifier.sinks.base import Sink
    from notifier.sinks.thread_roots import ThreadStore

Config = TypeVar("Config", bound=SinkConfigBase)


@dataclass(frozen=True, slots=True)
class ReceiverType(Generic[Config]):
    """One receiver type: ``config`` (its ``type: Literal[...]`` names it), ``build`` (its
    sink from a config, the thread roots and the open alerts it may keep) and ``title``."""

    config: type[Config]
    build: Callable[[Config, ThreadStore, AlertStore], Sink]
    title: str  # how prose names it: "Microsoft Teams", "webhooks", "the pod log"

    @property
    def name(self) -> str:
        """The ``type:`` a sink of it is written with."""
        [name] = get_args(self.config.model_fields["type"].annotation)
        return str(name)

"""Sink settings as they appear under ``sinks:`` in the config file.

Each receiver type owns its model (``notifier/sinks/<type>/config.py``); this
module joins those of ``notifier.sinks.registry`` into one union, told apart by
``type``. Unknown keys are errors (``extra="forbid"``).

Secrets (``url``, ``token``, ``webhook_url``, ``hmac_secret``) are
``SecretStr``: already expanded from ``${ENV}`` by the config loader, or
read from the matching ``*_file`` when the sink is built. Either form is
accepted, never both. ``SecretStr`` keeps them out of reprs and logs.

Every sink carries ``delivery:`` options (queue size, concurrency, retry
limits, pacing) that the delivery stage reads; sinks themselves never retry.
"""

from __future__ import annotations

import functools
import operator
from typing import TYPE_CHECKING, Annotated, TypeAlias

from pydantic import Field

from notifier.sinks.registry import RECEIVERS
from notifier.sinks.settings import DeliveryOptions, HttpSettings, SinkConfigBase

__all__ = ["DeliveryOptions", "HttpSettings", "SinkConfig"]

if TYPE_CHECKING:
    # What a type checker knows of any sink's settings: what they all share.
    SinkConfig: TypeAlias = SinkConfigBase
else:
    SinkConfig = Annotated[
        functools.reduce(operator.or_, (receiver.config for receiver in RECEIVERS)),
        Field(discriminator="type"),
    ]

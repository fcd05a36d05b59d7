"""Context handed on as facts: ``context`` in a notification's facts, plain values only.

What was fetched (owners nearest first, Warning Events newest first, each
log's last lines, what could not be fetched and why) is added to the facts
as it is, already redacted and bounded; each receiver shows it its own way
(``notifier.sinks``). Facts stay a plain mapping, so other parts can add
theirs beside it.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from notifier.enrichment.context import Context
from notifier.enrichment.telling import change_fields
from notifier.notifications import Facts


def with_context(facts: Facts, context: Context) -> Facts:
    """``facts`` with ``context`` (nothing added when nothing was fetched or failed)."""
    return {**facts, "context": context_fields(context)} if context else facts


def context_fields(context: Context) -> dict[str, Any]:
    """The context as plain fields: the facts' ``context``."""
    return {
        "owners": list(context.owners),
        "events": [dataclasses.asdict(event) for event in context.events],
        "logs": [{**dataclasses.asdict(log), "lines": list(log.lines)} for log in context.logs],
        "problems": list(context.problems),
        "fetched_ms": context.fetched_ms,
        **({"changes": change_fields(context.changes)} if context.changes else {}),
    }

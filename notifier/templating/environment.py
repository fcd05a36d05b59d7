"""The template environment: the bounded sandbox with our filters (duration, mrkdwn_fields)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jinja2

from notifier.templating.sandbox import BoundedSandbox

Escape = Callable[[Any], Any]
_SLACK_FIELD_LIMIT = 10


def make_environment(escape: Escape | None = None) -> BoundedSandbox:
    """The template environment; with ``escape``, what every ``{{ }}`` outputs goes through it."""
    environment = BoundedSandbox(
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=escape,
    )
    environment.filters["duration"] = format_duration
    environment.filters["mrkdwn_fields"] = mrkdwn_fields
    environment.bound_filters()
    return environment


def mrkdwn_fields(details: list[list[str]]) -> list[dict[str, str]]:
    """``details`` pairs as Slack section fields (at most ten, as Slack allows)."""
    shown = details[:_SLACK_FIELD_LIMIT]
    return [{"type": "mrkdwn", "text": f"*{label}*\n{value}"[:2000]} for label, value in shown]


def format_duration(seconds: float) -> str:
    """A short human form: ``45s``, ``3m12s``, ``2h5m``, ``4d3h``."""
    whole = max(int(seconds), 0)
    days, rest = divmod(whole, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    units = (("d", days), ("h", hours), ("m", minutes), ("s", secs))
    shown = [f"{amount}{unit}" for unit, amount in units if amount]
    return "".join(shown[:2]) or "0s"

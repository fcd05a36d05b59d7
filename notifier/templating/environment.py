"""The template environment: the bounded sandbox with our filter (``duration``) and a receiver's."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import jinja2

from notifier.templating.sandbox import BoundedSandbox

Escape = Callable[[Any], Any]


def make_environment(
    escape: Escape | None = None, filters: Mapping[str, Callable[..., Any]] | None = None
) -> BoundedSandbox:
    """The template environment; with ``escape``, what every ``{{ }}`` outputs goes through it;
    ``filters``: a receiver's own, bounded as ours are."""
    environment = BoundedSandbox(
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=escape,
    )
    environment.filters["duration"] = format_duration
    environment.filters.update(filters or {})
    environment.bound_filters()
    return environment


def format_duration(seconds: float) -> str:
    """A short human form: ``45s``, ``3m12s``, ``2h5m``, ``4d3h``."""
    whole = max(int(seconds), 0)
    days, rest = divmod(whole, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    units = (("d", days), ("h", hours), ("m", minutes), ("s", secs))
    shown = [f"{amount}{unit}" for unit, amount in units if amount]
    return "".join(shown[:2]) or "0s"
